// `payout --wait`: payouts the gateway answered PENDING (or whose answer was lost) are waited for
// until each is COMPLETED or FAILED — by the payout events a running `payops listen` journaled for
// their request_ids, else by sending the same request again with backoff (idempotent on request_id,
// design.md §1.4: the gateway answers the payout's current status and never pays twice). Every
// answer is journaled as the run's other results are, so `runs show` and --resume see it.
import type { Context } from '../context.js';
import type { GatewayClient } from '../gateway/client.js';
import type { PayoutResponse } from '../gateway/types.js';
import type { RunJournal } from '../lifecycle/journal.js';
import { durationText } from '../wait/duration.js';
import type { EventTail, JournaledEvent } from '../wait/events-tail.js';
import { hasNotifyUrl, noEventsNote, waitForFinal } from '../wait/wait-loop.js';
import { waitLine } from '../wait/wait-view.js';
import type { PayoutItem } from './plan.js';
import type { PayoutJournalRecord } from './records.js';
import { type PayoutResultRow, rowFromAnswer, sendPayouts } from './send.js';

export interface WaitPayoutsOptions {
  client: GatewayClient;
  journal: RunJournal<PayoutJournalRecord>;
  concurrency: number;
  waitMs: number;
  tail: EventTail;
  /** The run's stop signal (first Ctrl-C): waiting ends, the run stays open for --resume. */
  signal: AbortSignal;
  /** The second Ctrl-C: a payout sent again and in flight is abandoned (unknown, as in a run). */
  abandon: AbortSignal;
}

const settled = (row: PayoutResultRow) => row.outcome === 'completed' || row.outcome === 'failed';

/** The payouts of `rows` not settled yet (pending, or without a trustworthy answer). */
export function openRows(rows: readonly PayoutResultRow[]): PayoutResultRow[] {
  return rows.filter((r) => !settled(r));
}

/**
 * Waits for every open row of `rows` and returns `rows` with each one settled meanwhile replaced
 * by its final result (the others as they were, for --resume).
 */
export async function waitForPayouts(
  ctx: Context,
  items: readonly PayoutItem[],
  rows: readonly PayoutResultRow[],
  opts: WaitPayoutsOptions,
): Promise<PayoutResultRow[]> {
  const byLine = new Map(rows.map((r) => [r.line, r]));
  const itemOf = new Map(items.map((i) => [i.line, i]));
  const waiting = () => [...byLine.values()].filter((r) => !settled(r) && itemOf.has(r.line));
  const n = waiting().length;
  if (n === 0 || opts.signal.aborted) return [...rows];
  // Slow polling only when an event can come for every payout waited for (each sent with a notify_url).
  const eventsExpected = waiting().every((r) => hasNotifyUrl(itemOf.get(r.line)?.request.notify_url));
  if (opts.tail.listening && !eventsExpected)
    ctx.log.info(noEventsNote(n === 1 ? 'the pending payout' : 'a pending payout'));
  const line = waitLine(
    ctx.io,
    ctx.globals,
    `waiting for ${n === 1 ? 'a pending payout' : `${n} pending payouts`}`,
    opts.waitMs,
  );
  const fromEvents = async (events: readonly JournaledEvent[]) => {
    const open = new Map(waiting().map((r) => [r.request_id, r]));
    for (const ev of events) {
      if (!ev.eventType.startsWith('payout.')) continue;
      const row = open.get(String(ev.data.request_id ?? ''));
      if (!row) continue;
      // The event's payout record is read as an answer is: it must be this payout's.
      const fresh = rowFromAnswer(itemOf.get(row.line)!, ev.data as unknown as PayoutResponse);
      if (!settled(fresh)) continue;
      await opts.journal.append({ type: 'result', ...fresh });
      byLine.set(row.line, fresh);
      open.delete(row.request_id);
    }
    return open.size === 0 ? true : undefined;
  };
  try {
    await waitForFinal<true>({
      waitMs: opts.waitMs,
      signal: opts.signal,
      tail: opts.tail,
      eventsExpected,
      fromEvents,
      ask: async () => {
        const again = waiting()
          .map((r) => itemOf.get(r.line)!)
          .filter(Boolean);
        const answers = await sendPayouts(
          {
            client: opts.client,
            journal: opts.journal,
            concurrency: opts.concurrency,
            abandon: opts.abandon,
          },
          again,
        );
        for (const a of answers) byLine.set(a.line, a);
        return waiting().length === 0 ? true : undefined;
      },
      onTick: (ms) => line.tick(ms),
    });
  } finally {
    line.stop();
  }
  const left = waiting().length;
  if (left > 0 && !opts.signal.aborted) {
    ctx.log.warn(
      `${left === 1 ? '1 payout is' : `${left} payouts are`} still not settled after ${durationText(opts.waitMs)}; the run stays open (the summary says how to resume it)`,
    );
  }
  return rows.map((r) => byLine.get(r.line) ?? r);
}
