// Words and numbers for the stderr summary of a run: counts, per-currency totals, where results went.

import { formatMoneyTotals } from '../money/amount.js';
import { displayWidth, wrapAtSpaces } from './width.js';

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

/**
 * Lines wrapped at spaces to fit `columns` (a terminal's width; undefined: as they are), each
 * continuation indented two more than its line. A line holding a command to copy (`payops …`) is
 * never broken: a command over two lines would run as two.
 */
// Colour codes take no column.
const SGR = /\u001b\[[0-9;]*m/g;

export function fitLines(lines: readonly string[], columns: number | undefined): string[] {
  if (!columns || columns < 20) return [...lines];
  const out: string[] = [];
  for (const line of lines) {
    if (displayWidth(line.replace(SGR, '')) < columns || /(^|\s|`)payops\s/.test(line)) {
      out.push(line);
      continue;
    }
    // Narrower than `columns`, as the test above: the last column stays empty.
    out.push(...wrapAtSpaces(line, columns - 1, `${/^\s*/.exec(line)![0]}  `));
  }
  return out;
}
