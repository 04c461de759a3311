// One line per request the sandbox answered, for `payops sandbox` (issue 15), like `stripe listen`:
//   03:20:01  POST /v1/refund  200 ok · 50 orders (48 ok, 2 failed) · 3 ms
// Built from the method, the path and the sandbox's own answer: never from the request's body, so a
// card number, a shopper's address or a signature sent to it can never reach the log. Error
// messages are left out too (they may quote a value sent); their code (E1005…) is enough.
import { endpointByPath } from '../gateway/endpoints.js';
import { JSON_TYPE, type Reply, XML_TYPE } from './context.js';
import type { DeliveryRecord } from './notify-queue.js';

export interface SandboxRequestEntry {
  at: Date;
  method: string;
  /** The path, without the query string. */
  path: string;
  /** What was answered; undefined when the connection was closed without an answer (a fault). */
  reply?: Reply;
  ms: number;
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * The line for one notification attempt (at: when it is logged, local time):
 *   03:20:02  notify payment.captured T1000000007 → http://127.0.0.1:4242  200 · 3 ms
 * The receiver is named by its origin alone: a notify_url's path or query may carry a token.
 */
export function deliveryLine(r: DeliveryRecord, at: Date = new Date()): string {
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  let origin = 'an invalid URL';
  try {
    origin = new URL(r.url).origin;
  } catch {}
  const about = r.transaction_id ?? r.request_id ?? '';
  const copy = r.copy > 1 ? ` (copy ${r.copy})` : '';
  const outcome =
    r.status === 'dropped'
      ? `dropped after ${r.attempt} attempt${r.attempt === 1 ? '' : 's'}${r.fault ? ' (fault)' : ''}`
      : `${r.status}${r.error ? ` ${r.error}` : ''}${r.fault ? ' (fault)' : ''}${r.attempt > 1 ? ` · attempt ${r.attempt}` : ''} · ${r.ms} ms`;
  return `${time}  notify ${r.event_type} ${about}${copy} → ${origin}  ${outcome}`;
}

/** The line for one request, in local time (hh:mm:ss). */
export function requestLine(e: SandboxRequestEntry): string {
  const time = `${two(e.at.getHours())}:${two(e.at.getMinutes())}:${two(e.at.getSeconds())}`;
  const parts = [
    `${time}  ${e.method} ${e.path}  ${e.reply ? resultText(e.path, e.reply) : 'closed without an answer'}`,
  ];
  parts.push(`${Math.round(e.ms)} ms`);
  return parts.join(' · ');
}

function resultText(path: string, reply: Reply): string {
  if (reply.contentType === XML_TYPE) return paymentText(reply);
  const body = reply.contentType === JSON_TYPE ? parse(reply.body) : undefined;
  const out = [String(reply.status)];
  if (body === undefined) return out.join(' ');
  if (typeof body.code === 'string' && /^[A-Z]\d{3,5}$/.test(body.code)) out.push(body.code);
  if (body.return_status === '1') out.push('ok');
  else if (body.return_status === '0') out.push('refused');
  const endpoint = endpointByPath(path);
  const list = endpoint?.batchArray === undefined ? undefined : body[endpoint.batchArray];
  if (!Array.isArray(list)) return out.join(' ');
  const noun = endpoint?.op === 'refundSearch' ? 'refund' : 'order';
  let text = `${out.join(' ')} · ${list.length} ${noun}${list.length === 1 ? '' : 's'}`;
  const field = endpoint?.statusField;
  if (field !== undefined && list.length > 0) {
    const ok = list.filter((o) => (o as Record<string, unknown>)?.[field] === '1').length;
    text += ` (${ok} ok, ${list.length - ok} failed)`;
  }
  return text;
}

/** A card payment's XML answer: how it ended (order_status) and result_info's code, not its text. */
const ORDER_STATUS: Readonly<Record<string, string>> = { '1': 'approved', '0': 'declined', '2': 'pending' };
function paymentText(reply: Reply): string {
  const out = [String(reply.status)];
  const status = /<order_status>(\d+)<\/order_status>/.exec(reply.body)?.[1];
  if (status !== undefined) out.push(ORDER_STATUS[status] ?? `order_status ${status}`);
  const code = /<result_info>([A-Z]\d{3,5})[:<]/.exec(reply.body)?.[1];
  if (code !== undefined) out.push(code);
  return out.join(' ');
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
