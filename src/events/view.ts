// How an event reads to a person: one line per event for `payops listen`, one row per event for
// `payops events list`, and the JSON shape both print under --output json. Data in, text out.
import { PAYMENT_STATUS_LABELS } from '../gateway/status.js';
import { terminalLine } from '../quote.js';
import { type EventRecord, eventOf, type GatewayEvent, subjectOf } from './journal.js';

/** The facts of an event a person scans for. */
export interface EventFacts {
  receivedAt: string;
  eventId: string;
  eventType: string;
  createdAt: string;
  /** order_no (payments) or request_id (payouts). */
  subject: string;
  amount: string;
  currency: string;
  status: string;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** The amount that matters for this event: the refund's for a refund, the payout's for a payout. */
export function factsOf(record: EventRecord, event: GatewayEvent | undefined = eventOf(record)): EventFacts {
  const data = (event?.data ?? {}) as Record<string, unknown>;
  const payout = record.eventType.startsWith('payout.');
  const amount = payout
    ? text(data.payment_amount)
    : record.eventType === 'payment.refunded' && data.refund_amount !== undefined
      ? text(data.refund_amount)
      : text(data.amount);
  const currency = payout ? text(data.payment_currency) : text(data.currency);
  const code = text(data.payment_status);
  const status = payout
    ? text(data.status)
    : code
      ? `${code} ${PAYMENT_STATUS_LABELS[code] ?? ''}`.trim()
      : '';
  return {
    receivedAt: record.receivedAt,
    eventId: record.eventId,
    eventType: record.eventType,
    createdAt: record.createdAt,
    subject: subjectOf(event),
    amount,
    currency,
    status,
  };
}

/** Local time to the second, ISO 8601 style (design §1.6). */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function moneyText(f: Pick<EventFacts, 'amount' | 'currency'>): string {
  return f.amount ? `${f.currency} ${f.amount}`.trim() : '';
}

/** listen's line for a new event: `2026-12-06 01:02:03  payment.approved  ORD-1  USD 12.50  2000 authorised  EV…`. */
export function eventLine(f: EventFacts): string {
  const cells = [
    localTime(f.receivedAt),
    f.eventType.padEnd(17),
    f.subject,
    moneyText(f),
    f.status,
    f.eventId,
  ];
  return `${terminalLine(cells.filter((c) => c !== '').join('  '))}\n`;
}

/** The JSON object listen prints per event and `events list --output json` per row. */
export function eventJson(f: EventFacts, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    received_at: f.receivedAt,
    event_id: f.eventId,
    event_type: f.eventType,
    created_at: f.createdAt,
    subject: f.subject,
    amount: f.amount,
    currency: f.currency,
    status: f.status,
    ...extra,
  };
}
