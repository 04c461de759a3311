// /v1/capture, /v1/cancel, /v1/review, /v1/refund: batch envelopes, one result per order in request
// order, the state machine of design.md §1.4, a signed response. This is the hot path of every
// benchmark, so it does one pass over the orders with O(1) lookups and signs once.
// The element and result fields and the state machine are the gateway's batch rules
// (gateway/batch-rules.ts), the same table the CLI reads; what each operation does beyond them is
// its handler below.
import { randomUUID } from 'node:crypto';
import { allowedFrom, BATCH_RULES, nextStatus } from '../gateway/batch-rules.js';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { PAYMENT_STATUS_LABELS } from '../gateway/status.js';
import { authenticate, jsonReply, type Reply, type SandboxContext, signInPlace } from './context.js';
import { codedMessage, formatAmount, parseAmount, Rejection } from './fields.js';
import { type PaymentEventType, paymentEvent } from './notify-events.js';
import { refundReference } from './seed.js';
import type { LedgerEntry, Order } from './store.js';

type Element = Record<string, unknown>;
type Result = Record<string, string>;

function text(value: unknown): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
}

function stateText(status: string): string {
  return `order is ${status} (${PAYMENT_STATUS_LABELS[status] ?? 'unknown'})`;
}

/** The envelope of a batch that went through: `1` / `OK`, or what the status_zero fault says. */
export interface BatchAnswer {
  readonly returnStatus: string;
  readonly returnMessage: string;
}
const OK_ANSWER: BatchAnswer = { returnStatus: '1', returnMessage: 'OK' };

export function handleBatch(
  ctx: SandboxContext,
  op: BatchOperation,
  body: Element,
  answer: BatchAnswer = OK_ANSWER,
): Reply {
  const endpoint = ENDPOINTS[op];
  const arrayName = endpoint.batchArray;
  const envelope = (status: string, message: string, results: Result[]): Reply =>
    jsonReply(
      signInPlace(ctx, {
        merchant_id: text(body.merchant_id),
        account_id: text(body.account_id),
        return_status: status,
        return_message: message,
        encryption_data: '',
        [arrayName]: results,
      }),
    );
  try {
    authenticate(ctx, body);
    for (const field of Object.keys(body)) {
      if (field !== arrayName && !ENVELOPE_FIELDS.includes(field))
        throw new Rejection('E1005', `${field} is not a field of this request`);
    }
    const elements = body[arrayName];
    if (!Array.isArray(elements) || elements.length === 0) {
      throw new Rejection('E1005', `${arrayName} must be a non-empty array`);
    }
    if (elements.length > endpoint.limit) {
      throw new Rejection('E1004', `${elements.length} orders, at most ${endpoint.limit} per request`);
    }
    const now = ctx.now();
    const batch: Batch = {
      ctx,
      op,
      arrayName,
      accountId: body.account_id as string,
      requestId: randomUUID(),
      at: new Date(now).toISOString(),
      atMs: now,
    };
    const results = new Array<Result>(elements.length);
    for (let i = 0; i < elements.length; i++) results[i] = applyOne(batch, elements[i], i);
    return envelope(answer.returnStatus, answer.returnMessage, results);
  } catch (err) {
    if (err instanceof Rejection) return envelope('0', err.message, []);
    throw err;
  }
}

/** The batch envelope besides its array (gateway-api.md, Batch order records). */
const ENVELOPE_FIELDS: readonly string[] = ['merchant_id', 'account_id', 'encryption_data'];

/** What every order of one request shares. */
interface Batch {
  readonly ctx: SandboxContext;
  readonly op: BatchOperation;
  readonly arrayName: string;
  readonly accountId: string;
  /** Groups this request's ledger entries. */
  readonly requestId: string;
  readonly at: string;
  readonly atMs: number;
}

/** E2003: the order's state does not allow the operation. */
function wrongState(batch: Batch, result: Result, order: Order): Result {
  return fail(batch, result, codedMessage('E2003', stateText(order.status)));
}

