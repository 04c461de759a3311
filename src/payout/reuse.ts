// Which request_id each payout gets when its input was sent before. The gateway pays a request_id
// once, so an unchanged payout must get its earlier id back — even when the file was edited around
// it (a row fixed, a row added) — and a payout that changed after it completed (or may have, or is
// still pending at the gateway) must not silently go out again as a new one.
import type { InputProblem } from '../errors.js';
import { type RunInfo, readRun } from '../lifecycle/read.js';
import { payoutKey } from './meaning.js';
import type { PayoutItem } from './plan.js';
import { type PayoutOutcome, type PayoutRecord, parsePayoutRecord } from './records.js';

export { payoutKey };

/** What an earlier run recorded for one line. */
export interface PriorPayout {
  line: number;
  request_id: string;
  /** Absent in journals written before keys were recorded. */
  key?: string;
  /** Account, amount, currency and date (meaning.ts payoutMatch); absent in journals before issue 23. */
  match?: string;
  /** The last result's outcome; `unknown` after an intent without result; `unsent` with no intent. */
  outcome: PayoutOutcome | 'unsent';
  /** The gateway's status in the last result (COMPLETED, PENDING, …), if any. */
  status?: string;
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
          ...(item.match ? { match: item.match } : {}),
          outcome: 'unsent',
        });
      }
    } else if (r.type === 'intent' || r.type === 'result') {
      const p = byLine.get(r.line);
      if (!p) continue;
      if (r.type === 'intent' && p.outcome === 'unsent') p.outcome = 'unknown';
      if (r.type === 'result') {
        p.outcome = r.outcome;
        p.status = r.status;
      }
    }
  }
  return [...byLine.values()];
}

/** Earlier outcomes that may mean money moved (or will): such a line must not change under a new id. */
export const BINDING = new Set<PriorPayout['outcome']>(['completed', 'pending', 'unknown']);

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

/** A request_id for a payout the earlier run did not have: the id alone (generated), or with where it came from. */
export type NewId = (item: PayoutItem) => string | { id: string; from: PayoutItem['requestIdFrom'] };

/**
 * Gives each item without its own request_id the id the earlier run gave the same content (matched
 * by content, so moved rows keep theirs); the rest get theirs from `newId`. In an edited batch, a
 * line whose content changed after its payout completed (or may have) and that gets a new id is a
 * conflict: the caller refuses to send rather than pay that payout a second time under a new id.
 */
export function reuseRequestIds(
  items: PayoutItem[],
  prior: readonly PriorPayout[],
  newId: NewId,
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
      const given = newId(item);
      const { id, from } = typeof given === 'string' ? { id: given, from: 'generated' as const } : given;
      item.request.request_id = id;
      item.requestIdFrom = from;
      taken.add(id);
      // An id another run of this home gave the same payout is not a new payout.
      if (from !== 'journal') fresh.push(item);
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
        'the row as it was; or, to pay it as a new payout, a new request_id in a request_id column, or --force',
    });
  }
  return { reused, conflicts };
}

/** A payout an earlier run of this home planned, with the run it is in. */
export interface EarlierPayout extends PriorPayout {
  runId: string;
}

/** A payout of the plan that matches earlier payouts of this home by account, amount, currency and date. */
export interface PossiblyDone {
  line: number;
  request_id: string;
  earlier: EarlierPayout[];
}

/**
 * The request_id an earlier run of this home gave the same content (the newest run first), for a
 * payout that is not in the run being continued: the gateway then answers with that payout.
 */
export function journaledIds(earlier: readonly EarlierPayout[]): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const p of earlier) if (p.key !== undefined && !byKey.has(p.key)) byKey.set(p.key, p.request_id);
  return byKey;
}

/**
 * Payouts about to go out under a new request_id (derived or generated) although an earlier payout
 * of this home to the same account, of the same amount and currency on the same date, completed,
 * is pending or got no answer: an edited copy of a payout already made, perhaps. `earlier` is
 * newest first; a failed or never-sent earlier payout moved no money and does not count.
 */
export function possiblyDone(
  items: readonly PayoutItem[],
  earlier: readonly EarlierPayout[],
): PossiblyDone[] {
  const byMatch = new Map<string, EarlierPayout[]>();
  for (const p of earlier) {
    if (p.match === undefined || !BINDING.has(p.outcome)) continue;
    const list = byMatch.get(p.match) ?? [];
    list.push(p);
    byMatch.set(p.match, list);
  }
  const out: PossiblyDone[] = [];
  for (const item of items) {
    if (item.requestIdFrom !== 'derived' && item.requestIdFrom !== 'generated') continue;
    const id = String(item.request.request_id);
    const found = (item.match === undefined ? undefined : byMatch.get(item.match))?.filter(
      (p) => p.request_id !== id,
    );
    if (found && found.length > 0) out.push({ line: item.line, request_id: id, earlier: found });
  }
  return out;
}

/** How an earlier payout is named to the user: its run, request_id and status. */
export function describeEarlier(p: EarlierPayout): string {
  const status =
    p.status !== undefined && p.status !== ''
      ? p.status
      : p.outcome === 'unknown'
        ? 'no answer: it may have been made'
        : p.outcome.toUpperCase();
  return `run ${p.runId}, request_id ${p.request_id}, ${status}`;
}

/** The payouts of these runs (newest first), each with its run id; a run's journal is read once. */
export async function earlierPayouts(state: string, runs: readonly RunInfo[]): Promise<EarlierPayout[]> {
  const out: EarlierPayout[] = [];
  for (const run of runs) {
    const { records } = await readRun(state, run.runId, parsePayoutRecord);
    for (const p of priorPayouts(records).sort((a, b) => a.line - b.line))
      out.push({ ...p, runId: run.runId });
  }
  return out;
}

/** How many payouts an earlier run of this home made, or may have (same content or same account, amount, date). */
export function repeated(items: readonly PayoutItem[], earlier: readonly EarlierPayout[]): number {
  const binding = earlier.filter((p) => BINDING.has(p.outcome));
  return items.filter(
    (i) => i.requestIdFrom !== 'input' && binding.some((p) => p.key === i.key || p.match === i.match),
  ).length;
}
