// A payout run in the JSON run document (output/run-document.ts): its outcomes and the money per
// outcome and currency, as decimal strings in the currency's digits.
import { addToTotals, formatAmount, parseAmount } from '../money/amount.js';
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