function fail(batch: Batch, result: Result, message: string): Result {
  result[BATCH_RULES[batch.op].messageField] = message;
  return result;
}

function succeed(batch: Batch, result: Result): Result {
  result[ENDPOINTS[batch.op].statusField] = '1';
  return result;
}

function malformedAt(batch: Batch, result: Result, i: number, problem: string): Result {
  return fail(batch, result, codedMessage('E1005', `${batch.arrayName}[${i}]${problem}`));
}

/** What one operation does beyond the common checks and the state rule of the table. */
interface Handler {
  /** The element field with the amount to move when it is not the order's amount: a positive amount. */
  readonly movesField?: string;
  /** Checks of the operation's own element fields: the E1005 detail (after `[i]`), or undefined. */
  readonly check?: (el: Element) => string | undefined;
  /**
   * Apply to an order the table allows the operation on; `moving` is the amount moved, in minor
   * units. Moves the order to the table's next state and fills in the result.
   */
  readonly apply: (
    batch: Batch,
    order: Order,
    el: Element,
    result: Result,
    moving: bigint,
    digits: number,
  ) => Result;
}

/** A change of state and a ledger entry (with the element's `ledgerFields`), nothing more. */
function stateChange(ledgerFields: ReadonlyArray<'review_flag'> = []): Handler['apply'] {
  return (batch, order, el, result) => {
    const to = nextStatus(batch.op, order.status, el);
    if (to === undefined) return wrongState(batch, result, order);
    batch.ctx.store.setStatus(order, to);
    const entry = ledgerEntry(batch, order, el.amount as string);
    for (const f of ledgerFields) entry[f] = el[f] as string;
    batch.ctx.store.addLedger(entry);
    paymentEvent(batch.ctx, eventOf(batch.op, el), order);
    return succeed(batch, result);
  };
}

/** design.md §1.9: a review approved is the payment approved; rejected, it is cancelled. */
function eventOf(op: BatchOperation, el: Element): PaymentEventType {
  if (op === 'capture') return 'payment.captured';
  if (op === 'review' && el.review_flag === '1') return 'payment.approved';
  return 'payment.cancelled';
}

const HANDLERS: Readonly<Record<BatchOperation, Handler>> = {
  capture: { apply: stateChange() },
  cancel: { apply: stateChange() },
  review: {
    check: (el) =>
      el.review_flag === '1' || el.review_flag === '0'
        ? undefined
        : '.review_flag must be 1 (approve) or 0 (reject)',
    apply: stateChange(['review_flag']),
  },
  refund: { movesField: 'refund_amount', apply: applyRefund },
};

function applyRefund(
  batch: Batch,
  order: Order,
  el: Element,
  result: Result,
  refundAmount: bigint,
  digits: number,
): Result {
  const { ctx } = batch;
  const balance = order.amount - order.refunded;
  if (refundAmount > balance) {
    const detail = `refundable balance is ${formatAmount(balance, digits)} ${order.currency}`;
    return fail(batch, result, codedMessage('E2004', detail));
  }
  const to = nextStatus(batch.op, order.status, el, refundAmount < balance);
  if (to === undefined) return wrongState(batch, result, order);
  const n = order.refunds + 1;
  const referenceId = `${order.transaction_id}-${n < 10 ? '0' : ''}${n}`;
  const reference = refundReference(ctx);
  ctx.store.addRefund(
    order,
    {
      transaction_id: order.transaction_id,
      refund_amount: refundAmount,
      refund_reason: el.refund_reason as string,
      refund_reference: reference,
      refund_reference_id: referenceId,
      date: batch.atMs,
    },
    to,
  );
  const entry = ledgerEntry(batch, order, el.amount as string);
  entry.refund_amount = el.refund_amount as string;
  entry.refund_reference_id = referenceId;
  ctx.store.addLedger(entry);
  paymentEvent(ctx, 'payment.refunded', order, {
    refund_reference_id: referenceId,
    refund_amount: formatAmount(refundAmount, digits),
  });
  result.refund_message = '0000:Refund accepted';
  result.refund_reference = reference;
  result.refund_reference_id = referenceId;
  return succeed(batch, result);
}

