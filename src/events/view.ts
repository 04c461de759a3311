// How an event reads to a person: one line per event for `payops listen`, one row per event for
// `payops events list`, and the JSON shape both print under --output json. Data in, text out.
import { PAYMENT_STATUS_LABELS } from '../gateway/status.js';
import { displayWidth } from '../output/width.js';
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

/**
 * listen's line for a new event: `2026-12-06 01:02:03  payment.approved  ORD-1  USD 12.50  2000 authorised  EV…`.
 * With `width` (a terminal's columns) the line is fitted so the terminal never cuts a value: first
 * the event id goes (`events list` has it), then the time keeps only `hh:mm:ss`, then the type's
 * padding goes; when even that is too wide, the line breaks between values, the rest indented.
 * Without `width` (a pipe, a file) the full line.
 */
export function eventLine(f: EventFacts, width?: number): string {
  const time = localTime(f.receivedAt);
  const clock = /^\d{4}-\d\d-\d\d (\d\d:\d\d:\d\d)$/.exec(time)?.[1] ?? time;
  const rest = [f.subject, moneyText(f), f.status];
  const ways = [
    [time, f.eventType.padEnd(17), ...rest, f.eventId],
    [time, f.eventType.padEnd(17), ...rest],
    [clock, f.eventType.padEnd(17), ...rest],
    [clock, f.eventType, ...rest],
  ].map((cells) => cells.filter((c) => c !== '').map((c) => terminalLine(c)));
  const join = (cells: readonly string[]) => cells.join('  ').trimEnd();
  if (!width || width <= 0) return `${join(ways[0]!)}\n`;
  const fits = ways.find((cells) => displayWidth(join(cells)) <= width);
  if (fits) return `${join(fits)}\n`;
  // Break between values, never inside one (a value wider than the terminal is left to it).
  const lines: string[] = [];
  let cur = '';
  for (const cell of ways[3]!) {
    const next = cur === '' ? cell : `${cur}  ${cell.trimEnd()}`;
    if (cur !== '' && displayWidth(next) > width) {
      lines.push(cur);
      cur = `  ${cell}`;
    } else cur = next;
  }
  lines.push(cur);
  return `${lines.join('\n')}\n`;
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
