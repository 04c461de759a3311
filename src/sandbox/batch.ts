// /v1/capture, /v1/cancel, /v1/review, /v1/refund: batch envelopes, one result per order in request
// order, the state machine of design.md §1.4, a signed response. This is the hot path of every
// benchmark, so it does one pass over the orders with O(1) lookups and signs once.
import { randomUUID } from 'node:crypto';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { PAYMENT_STATUS_LABELS } from '../gateway/types.js';
import { authenticate, jsonReply, type Reply, type SandboxContext, signInPlace } from './context.js';
import { codedMessage, formatAmount, parseAmount, Rejection } from './fields.js';
import { refundReference } from './seed.js';
import type { LedgerEntry, LedgerKind, Order } from './store.js';

type Element = Record<string, unknown>;
type Result = Record<string, string>;

const KEY_FIELDS = ['transaction_id', 'order_no', 'currency', 'amount'] as const;
const ELEMENT_FIELDS: Record<BatchOperation, readonly string[]> = {
  capture: KEY_FIELDS,
  cancel: KEY_FIELDS,
  review: [...KEY_FIELDS, 'review_flag'],
  refund: [...KEY_FIELDS, 'refund_amount', 'refund_reason'],
};

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

export function handleBatch(ctx: SandboxContext, op: BatchOperation, body: Element): Reply {
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
    return envelope('1', 'OK', results);
  } catch (err) {
    if (err instanceof Rejection) return envelope('0', err.message, []);
    throw err;
  }
}

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
  if (batch.op === 'refund') result.refund_message = message;
  else result.error_message = message;
  return result;
}

function malformedAt(batch: Batch, result: Result, i: number, problem: string): Result {
  return fail(batch, result, codedMessage('E1005', `${batch.arrayName}[${i}]${problem}`));
}

/** Validate, look up and apply one order; every failure is that order's own result. */
function applyOne(batch: Batch, raw: unknown, i: number): Result {
  const { ctx, op } = batch;
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const el = (isObject ? raw : {}) as Element;
  const result = echo(op, el);
  if (!isObject) return malformedAt(batch, result, i, ' must be an object');
  for (const field of ELEMENT_FIELDS[op]) {
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
  let refundAmount = 0n;
  if (op === 'refund') {
    const r = parseAmount(el.refund_amount as string, digits);
    if (r === undefined || r === 0n) {
      return malformedAt(
        batch,
        result,
        i,
        `.refund_amount must be a positive decimal with at most ${digits} fraction digits`,
      );
    }
    refundAmount = r;
  }
  if (op === 'review' && el.review_flag !== '1' && el.review_flag !== '0') {
    return malformedAt(batch, result, i, '.review_flag must be 1 (approve) or 0 (reject)');
  }

  const order = ctx.store.byTransactionId.get(el.transaction_id as string);
  if (!order || order.order_no !== el.order_no || order.account_id !== batch.accountId) {
    return fail(batch, result, codedMessage('E2001', `${el.transaction_id} / ${el.order_no}`));
  }
  if (order.currency !== currency || order.amount !== amount) {
    const detail = `the order is ${formatAmount(order.amount, digits)} ${order.currency}`;
    return fail(batch, result, codedMessage('E2002', detail));
  }

  switch (op) {
    case 'capture':
      if (order.status !== '2000') return wrongState(batch, result, order);
      ctx.store.setStatus(order, '3000');
      ctx.store.addLedger(ledgerEntry(batch, 'capture', order, el.amount as string));
      result.capture_status = '1';
      return result;
    case 'cancel':
      if (order.status !== '2000' && order.status !== '2100') return wrongState(batch, result, order);
      ctx.store.setStatus(order, '5000');
      ctx.store.addLedger(ledgerEntry(batch, 'cancel', order, el.amount as string));
      result.cancel_status = '1';
      return result;
    case 'review': {
      if (order.status !== '2100') return wrongState(batch, result, order);
      ctx.store.setStatus(order, el.review_flag === '1' ? '2000' : '5000');
      const entry = ledgerEntry(batch, 'review', order, el.amount as string);
      entry.review_flag = el.review_flag as string;
      ctx.store.addLedger(entry);
      result.review_status = '1';
      return result;
    }
    case 'refund': {
      if (order.status !== '3000' && order.status !== '4100') return wrongState(batch, result, order);
      const balance = order.amount - order.refunded;
      if (refundAmount > balance) {
        const detail = `refundable balance is ${formatAmount(balance, digits)} ${order.currency}`;
        return fail(batch, result, codedMessage('E2004', detail));
      }
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
        refundAmount === balance ? '4000' : '4100',
      );
      const entry = ledgerEntry(batch, 'refund', order, el.amount as string);
      entry.refund_amount = el.refund_amount as string;
      entry.refund_reference_id = referenceId;
      ctx.store.addLedger(entry);
      result.refund_message = '0000:Refund accepted';
      result.refund_reference = reference;
      result.refund_reference_id = referenceId;
      result.refund_status = '1';
      return result;
    }
  }
}

function ledgerEntry(batch: Batch, kind: LedgerKind, order: Order, amount: string): LedgerEntry {
  return {
    kind,
    transaction_id: order.transaction_id,
    order_no: order.order_no,
    currency: order.currency,
    amount,
    at: batch.at,
    request_id: batch.requestId,
  };
}

/** The result element with the request's fields echoed and failure defaults, in the spec's order. */
function echo(op: BatchOperation, el: Element): Result {
  if (op === 'refund') {
    return {
      amount: text(el.amount),
      currency: text(el.currency),
      order_no: text(el.order_no),
      refund_amount: text(el.refund_amount),
      refund_reason: text(el.refund_reason),
      transaction_id: text(el.transaction_id),
      refund_message: '',
      refund_reference: '',
      refund_reference_id: '',
      refund_status: '0',
    };
  }
  const result: Result = {
    transaction_id: text(el.transaction_id),
    order_no: text(el.order_no),
    currency: text(el.currency),
    amount: text(el.amount),
  };
  if (op === 'review') result.review_flag = text(el.review_flag);
  result[ENDPOINTS[op].statusField] = '0';
  result.error_message = '';
  return result;
}
