// Rows → chunks of the operation's limit → wire elements; gateway results → per-row outcomes,
// matched by transaction_id + order_no (by position only where each result names its row's order).
import { ORDER_FIELDS } from '../gateway/batch-rules.js';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { formatAmount } from '../money/amount.js';
import { OPERATIONS } from './operations.js';
import type { BulkRow, Chunk, RowOutcome, WireElement } from './types.js';

/** Orders per request for a bulk operation, from the endpoints table. */
export function chunkSize(op: BatchOperation): number {
  return ENDPOINTS[op].limit;
}

export function requestCount(rows: number, op: BatchOperation): number {
  return Math.ceil(rows / chunkSize(op));
}

/** The lines of a chunk's rows, in order, building the rows only when the chunk does not know them. */
export function chunkLines(chunk: Chunk): number[] {
  return chunk.lines ?? chunk.rows.map((r) => r.line);
}

/** Group rows into chunks of `size`, numbered from 0, without holding more than one chunk. */
export async function* chunkRows<R extends BulkRow>(
  rows: AsyncIterable<R> | Iterable<R>,
  size: number,
): AsyncGenerator<Chunk<R>> {
  let index = 0;
  let current: R[] = [];
  /** Add a row; the chunk it completes, if it does. */
  const add = (row: R): Chunk<R> | undefined => {
    current.push(row);
    if (current.length < size) return undefined;
    const full = { index: index++, rows: current };
    current = [];
    return full;
  };
  if (Symbol.asyncIterator in rows) {
    for await (const row of rows) {
      const full = add(row);
      if (full) yield full;
    }
  } else {
    // Rows already in memory (pass 1's cache) are taken synchronously: `for await` over them
    // would cost a promise and a microtask per row.
    for (const row of rows) {
      const full = add(row);
      if (full) yield full;
    }
  }
  if (current.length > 0) yield { index, rows: current };
}

/**
 * How a row gives each wire element field beyond the four that name the order. An operation sends
 * the fields its entry lists (OPERATIONS[op].elementFields), in that order.
 */
const EXTRA_VALUE: Readonly<Record<string, (row: BulkRow) => string>> = {
  refund_amount: (r) => r.refund_amount ?? formatAmount(r.refundMinor ?? r.amountMinor, r.currency),
  refund_reason: (r) => r.refund_reason ?? '',
  review_flag: (r) => r.review_flag ?? '',
};

interface Extras {
  fields: string[];
  values: Array<(row: BulkRow) => string>;
}
const extrasByOp = new Map<BatchOperation, Extras>();

function extrasOf(op: BatchOperation): Extras {
  let extras = extrasByOp.get(op);
  if (extras === undefined) {
    const fields = OPERATIONS[op].elementFields;
    if (ORDER_FIELDS.some((f, i) => fields[i] !== f)) {
      throw new Error(`${op}: a wire element begins with ${ORDER_FIELDS.join(', ')}`);
    }
    extras = { fields: fields.slice(ORDER_FIELDS.length), values: [] };
    for (const f of extras.fields) {
      const value = EXTRA_VALUE[f];
      if (value === undefined) throw new Error(`${op}: bulk/chunk.ts does not know how a row gives ${f}`);
      extras.values.push(value);
    }
    extrasByOp.set(op, extras);
  }
  return extras;
}

/** The request element of one row; amounts are canonical wire text. */
export function wireElement(op: BatchOperation, row: BulkRow): WireElement {
  // The order's four fields as a literal: this runs for every row of a run, and a literal is
  // several times faster to build than the same object field by field.
  const el: WireElement = {
    transaction_id: row.transaction_id,
    order_no: row.order_no,
    currency: row.currency,
    amount: row.amount ?? formatAmount(row.amountMinor, row.currency),
  };
  const { fields, values } = extrasOf(op);
  for (let i = 0; i < fields.length; i++) el[fields[i]!] = values[i]!(row);
  return el;
}

function key(transactionId: unknown, orderNo: unknown): string {
  return `${String(transactionId ?? '')}\u0000${String(orderNo ?? '')}`;
}

