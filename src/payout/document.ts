// A payout run in the JSON run document (output/run-document.ts): its outcomes and the money per
// outcome and currency, as decimal strings in the currency's digits.
import { addToTotals, formatAmount, parseAmount } from '../money/amount.js';
import type { RunDocument } from '../output/run-document.js';
import type { PayoutResultRow } from './records.js';

/** The counts a payout run's document always carries, in order. */
export const PAYOUT_OUTCOMES = ['completed', 'failed', 'pending', 'unknown', 'not_sent'] as const;

export function payoutTotals(rows: readonly PayoutResultRow[]): Record<string, Record<string, string>> {
  const byOutcome = new Map<string, Map<string, bigint>>();
  for (const r of rows) {
    const parsed = parseAmount(r.payment_amount, r.payment_currency);
    if (!parsed.ok) continue; // the plan checked every amount; an odd echo is not counted as money
    const m = byOutcome.get(r.outcome) ?? new Map<string, bigint>();
    byOutcome.set(r.outcome, m);
    addToTotals(m, r.payment_currency, parsed.minor);
  }
  const out: Record<string, Record<string, string>> = {};
  for (const o of PAYOUT_OUTCOMES) {
    const m = byOutcome.get(o);
    if (m) out[o] = Object.fromEntries([...m].map(([cur, minor]) => [cur, formatAmount(minor, cur)]));
  }
  return out;
}

/** What the run document says of a payout run's end (main() adds the exit code and any error). */
export function payoutDocumentEnd(
  rows: readonly PayoutResultRow[],
  counts: { pending: number; unknown: number; unsent: number } & Record<string, number>,
  end: { stoppedBy: unknown; failed: boolean },
): NonNullable<RunDocument['outcome']> {
  const open = counts.pending + counts.unknown + counts.unsent;
  const state =
    end.stoppedBy !== undefined
      ? 'interrupted'
      : end.failed
        ? 'stopped'
        : open > 0
          ? 'interrupted'
          : 'finished';
  return {
    state,
    counts: { ...counts, not_sent: counts.unsent },
    totals: payoutTotals(rows),
    ...(end.stoppedBy !== undefined
      ? { error: { code: 'interrupted', message: `stopped by ${String(end.stoppedBy)}` } }
      : {}),
  };
}
