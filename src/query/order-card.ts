// The single-order card a support agent reads while the customer waits: status with its label,
// money, when (local and ISO UTC), 3-D Secure and fraud checks, shopper, delivery, subscription,
// and the order's refunds. Sections are data (orderCardSections) so they can be tested without a TTY.

import { parseGatewayTime } from '../gateway/time.js';
import type { OrderRecord, RefundRecord } from '../gateway/types.js';
import { formatMoney, parseAmount } from '../money/amount.js';
import { type CardSection, renderCard } from '../output/card.js';
import { formatIsoUtc, formatLocal } from './dates.js';
import { moneyText, type StatusLabels, statusText, successText, yesNo } from './labels.js';

type CardRow = [label: string, value: string];

export interface OrderCardOptions {
  labels?: StatusLabels;
  /** The order's refund records; undefined when they were not asked for (no Refunds section). */
  refunds?: readonly RefundRecord[];
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** Rows with an empty value are left out: a card shows what is known. */
function rows(pairs: Array<[string, unknown]>): CardRow[] {
  return pairs.filter(([, v]) => text(v).trim() !== '').map(([k, v]) => [k, text(v)]);
}

/** `2026-11-21 10:05:00 +01:00 (2026-11-21T09:05:00Z)`, or the gateway's text when it is not a date. */
export function whenText(gatewayDate: string | undefined): string {
  const d = parseGatewayTime(gatewayDate);
  return d ? `${formatLocal(d)}  (${formatIsoUtc(d)})` : text(gatewayDate);
}

export function orderCardTitle(order: OrderRecord, labels: StatusLabels = {}): string {
  return `Order ${text(order.order_no) || '?'} · ${statusText(order.payment_status, labels)}`;
}

export function orderCardSections(order: OrderRecord, opts: OrderCardOptions = {}): CardSection[] {
  const labels = opts.labels ?? {};
  const sections: CardSection[] = [];
  sections.push({
    fields: rows([
      ['status', statusText(order.payment_status, labels)],
      ['amount', moneyText(order.amount, order.currency)],
      ['date', whenText(order.transaction_date)],
      ['order_no', order.order_no],
      ['transaction_id', order.transaction_id],
      ['reference_no', order.reference_no],
      ['website', order.website],
      ['query_result', order.query_result === '1' ? '' : successText(order.query_result)],
    ]),
  });

  const checks = Array.isArray(order.fraud_check_result) ? order.fraud_check_result : [];
  sections.push({
    heading: 'Security',
    fields: [
      ['3-D Secure', yesNo(order.is3ds)],
      ...rows([['fraud screening', order.antifraud_provider]]),
      ...(checks.length === 0
        ? ([['fraud checks', 'none reported']] as CardRow[])
        : checks.map(
            (c): CardRow => [`  ${text(c.check_items) || 'check'}`, text(c.status).toUpperCase() || '?'],
          )),
    ],
  });

  const shopper = rows([
    ['email', order.shopper_email],
    ['phone', order.shopper_phone],
  ]);
  if (shopper.length > 0) sections.push({ heading: 'Shopper', fields: shopper });

  const d = order.delivery_information ?? {};
  const name = [d.delivery_firstname, d.delivery_lastname].filter((v) => text(v) !== '').join(' ');
  const place = [d.delivery_postal_code, d.delivery_city, d.delivery_state]
    .filter((v) => text(v) !== '')
    .join(' ');
  const delivery = rows([
    ['name', name],
    ['address', d.delivery_address],
    ['city', place],
    ['country', d.delivery_country],
  ]);
  if (delivery.length > 0) sections.push({ heading: 'Delivery', fields: delivery });

  const s = order.subscription_result ?? {};
  const subscription = rows([
    ['contract', s.contract_name],
    ['recurring_id', s.recurring_id],
    [
      'status',
      s.recurring_status === undefined || s.recurring_status === '' ? '' : successText(s.recurring_status),
    ],
    ['period', s.recurring_deduction_period],
    // A gateway time (YYYYMMDDhhmmss, UTC): shown as every date is, local and ISO 8601 (§1.6).
    ['next deduction', s.recurring_deduction_time ? whenText(s.recurring_deduction_time) : ''],
  ]);
  if (subscription.length > 0) sections.push({ heading: 'Subscription', fields: subscription });

  if (opts.refunds !== undefined) {
    sections.push(
      opts.refunds.length === 0
        ? { heading: 'Refunds: none', fields: [] }
        : {
            heading: `Refunds (${opts.refunds.length})`,
            fields: [
              ...opts.refunds.map((r): CardRow => [r.refund_reference_id || '?', refundLine(r)]),
              ...refundTotals(order, opts.refunds),
            ],
          },
    );
  }
  return sections;
}

/** The whole card as text (colour only when asked: a TTY without NO_COLOR). */
export function renderOrderCard(
  order: OrderRecord,
  opts: OrderCardOptions & { color: boolean; width?: number },
): string {
  return renderCard(orderCardTitle(order, opts.labels), orderCardSections(order, opts), {
    color: opts.color,
    ...(opts.width === undefined ? {} : { width: opts.width }),
  });
}

/**
 * `refunded` (the refunds that succeeded) and `refundable` (the order's amount less them), in
 * bigint minor units. Left out when an amount does not parse or a refund is in another currency:
 * a total is never guessed.
 */
export function refundTotals(order: OrderRecord, refunds: readonly RefundRecord[]): CardRow[] {
  const currency = order.currency;
  const amount = parseAmount(text(order.amount), text(currency));
  if (!amount.ok) return [];
  let refunded = 0n;
  for (const r of refunds) {
    if (r.refund_status !== '1') continue;
    const minor = parseAmount(text(r.refund_amount), text(r.currency));
    if (!minor.ok || r.currency !== currency) return [];
    refunded += minor.minor;
  }
  const left = amount.minor > refunded ? amount.minor - refunded : 0n;
  return [
    ['refunded', formatMoney(refunded, currency)],
    ['refundable', formatMoney(left, currency)],
  ];
}

function refundLine(r: RefundRecord): string {
  const d = parseGatewayTime(r.refund_date);
  return [
    moneyText(r.refund_amount, r.currency),
    successText(r.refund_status),
    d ? formatLocal(d) : text(r.refund_date),
    text(r.refund_reason) === '' ? '' : `“${text(r.refund_reason)}”`,
    processedText(r),
  ]
    .filter((v) => v !== '')
    .join('  ');
}

/** When the refund settled, if that is known and not the moment it was made. */
function processedText(r: RefundRecord): string {
  if (text(r.refund_processing_date) === '' || r.refund_processing_date === r.refund_date) return '';
  const d = parseGatewayTime(r.refund_processing_date);
  return `processed ${d ? formatLocal(d) : r.refund_processing_date}`;
}