/** `E2003:…` or `0000:Refund accepted` → the text a person reads. */
function messageOf(op: BatchOperation, result: Record<string, unknown>): string {
  const msg = result[OPERATIONS[op].messageField];
  return typeof msg === 'string' ? msg : '';
}

/**
 * Turn a batch response's result array into one outcome per element, in element order. Results are
 * found by transaction_id + order_no; when one chunk holds several rows of the same order (partial
 * refunds), the operation's distinctBy fields pick among them. Each result is used once. An element with no result is
 * `unknown`: the gateway answered but said nothing about it.
 */
export function matchResults(
  op: BatchOperation,
  lines: readonly number[],
  elements: readonly WireElement[],
  results: readonly unknown[],
): RowOutcome[] {
  const statusField = ENDPOINTS[op].statusField;
  const { resultColumns: fieldNames, distinctBy } = OPERATIONS[op];
  // A gateway answers in request order almost always: when every result names the order of the
  // element at its position (and no order repeats there), that is the match, with no index built.
  // Otherwise results are looked up by transaction_id + order_no.
  const byKey = alignedResults(elements, results) ? undefined : indexResults(results);
  return elements.map((el, i) => {
    const line = lines[i]!;
    let result: Record<string, unknown> | undefined;
    if (byKey === undefined) result = results[i] as Record<string, unknown>;
    else {
      const list = byKey.get(key(el.transaction_id, el.order_no));
      if (list && list.length > 0) {
        let pick = 0;
        if (list.length > 1 && distinctBy.length > 0) {
          // Several rows of one order in one chunk (partial refunds) differ by these fields
          // (validation ensures it); the first of them alone is the fallback.
          const exact = list.findIndex((r) => distinctBy.every((f) => r[f] === el[f]));
          const byFirst = list.findIndex((r) => r[distinctBy[0]!] === el[distinctBy[0]!]);
          pick = exact >= 0 ? exact : Math.max(byFirst, 0);
        }
        result = list.splice(pick, 1)[0];
      }
    }
    if (result === undefined) {
      return {
        line,
        outcome: 'unknown',
        detail: 'the gateway answered but returned no result for this order',
        fields: {},
      };
    }
    const fields: Record<string, string> = {};
    for (const f of fieldNames) {
      const v = result[f];
      if (v !== undefined && v !== null) fields[f] = String(v);
    }
    const ok = String(result[statusField] ?? '') === '1';
    const message = messageOf(op, result);
    return {
      line,
      outcome: ok ? 'succeeded' : 'failed',
      detail: message || (ok ? 'accepted' : `${statusField} ${String(result[statusField] ?? '(missing)')}`),
      fields,
    };
  });
}

/** Whether result i is the order of element i for every i, and no order appears twice. */
function alignedResults(elements: readonly WireElement[], results: readonly unknown[]): boolean {
  if (results.length !== elements.length) return false;
  const seen = new Set<string>();
  for (let i = 0; i < elements.length; i++) {
    const r = results[i];
    if (!r || typeof r !== 'object') return false;
    const rec = r as Record<string, unknown>;
    const el = elements[i]!;
    if (rec.transaction_id !== el.transaction_id || rec.order_no !== el.order_no) return false;
    // Several rows of one order (partial refunds) are matched by OPERATIONS[op].distinctBy instead.
    const before = seen.size;
    seen.add(String(el.transaction_id));
    if (seen.size === before) return false;
  }
  return true;
}

function indexResults(results: readonly unknown[]): Map<string, Record<string, unknown>[]> {
  const byKey = new Map<string, Record<string, unknown>[]>();
  for (const r of results) {
    if (!r || typeof r !== 'object') continue;
    const rec = r as Record<string, unknown>;
    const k = key(rec.transaction_id, rec.order_no);
    const list = byKey.get(k);
    if (list) list.push(rec);
    else byKey.set(k, [rec]);
  }
  return byKey;
}

/** Every row of a chunk with the same outcome (whole-request rejection, not sent, …). */
export function sameOutcome(
  lines: readonly number[],
  outcome: RowOutcome['outcome'],
  detail: string,
): RowOutcome[] {
  return lines.map((line) => ({ line, outcome, detail, fields: {} }));
}
