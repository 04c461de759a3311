// One result record per input row: the input's columns untouched, the gateway's per-order fields,
// `outcome` and `outcome_detail`; plus the run's counts and totals per outcome and currency, and the
// exit code they mean. Data only: src/output/ renders it.
import type { BatchOperation } from '../../gateway/endpoints.js';
import { addToTotals, formatAmount } from '../../money/amount.js';
import { currencyInfo } from '../../money/currency.js';
import { OPERATIONS } from '../operations.js';
import type { InputRow, Outcome, RowOutcome, RunTotals } from '../types.js';

export const OUTCOMES: readonly Outcome[] = [
  'succeeded',
  'already_done',
  'skipped',
  'failed',
  'unknown',
  'not_sent',
  'duplicated',
];

export interface ResultLayout {
  /** Every output column in order. */
  columns: string[];
  inputColumns: string[];
  /** Gateway field → its output column (prefixed `result_` when the input already has that name). */
  gatewayColumns: Array<[field: string, column: string]>;
  outcomeColumn: string;
  detailColumn: string;
  /** The few columns a person reads in a terminal table (the CSV/JSON carry them all). */
  tableColumns: string[];
  /** Input cells that hold amounts, and the one that holds their currency (padding, resultCells). */
  amounts?: { at: number[]; currencyAt: number };
}

export function resultLayout(
  op: BatchOperation,
  inputColumns: string[],
  /** Columns found under another header (alias or --columns): the table shows them by that header. */
  matches: ReadonlyArray<{ column: string; header: string }> = [],
): ResultLayout {
  const taken = new Set(inputColumns.map((c) => c.trim().toLowerCase()));
  const free = (name: string) => {
    let n = name;
    while (taken.has(n)) n = `result_${n}`;
    taken.add(n);
    return n;
  };
  const { resultColumns, table } = OPERATIONS[op];
  const gatewayColumns = resultColumns.map((f) => [f, free(f)] as [string, string]);
  const outcomeColumn = free('outcome');
  const detailColumn = free('outcome_detail');
  const byName = new Map(inputColumns.map((c) => [c.trim().toLowerCase(), c]));
  for (const m of matches) if (!byName.has(m.column)) byName.set(m.column, m.header);
  const tableColumns = [
    ...table.input.flatMap((name) => (byName.has(name) ? [byName.get(name)!] : [])),
    ...gatewayColumns.filter(([f]) => table.result.includes(f)).map(([, c]) => c),
    outcomeColumn,
    detailColumn,
  ];
  const indexOf = (name: string) => inputColumns.indexOf(byName.get(name) ?? '');
  const amountsAt = ['amount', 'refund_amount'].map(indexOf).filter((i) => i >= 0);
  const currencyAt = indexOf('currency');
  return {
    tableColumns,
    ...(amountsAt.length > 0 && currencyAt >= 0 ? { amounts: { at: amountsAt, currencyAt } } : {}),
    columns: [...inputColumns, ...gatewayColumns.map(([, c]) => c), outcomeColumn, detailColumn],
    inputColumns,
    gatewayColumns,
    outcomeColumn,
    detailColumn,
  };
}

/** One result row as cells in `layout.columns` order: input cells, gateway fields, outcome, detail. */
export function resultCells(layout: ResultLayout, cells: readonly string[], o: RowOutcome): string[] {
  const inputs = layout.inputColumns.length;
  const gateway = layout.gatewayColumns;
  const out = new Array<string>(inputs + gateway.length + 2);
  for (let i = 0; i < inputs; i++) out[i] = cells[i] ?? '';
  if (layout.amounts) {
    // A workbook's amounts are numbers (356.5, 40): shown with the currency's decimals, as every
    // amount is (issue 27). Only padded, never rounded; text in any other form is left as written.
    const digits = currencyInfo((cells[layout.amounts.currencyAt] ?? '').trim())?.minorDigits;
    if (digits !== undefined) for (const i of layout.amounts.at) out[i] = padDecimals(out[i]!, digits);
  }
  for (let j = 0; j < gateway.length; j++) out[inputs + j] = o.fields[gateway[j]![0]] ?? '';
  out[inputs + gateway.length] = o.outcome;
  out[inputs + gateway.length + 1] = o.detail;
  return out;
}

/** `356.5` → `356.50` for 2 decimals; anything but a plain decimal with fewer digits as it is. */
export function padDecimals(text: string, digits: number): string {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (m === null) return text;
  const fraction = m[2] ?? '';
  if (fraction.length >= digits) return text;
  return digits === 0 ? m[1]! : `${m[1]}.${fraction.padEnd(digits, '0')}`;
}

/** A workbook row a person does not see, left out by --skip-hidden: never sent, reported so. */
export function skippedHidden(line: number, ref: string): RowOutcome {
  return { line, outcome: 'skipped', detail: `hidden row ${ref}: left out (--skip-hidden)`, fields: {} };
}

export function newTotals(): RunTotals {
  return {
    counts: { succeeded: 0, already_done: 0, skipped: 0, failed: 0, unknown: 0, not_sent: 0, duplicated: 0 },
    money: {
      succeeded: new Map(),
      already_done: new Map(),
      skipped: new Map(),
      failed: new Map(),
      unknown: new Map(),
      not_sent: new Map(),
      duplicated: new Map(),
    },
  };
}

/** Count a row under its outcome, with the money the operation moves for it. */
export function addToRunTotals(t: RunTotals, op: BatchOperation, row: InputRow, outcome: Outcome): void {
  t.counts[outcome]++;
  const minor = row[OPERATIONS[op].moves] ?? row.amountMinor;
  addToTotals(t.money[outcome], row.currency, minor);
}

/** 0 all succeeded · 1 some failed · 3 some unknown, not sent (resumable) or duplicated (loudly). */
export function exitCodeForTotals(t: RunTotals): 0 | 1 | 3 {
  if (t.counts.unknown > 0 || t.counts.not_sent > 0 || t.counts.duplicated > 0) return 3;
  if (t.counts.failed > 0) return 1;
  return 0;
}

/** Plain JSON of totals for journal records and `--output json` (bigint → decimal minor-unit strings). */
export function totalsJson(t: RunTotals): {
  counts: RunTotals['counts'];
  money: Record<string, Record<string, string>>;
} {
  const money: Record<string, Record<string, string>> = {};
  for (const o of OUTCOMES) {
    money[o] = Object.fromEntries([...t.money[o]].map(([cur, minor]) => [cur, minor.toString()]));
  }
  return { counts: { ...t.counts }, money };
}

/**
 * Totals for the JSON run document: outcome → currency → amount as a decimal string in the
 * currency's digits ("12.50", "1000" for JPY); only outcomes that hold money.
 */
export function totalsDecimal(t: RunTotals): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const o of OUTCOMES) {
    if (t.money[o].size === 0) continue;
    out[o] = Object.fromEntries([...t.money[o]].map(([cur, minor]) => [cur, decimal(minor, cur)]));
  }
  return out;
}

function decimal(minor: bigint, currency: string): string {
  try {
    return formatAmount(minor, currency);
  } catch {
    return minor.toString(); // an unknown code never reaches a run (validated); kept whole if it did
  }
}