/** Validate, look up and apply one order; every failure is that order's own result. */
function applyOne(batch: Batch, raw: unknown, i: number): Result {
  const { ctx, op } = batch;
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const el = (isObject ? raw : {}) as Element;
  const result = echo(op, el);
  if (!isObject) return malformedAt(batch, result, i, ' must be an object');
  const fields = BATCH_RULES[op].elementFields;
  for (const field in el) {
    if (!fields.includes(field))
      return malformedAt(batch, result, i, `.${field} is not a field of this request`);
  }
  for (const field of fields) {
    const v = el[field];
    if (typeof v !== 'string' || v === '') {
      const why = v === undefined || v === '' ? 'is required' : 'must be a string';
      return malformedAt(batch, result, i, `.${field} ${why}`);
    }
  }
  const currency = el.currency as string;
  const digits = ctx.currencies.get(currency);
  if (digits === undefined)
    return malformedAt(batch, result, i, '.currency must be an ISO 4217 currency code');
  const amount = parseAmount(el.amount as string, digits);
  if (amount === undefined) {
    return malformedAt(batch, result, i, `.amount must be a decimal with at most ${digits} fraction digits`);
  }
  const handler = HANDLERS[op];
  let moving = amount;
  if (handler.movesField !== undefined) {
    const m = parseAmount(el[handler.movesField] as string, digits);
    if (m === undefined || m === 0n) {
      return malformedAt(
        batch,
        result,
        i,
        `.${handler.movesField} must be a positive decimal with at most ${digits} fraction digits`,
      );
    }
    moving = m;
  }
  const problem = handler.check?.(el);
  if (problem !== undefined) return malformedAt(batch, result, i, problem);

  const order = ctx.store.byTransactionId.get(el.transaction_id as string);
  if (!order || order.order_no !== el.order_no || order.account_id !== batch.accountId) {
    return fail(batch, result, codedMessage('E2001', `${el.transaction_id} / ${el.order_no}`));
  }
  if (order.currency !== currency || order.amount !== amount) {
    const detail = `the order is ${formatAmount(order.amount, ctx.currencies.get(order.currency) ?? digits)} ${order.currency}`;
    return fail(batch, result, codedMessage('E2002', detail));
  }
  if (!(allowedFrom(op) as readonly string[]).includes(order.status)) return wrongState(batch, result, order);
  return handler.apply(batch, order, el, result, moving, digits);
}

function ledgerEntry(batch: Batch, order: Order, amount: string): LedgerEntry {
  return {
    kind: batch.op,
    transaction_id: order.transaction_id,
    order_no: order.order_no,
    currency: order.currency,
    amount,
    at: batch.at,
    request_id: batch.requestId,
  };
}

/**
 * An operation's result element before it is applied: every result field in the spec's order,
 * the request's fields echoed, the status '0' and the rest empty (the failure defaults).
 */
interface ResultShape {
  readonly template: Result;
  readonly echoed: readonly string[];
}
const shapes = new Map<BatchOperation, ResultShape>();

function resultShape(op: BatchOperation): ResultShape {
  let shape = shapes.get(op);
  if (shape === undefined) {
    const { elementFields, resultFields } = BATCH_RULES[op];
    const statusField = ENDPOINTS[op].statusField;
    const template: Result = {};
    for (const f of resultFields) template[f] = f === statusField ? '0' : '';
    shape = { template, echoed: resultFields.filter((f) => elementFields.includes(f)) };
    shapes.set(op, shape);
  }
  return shape;
}

/** The result element with the request's fields echoed and failure defaults, in the spec's order. */
function echo(op: BatchOperation, el: Element): Result {
  const { template, echoed } = resultShape(op);
  // A copy of a template keeps one object shape per operation, and the field order, whatever
  // order the fields are then filled in.
  const result: Result = { ...template };
  for (let i = 0; i < echoed.length; i++) result[echoed[i]!] = text(el[echoed[i]!]);
  return result;
}
