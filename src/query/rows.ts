// Search outcomes → output rows. JSON/CSV rows carry every field the gateway returned, plus
// `found` and `payment_status_label`; table rows carry the key columns for people.

import { parseGatewayTime } from '../gateway/time.js';
import type { FraudCheckResult, OrderRecord, RefundRecord } from '../gateway/types.js';
import { shellQuote } from '../quote.js';
import type { NotFound } from './arrange.js';
import { formatLocalShort } from './dates.js';
import { moneyText, type StatusLabels, statusLabel, statusText, successText, yesNo } from './labels.js';
import type { QueryOutcome, RefundSearchOutcome } from './search.js';

export type DataRow = Record<string, unknown>;

export interface TableData {
  head: string[];
  rows: string[][];
}

/** The record as returned, with `payment_status_label` right after `payment_status`. */
export function withStatusLabel(record: object, labels: StatusLabels): DataRow {
  const out: DataRow = {};
  const r = record as DataRow;
  const label = statusLabel(typeof r.payment_status === 'string' ? r.payment_status : undefined, labels);
  for (const [k, v] of Object.entries(r)) {
    out[k] = v;
    if (k === 'payment_status') out.payment_status_label = label;
  }
  if (!('payment_status_label' in out)) out.payment_status_label = label;
  return out;
}

function notFoundRows(notFound: readonly NotFound[]): DataRow[] {
  return notFound.map((n) => ({ found: false, [n.field]: n.value }));
}

export function orderDataRows(outcome: QueryOutcome, labels: StatusLabels): DataRow[] {
  const rows: DataRow[] = outcome.orders.map((o) => {
    const row: DataRow = { found: true, ...withStatusLabel(o, labels) };
    if (outcome.refunds) {
      row.refunds = (outcome.refunds.get(o.transaction_id) ?? []).map((r) => withStatusLabel(r, labels));
    }
    return row;
  });
  return [...rows, ...notFoundRows(outcome.notFound)];
}

export function refundDataRows(outcome: RefundSearchOutcome, labels: StatusLabels): DataRow[] {
  return [
    ...outcome.refunds.map((r) => ({ found: true, ...withStatusLabel(r, labels) })),
    ...notFoundRows(outcome.notFound),
  ];
}

/** `ACCEPT`, `REJECT (2 of 3)`, or `—` when no check ran. */
export function fraudSummary(checks: readonly FraudCheckResult[] | undefined): string {
  const list = Array.isArray(checks) ? checks : [];
  if (list.length === 0) return '—';
  const rejected = list.filter((c) => String(c.status).toUpperCase() === 'REJECT').length;
  return rejected === 0 ? 'ACCEPT' : `REJECT (${rejected} of ${list.length})`;
}

function localCell(gatewayDate: string | undefined): string {
  const d = parseGatewayTime(gatewayDate);
  return d ? formatLocalShort(d) : (gatewayDate ?? '');
}

export function orderTable(outcome: QueryOutcome, labels: StatusLabels): TableData {
  const withRefunds = outcome.refunds !== undefined;
  const head = ['order_no', 'transaction_id', 'status', 'amount', 'date (local)', '3DS', 'fraud'];
  if (withRefunds) head.push('refunds');
  const rows = outcome.orders.map((o: OrderRecord) => {
    const cells = [
      o.order_no,
      o.transaction_id,
      statusText(o.payment_status, labels),
      moneyText(o.amount, o.currency),
      localCell(o.transaction_date),
      yesNo(o.is3ds),
      fraudSummary(o.fraud_check_result),
    ];
    if (withRefunds) {
      const refunds = outcome.refunds!.get(o.transaction_id) ?? [];
      cells.push(refunds.length === 0 ? '—' : refunds.map((r) => r.refund_reference_id).join(' '));
    }
    return cells;
  });
  return { head, rows };
}

export function refundTable(outcome: RefundSearchOutcome, labels: StatusLabels): TableData {
  return {
    head: [
      'refund_reference_id',
      'order_no',
      'refunded',
      'of order',
      'refund',
      'order status',
      'date (local)',
      'reason',
    ],
    rows: outcome.refunds.map((r: RefundRecord) => [
      r.refund_reference_id,
      r.order_no,
      moneyText(r.refund_amount, r.currency),
      moneyText(r.amount, r.currency),
      successText(r.refund_status),
      statusText(r.payment_status, labels),
      localCell(r.refund_date),
      r.refund_reason ?? '',
    ]),
  };
}

/**
 * Text of the not-found list on stderr: one value a line, so it can be copied back into a file. The
 * count is said once, in the line that ends the output ("0 orders found, 1 not found"): a count
 * here as well read as two answers (issue 27). `payops`: the command's start, with the global flags
 * that chose the gateway, for the exact command that looks order numbers up as transaction ids.
 */
export function notFoundLines(
  notFound: readonly NotFound[],
  kind: 'orders' | 'refunds',
  payops = 'payops',
): string[] {
  if (notFound.length === 0) return [];
  const title = kind === 'orders' ? 'not found:' : 'without refund records:';
  const lines = [title, ...notFound.map((x) => `  ${x.field} ${x.value}`)];
  // `payops query T123` takes T123 for an order number (payops never guesses an id's kind).
  if (kind === 'orders' && notFound.every((x) => x.field === 'order_no')) {
    const ids = notFound.map((x) => shellQuote(x.value)).join(',');
    const one = notFound.length === 1;
    lines.push(
      `hint: looked up as ${one ? 'an order number' : 'order numbers'}; as ${one ? 'a transaction id' : 'transaction ids'}: ${payops} query --transaction-id ${ids}`,
    );
  }
  return lines;
}
