// /v1/capture, /v1/cancel, /v1/review, /v1/refund: batch envelopes, one result per order in request
// order, the state machine of design.md §1.4, a signed response. This is the hot path of every
// benchmark, so it does one pass over the orders with O(1) lookups and signs once.
import { randomUUID } from 'node:crypto';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { PAYMENT_STATUS_LABELS } from '../gateway/types.js';
import { authenticate, jsonReply, type Reply, type SandboxContext, signInPlace } from './context.js';
import { codedMessage, formatAmount, parseAmount, Rejection } from './fields.js';
import { refundReference } from './seed.js';
import type { Order } from './store.js';

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
    const requestId = randomUUID();
    const at = new Date(ctx.now()).toISOString();
    const results = new Array<Result>(elements.length);
    for (let i = 0; i < elements.length; i++) {
      results[i] = applyOne(
        ctx,
        op,
        elements[i],
        `${arrayName}[${i}]`,
        body.account_id as string,
        requestId,
        at,
      );
    }
    return envelope('1', 'OK', results);
  } catch (err) {
    if (err instanceof Rejection) return envelope('0', err.message, []);
    throw err;
  }
}

/** Validate, look up and apply one order; every failure is that order's own result. */
function applyOne(
  ctx: SandboxContext,
  op: BatchOperation,
  raw: unknown,
  where: string,
  accountId: string,
  requestId: string,
  at: string,
): Result {
  const el: Element = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Element) : {};
  const result = echo(op, el);
  const fail = (message: string): Result => {
    if (op === 'refund') result.refund_message = message;
    else result.error_message = message;
    return result;
  };
  if (el !== raw) return fail(codedMessage('E1005', `${where} must be an object`));
  for (const field of ELEMENT_FIELDS[op]) {
    const v = el[field];
    if (typeof v !== 'string' || v === '') {
      return fail(
        codedMessage(
          'E1005',
          `${where}.${field} ${v === undefined || v === '' ? 'is required' : 'must be a string'}`,
        ),
      );
    }
  }
  const currency = el.currency as string;
  const digits = ctx.currencies.get(currency);
  if (digits === undefined)
    return fail(codedMessage('E1005', `${where}.currency must be an ISO 4217 currency code`));
  const amount = parseAmount(el.amount as string, digits);
  if (amount === undefined) {
    return fail(
      codedMessage('E1005', `${where}.amount must be a decimal with at most ${digits} fraction digits`),
    );
  }
  let refundAmount = 0n;
  if (op === 'refund') {
    const r = parseAmount(el.refund_amount as string, digits);
    if (r === undefined || r === 0n) {
      return fail(
        codedMessage(
          'E1005',
          `${where}.refund_amount must be a positive decimal with at most ${digits} fraction digits`,
        ),
      );
    }
    refundAmount = r;
  }
  if (op === 'review' && el.review_flag !== '1' && el.review_flag !== '0') {
    return fail(codedMessage('E1005', `${where}.review_flag must be 1 (approve) or 0 (reject)`));
  }

  const order = ctx.store.byTransactionId.get(el.transaction_id as string);
  if (!order || order.order_no !== el.order_no || order.account_id !== accountId) {
    return fail(codedMessage('E2001', `${el.transaction_id} / ${el.order_no}`));
  }
  if (order.currency !== currency || order.amount !== amount) {
    return fail(
      codedMessage('E2002', `the order is ${formatAmount(order.amount, digits)} ${order.currency}`),
    );
  }

  const ledger = (kind: 'capture' | 'cancel' | 'review' | 'refund', extra = {}) =>
    ctx.store.addLedger({
      kind,
      transaction_id: order.transaction_id,
      order_no: order.order_no,
      currency: order.currency,
      amount: el.amount as string,
      at,
      request_id: requestId,
      ...extra,
    });

  switch (op) {
    case 'capture':
      if (order.status !== '2000') return fail(codedMessage('E2003', stateText(order.status)));
      ctx.store.setStatus(order, '3000');
      ledger('capture');
      return succeed(result, 'capture_status');
    case 'cancel':
      if (order.status !== '2000' && order.status !== '2100')
        return fail(codedMessage('E2003', stateText(order.status)));
      ctx.store.setStatus(order, '5000');
      ledger('cancel');
      return succeed(result, 'cancel_status');
    case 'review':
      if (order.status !== '2100') return fail(codedMessage('E2003', stateText(order.status)));
      ctx.store.setStatus(order, el.review_flag === '1' ? '2000' : '5000');
      ledger('review', { review_flag: el.review_flag });
      return succeed(result, 'review_status');
    case 'refund':
      return refund(ctx, order, refundAmount, el, result, digits, at, ledger, fail);
  }
}

function refund(
  ctx: SandboxContext,
  order: Order,
  amount: bigint,
  el: Element,
  result: Result,
  digits: number,
  at: string,
  ledger: (kind: 'refund', extra: Record<string, string>) => void,
  fail: (message: string) => Result,
): Result {
  if (order.status !== '3000' && order.status !== '4100')
    return fail(codedMessage('E2003', stateText(order.status)));
  const balance = order.amount - order.refunded;
  if (amount > balance) {
    return fail(
      codedMessage('E2004', `refundable balance is ${formatAmount(balance, digits)} ${order.currency}`),
    );
  }
  const referenceId = `${order.transaction_id}-${String(order.refunds + 1).padStart(2, '0')}`;
  const reference = refundReference(ctx);
  ctx.store.addRefund(
    order,
    {
      transaction_id: order.transaction_id,
      refund_amount: amount,
      refund_reason: el.refund_reason as string,
      refund_reference: reference,
      refund_reference_id: referenceId,
      date: Date.parse(at),
    },
    amount === balance ? '4000' : '4100',
  );
  ledger('refund', { refund_amount: el.refund_amount as string, refund_reference_id: referenceId });
  result.refund_message = '0000:Refund accepted';
  result.refund_reference = reference;
  result.refund_reference_id = referenceId;
  result.refund_status = '1';
  return result;
}

function succeed(result: Result, statusField: string): Result {
  result[statusField] = '1';
  return result;
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
