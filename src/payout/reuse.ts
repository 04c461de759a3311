// Which request_id each payout gets when its input was sent before. The gateway pays a request_id
// once, so an unchanged payout must get its earlier id back — even when the file was edited around
// it (a row fixed, a row added) — and a payout that changed after it completed (or may have, or is
// still pending at the gateway) must not silently go out again as a new one.
import { createHash } from 'node:crypto';
import type { InputProblem } from '../errors.js';
import { canonical } from '../gateway/signer.js';
import type { PayoutItem } from './plan.js';
import type { PayoutOutcome, PayoutRecord } from './records.js';

/**
 * Identifies a payout's content, request_id aside: the signature's canonical text (every field,
 * sorted), which the sandbox also compares to tell a repeated request_id's payout apart.
 */
export function payoutKey(request: Record<string, unknown>): string {
  const { request_id: _id, ...rest } = request;
  return createHash('sha256').update(canonical(rest)).digest('hex').slice(0, 32);
}

/** What an earlier run recorded for one line. */
export interface PriorPayout {
  line: number;
  request_id: string;
  /** Absent in journals written before keys were recorded. */
  key?: string;
  /** The last result's outcome; `unknown` after an intent without result; `unsent` with no intent. */
  outcome: PayoutOutcome | 'unsent';
}

/** Reads an earlier run's plan, intents and results. */
export function priorPayouts(records: readonly PayoutRecord[]): PriorPayout[] {
  const byLine = new Map<number, PriorPayout>();
  for (const r of records) {
    if (r.type === 'plan') {
      for (const item of r.items) {
        byLine.set(item.line, {
          line: item.line,
          request_id: item.request_id,
          ...(item.key ? { key: item.key } : {}),
          outcome: 'unsent',
        });
      }
    } else if (r.type === 'intent' || r.type === 'result') {
      const p = byLine.get(r.line);
      if (!p) continue;
      if (r.type === 'intent' && p.outcome === 'unsent') p.outcome = 'unknown';
      if (r.type === 'result') p.outcome = r.outcome;
    }
  }
  return [...byLine.values()];
}

/** Earlier outcomes that may mean money moved (or will): such a line must not change under a new id. */
const BINDING = new Set<PriorPayout['outcome']>(['completed', 'pending', 'unknown']);

function conflictMessage(before: PriorPayout, runId: string): string {
  const id = `request_id ${before.request_id}`;
  if (before.outcome === 'completed')
    return `changed since run ${runId}, where its payout COMPLETED (${id}): sending it would pay a second time`;
  if (before.outcome === 'pending')
    return `changed since run ${runId}, where its payout is still PENDING at the gateway (${id}) and may yet be paid: sending it would pay a second time`;
  return `changed since run ${runId}, where its payout got no answer and may have been made (${id})`;
}

export interface Reuse {
  /** Items whose id came from the earlier run. */
  reused: number;
  /** Lines that changed since the earlier run sent them (completed, pending or maybe): sending them would pay again. */
  conflicts: InputProblem[];
}

/**
 * Gives each item without its own request_id the id the earlier run gave the same content (matched
 * by content, so moved rows keep theirs); generates the rest with `newId`. In an edited batch, a
 * line whose content changed after its payout completed (or may have) is a conflict: the caller
 * refuses to send rather than pay that payout a second time under a new id.
 */
export function reuseRequestIds(
  items: PayoutItem[],
  prior: readonly PriorPayout[],
  newId: () => string,
  where: { file: string; runId: string },
): Reuse {
  const byKey = new Map<string, PriorPayout[]>();
  for (const p of [...prior].sort((a, b) => a.line - b.line)) {
    if (p.key === undefined) continue;
    const list = byKey.get(p.key) ?? [];
    list.push(p);
    byKey.set(p.key, list);
  }
  const byLine = new Map(prior.map((p) => [p.line, p]));
  const taken = new Set<string>(
    items.filter((i) => i.requestIdFrom === 'input').map((i) => String(i.request.request_id)),
  );
  let reused = 0;
  const fresh: PayoutItem[] = [];
  for (const item of items) {
    item.key = payoutKey(item.request);
    if (item.requestIdFrom === 'input') continue;
    const match = byKey.get(item.key)?.find((p) => !taken.has(p.request_id));
    if (match) {
      taken.add(match.request_id);
      item.request.request_id = match.request_id;
      item.requestIdFrom = 'journal';
      reused++;
    } else {
      item.request.request_id = newId();
      item.requestIdFrom = 'generated';
      fresh.push(item);
    }
  }
  // Only an edited batch (some rows recognised) is checked: a file reused for a wholly new batch
  // shares nothing with its last run and is simply new payouts.
  const conflicts: InputProblem[] = [];
  if (reused === 0) return { reused, conflicts };
  for (const item of fresh) {
    const before = byLine.get(item.line);
    if (!before || before.key === undefined || taken.has(before.request_id)) continue;
    // A pending payout is one the gateway holds and may still complete: as binding as a completed one.
    if (!BINDING.has(before.outcome)) continue;
    conflicts.push({
      file: where.file,
      line: item.line,
      message: conflictMessage(before, where.runId),
      expected:
        'the row as it was; or, to pay it as a new payout, a new request_id in a request_id column (--force makes every row a new payout)',
    });
  }
  return { reused, conflicts };
}
