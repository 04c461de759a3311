// Rows → chunks of the operation's limit → wire elements; gateway results → per-row outcomes,
// matched by transaction_id + order_no (never by position).
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { formatAmount } from '../money/amount.js';
import type { BulkRow, Chunk, RowOutcome, WireElement } from './types.js';

/** Orders per request for a bulk operation, from the endpoints table. */
export function chunkSize(op: BatchOperation): number {
  return ENDPOINTS[op].limit;
}

export function requestCount(rows: number, op: BatchOperation): number {
  return Math.ceil(rows / chunkSize(op));
}

/** Group rows into chunks of `size`, numbered from 0, without holding more than one chunk. */
export async function* chunkRows<R extends BulkRow>(
  rows: AsyncIterable<R> | Iterable<R>,
  size: number,
): AsyncGenerator<Chunk<R>> {
  let index = 0;
  let current: R[] = [];
  for await (const row of rows) {
    current.push(row);
    if (current.length === size) {
      yield { index: index++, rows: current };
      current = [];
    }
  }
  if (current.length > 0) yield { index, rows: current };
}

export function wireElement(op: BatchOperation, row: BulkRow): WireElement {
  const el: WireElement = {
    transaction_id: row.transaction_id,
    order_no: row.order_no,
    currency: row.currency,
    amount: row.amount ?? formatAmount(row.amountMinor, row.currency),
  };
  if (op === 'refund') {
    el.refund_amount = row.refund_amount ?? formatAmount(row.refundMinor ?? row.amountMinor, row.currency);
    el.refund_reason = row.refund_reason ?? '';
  } else if (op === 'review') {
    el.review_flag = row.review_flag ?? '';
  }
  return el;
}

/** The gateway's per-order fields shown in results, per operation (besides the echoed input). */
export const RESULT_FIELDS: Record<BatchOperation, readonly string[]> = {
  capture: ['capture_status', 'error_message'],
  cancel: ['cancel_status', 'error_message'],
  review: ['review_status', 'error_message'],
  refund: ['refund_status', 'refund_message', 'refund_reference', 'refund_reference_id'],
};

function key(transactionId: unknown, orderNo: unknown): string {
  return `${String(transactionId ?? '')}\u0000${String(orderNo ?? '')}`;
}

/** `E2003:…` or `0000:Refund accepted` → the text a person reads. */
function messageOf(op: BatchOperation, result: Record<string, unknown>): string {
  const msg = op === 'refund' ? result.refund_message : result.error_message;
  return typeof msg === 'string' ? msg : '';
}

/**
 * Turn a batch response's result array into one outcome per element, in element order. Results are
 * found by transaction_id + order_no; when one chunk holds several rows of the same order (partial
 * refunds), refund_amount picks among them. Each result is used once. An element with no result is
 * `unknown`: the gateway answered but said nothing about it.
 */
export function matchResults(
  op: BatchOperation,
  lines: readonly number[],
  elements: readonly WireElement[],
  results: readonly unknown[],
): RowOutcome[] {
  const statusField = ENDPOINTS[op].statusField;
  const byKey = new Map<string, Record<string, unknown>[]>();
  for (const r of results) {
    if (!r || typeof r !== 'object') continue;
    const rec = r as Record<string, unknown>;
    const k = key(rec.transaction_id, rec.order_no);
    const list = byKey.get(k);
    if (list) list.push(rec);
    else byKey.set(k, [rec]);
  }
  return elements.map((el, i) => {
    const line = lines[i]!;
    const list = byKey.get(key(el.transaction_id, el.order_no));
    let pick = -1;
    if (list && list.length > 0) {
      pick = 0;
      if (list.length > 1 && op === 'refund') {
        // Partial refunds of one order in one chunk differ by amount or reason (validation ensures it).
        const exact = list.findIndex(
          (r) => r.refund_amount === el.refund_amount && r.refund_reason === el.refund_reason,
        );
        const byAmount = list.findIndex((r) => r.refund_amount === el.refund_amount);
        pick = exact >= 0 ? exact : Math.max(byAmount, 0);
      }
    }
    if (!list || pick < 0) {
      return {
        line,
        outcome: 'unknown',
        detail: 'the gateway answered but returned no result for this order',
        fields: {},
      };
    }
    const result = list.splice(pick, 1)[0]!;
    const fields: Record<string, string> = {};
    for (const f of RESULT_FIELDS[op]) {
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

/** Every row of a chunk with the same outcome (whole-request rejection, not sent, …). */
export function sameOutcome(
  lines: readonly number[],
  outcome: RowOutcome['outcome'],
  detail: string,
): RowOutcome[] {
  return lines.map((line) => ({ line, outcome, detail, fields: {} }));
}
