// Words and numbers for the stderr summary of a run: counts, per-currency totals, where results went.

import { formatMoneyTotals } from '../money/amount.js';
import { fitMessage } from './width.js';

const THOUSANDS = /\B(?=(\d{3})+$)/g;

/** 1234567 → "1,234,567". Not toLocaleString: its first call loads ICU data, ~17 ms of every run. */
export function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(THOUSANDS, ',');
}

/** "1 row", "2 rows", "1,000 orders"; `plural` defaults to singular + "s". */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : pluralForm}`;
}

export interface OutcomeLine {
  /** succeeded, failed, unknown, not_sent … */
  outcome: string;
  count: number;
  /** Money per currency for this outcome (minor units). */
  totals?: Map<string, bigint>;
}

/**
 * Aligned lines, one per outcome with rows:
 *   succeeded  998  EUR 10.00 · USD 1,234.50
 *   failed       2  USD 20.00
 */
export function renderOutcomes(lines: OutcomeLine[]): string {
  const shown = lines.filter((l) => l.count > 0);
  if (shown.length === 0) return '';
  const nameWidth = Math.max(...shown.map((l) => l.outcome.length));
  const countWidth = Math.max(...shown.map((l) => formatCount(l.count).length));
  return shown
    .map((l) => {
      const money = l.totals && l.totals.size > 0 ? `  ${formatMoneyTotals(l.totals)}` : '';
      return `${l.outcome.padEnd(nameWidth)}  ${formatCount(l.count).padStart(countWidth)}${money}`;
    })
    .join('\n')
    .concat('\n');
}

/** "label: value" lines with the values aligned, skipping undefined values. */
export function renderFacts(facts: Array<[label: string, value: string | undefined]>): string {
  const shown = facts.filter((f): f is [string, string] => f[1] !== undefined);
  if (shown.length === 0) return '';
  const width = Math.max(...shown.map(([l]) => l.length)) + 1;
  return `${shown.map(([l, v]) => `${`${l}:`.padEnd(width)} ${v}`).join('\n')}\n`;
}

/** The lines of a message wrapped to `columns` at spaces (width.ts fitMessage: the one word wrap). */
export function fitLines(lines: readonly string[], columns: number | undefined): string[] {
  return fitMessage(lines, columns);
}
