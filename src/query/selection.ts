// What the user asked for (flags and a CSV file) → a Selection: the order numbers, transaction ids
// and date range to look up. Pure: reading the file happens in selector-file.ts.
import { UsageError } from '../errors.js';
import { invisibleIdProblem } from '../quote.js';
import { parseDateArg } from './dates.js';

export type SelectorField = 'order_no' | 'transaction_id';

export interface SelectorFlags {
  orderNo?: string[];
  transactionId?: string[];
  from?: string;
  to?: string;
  utc?: boolean;
}

export interface Selection {
  /** Distinct, in the order first asked for. */
  orderNos: string[];
  transactionIds: string[];
  /** Inclusive bounds (UTC instants). */
  start?: Date;
  end?: Date;
}

/** Repeated flags and comma-separated lists → trimmed values; empty pieces (`a,,b`, `a,`) are skipped. */
export function splitValues(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Values in first-asked order, each once. */
export function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

export function buildSelection(
  flags: SelectorFlags,
  fromFile: { orderNos: string[]; transactionIds: string[] } = { orderNos: [], transactionIds: [] },
): Selection {
  for (const [flag, raw] of [
    ['--order-no', flags.orderNo],
    ['--transaction-id', flags.transactionId],
  ] as const) {
    if (raw !== undefined && raw.length > 0 && splitValues(raw).length === 0) {
      throw new UsageError(`${flag} was given without a value`, {
        hint: `${flag} X (repeat it, or separate values with commas)`,
      });
    }
    // An id with a zero-width space or a bidi override is never one the gateway issued, and its
    // not-found line would read as the real id's.
    for (const value of splitValues(raw)) {
      const problem = invisibleIdProblem(value);
      if (problem) {
        throw new UsageError(`${flag}: ${problem}`, {
          hint: 'type or paste the id again without the hidden character',
        });
      }
    }
  }
  const orderNos = distinct([...splitValues(flags.orderNo), ...fromFile.orderNos]);
  const transactionIds = distinct([...splitValues(flags.transactionId), ...fromFile.transactionIds]);
  const utc = Boolean(flags.utc);
  const start =
    flags.from === undefined ? undefined : parseDateArg(flags.from, { bound: 'start', utc, flag: '--from' });
  const end =
    flags.to === undefined ? undefined : parseDateArg(flags.to, { bound: 'end', utc, flag: '--to' });
  if (start && end && start.getTime() > end.getTime()) {
    throw new UsageError(`--from (${flags.from}) is after --to (${flags.to})`, {
      hint: 'swap them: --from is the earlier end of the range',
    });
  }
  if (orderNos.length === 0 && transactionIds.length === 0 && !start && !end) {
    throw new UsageError('say which orders: nothing to look up', {
      hint: 'use --order-no X, --transaction-id T, --file FILE.csv, or --from DATE [--to DATE]',
    });
  }
  const sel: Selection = { orderNos, transactionIds };
  if (start) sel.start = start;
  if (end) sel.end = end;
  return sel;
}

/** True when the selection is a date range with no list: the gateway then returns at most `limit` records. */
export function isRangeOnly(sel: Selection): boolean {
  return sel.orderNos.length === 0 && sel.transactionIds.length === 0;
}
