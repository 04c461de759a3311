// Orders made without a payment: `--seed N`, the seed CSV files and `POST /_sandbox/orders`.
import { readFileSync } from 'node:fs';
import { SANDBOX_CREDENTIALS } from './accounts.js';
import type { SandboxContext } from './context.js';
import { formatAmount, parseAmount, Rejection } from './fields.js';
import { csvCell } from './render.js';
import type { Order } from './store.js';

/** States an order can be created in directly (4100/4000 get a synthetic refund). */
export const SEEDABLE_STATES = ['1000', '2000', '2100', '3000', '4000', '4100', '5000', '6000'] as const;

export interface OrderSummary {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  payment_status: string;
}

export function summarise(ctx: SandboxContext, order: Order): OrderSummary {
  return {
    transaction_id: order.transaction_id,
    order_no: order.order_no,
    currency: order.currency,
    amount: formatAmount(order.amount, ctx.currencies.get(order.currency) ?? 2),
    payment_status: order.status,
  };
}

/** Insert an order in `state`; a 4100/4000 order gets one refund (-01) of half / all of its amount. */
export function insertOrder(
  ctx: SandboxContext,
  fields: {
    transaction_id: string;
    order_no: string;
    currency: string;
    amount: bigint;
    account_id?: string;
    notify_url?: string;
  },
  state: string,
  seq?: number,
  created = ctx.now(),
): Order {
  const order: Order = {
    transaction_id: fields.transaction_id,
    order_no: fields.order_no,
    account_id: fields.account_id ?? SANDBOX_CREDENTIALS.accountId,
    currency: fields.currency,
    amount: fields.amount,
    status: state === '4000' || state === '4100' ? '3000' : state,
    refunded: 0n,
    refunds: 0,
    created,
    ...(fields.notify_url ? { details: { notify_url: fields.notify_url } } : {}),
  };
  ctx.store.addOrder(order, seq);
  if (state === '4000' || state === '4100') {
    const refund = state === '4000' ? order.amount : order.amount / 2n;
    ctx.store.addRefund(
      order,
      {
        transaction_id: order.transaction_id,
        refund_amount: refund,
        refund_reason: 'sandbox seed',
        refund_reference: refundReference(ctx),
        refund_reference_id: `${order.transaction_id}-01`,
        date: order.created,
      },
      refund === order.amount ? '4000' : '4100',
    );
  }
  return order;
}

export function refundReference(ctx: SandboxContext): string {
  return `RF${String(1_000_000_000 + ctx.store.refunds.length + 1)}`;
}

/** A spread of readable amounts (10.00 to 1000.00 in major units), the same for the same number. */
function generatedAmount(n: number, digits: number): bigint {
  const cents = BigInt(((n * 7919) % 99_001) + 1000);
  return digits >= 2 ? cents * 10n ** BigInt(digits - 2) : cents / 10n ** BigInt(2 - digits);
}

export interface CreateOrdersRequest {
  count: number;
  state: string;
  currency: string;
  amount?: bigint;
  account_id?: string;
  /** Later changes of these orders (capture, refund, …) make events; their creation makes none. */
  notify_url?: string;
}

/** Parse and check a `POST /_sandbox/orders` body (status 400 on a bad field). */
export function parseCreateOrders(ctx: SandboxContext, body: Record<string, unknown>): CreateOrdersRequest {
  const count = body.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1_000_000) {
    throw new Rejection('E1005', 'count must be a whole number from 1 to 1000000', 400);
  }
  const state = String(body.state ?? '3000');
  if (!(SEEDABLE_STATES as readonly string[]).includes(state)) {
    throw new Rejection('E1005', `state must be one of ${SEEDABLE_STATES.join(', ')}`, 400);
  }
  const currency = body.currency ?? 'USD';
  if (typeof currency !== 'string' || !ctx.currencies.has(currency)) {
    throw new Rejection('E1005', 'currency must be an ISO 4217 code such as USD', 400);
  }
  const out: CreateOrdersRequest = { count, state, currency };
  if (body.amount !== undefined) {
    const amount =
      typeof body.amount === 'string' ? parseAmount(body.amount, ctx.currencies.get(currency)!) : undefined;
    if (amount === undefined || amount === 0n) {
      throw new Rejection('E1005', `amount must be a positive decimal string valid for ${currency}`, 400);
    }
    out.amount = amount;
  }
  if (body.account_id !== undefined) {
    if (typeof body.account_id !== 'string' || !ctx.accounts.has(body.account_id)) {
      throw new Rejection('E1005', `account_id must be one of ${[...ctx.accounts.keys()].join(', ')}`, 400);
    }
    out.account_id = body.account_id;
  }
  if (body.notify_url !== undefined) {
    if (typeof body.notify_url !== 'string' || !/^https?:\/\/./.test(body.notify_url)) {
      throw new Rejection('E1005', 'notify_url must be an http:// or https:// URL', 400);
    }
    out.notify_url = body.notify_url;
  }
  return out;
}

/** Generated orders: transaction ids T1000000001…, order numbers SBX-1000000001…. */
export function createOrders(ctx: SandboxContext, req: CreateOrdersRequest): Order[] {
  const digits = ctx.currencies.get(req.currency)!;
  const created = ctx.now();
  const orders: Order[] = [];
  for (let i = 0; i < req.count; i++) {
    const { id, seq } = ctx.store.nextTransactionId();
    let orderNo = `SBX-${id.slice(1)}`;
    while (ctx.store.byOrderNo.has(orderNo)) orderNo += 'X';
    const fields = {
      transaction_id: id,
      order_no: orderNo,
      currency: req.currency,
      amount: req.amount ?? generatedAmount(seq, digits),
      ...(req.account_id ? { account_id: req.account_id } : {}),
      ...(req.notify_url ? { notify_url: req.notify_url } : {}),
    };
    orders.push(insertOrder(ctx, fields, req.state, seq, created));
  }
  return orders;
}

const SEED_COLUMNS = ['transaction_id', 'order_no', 'currency', 'amount', 'payment_status'] as const;

/**
 * Load a seed CSV (header transaction_id,order_no,currency,amount,payment_status, any order,
 * matched case-insensitively; no quoted cells needed). Orders already present are left alone, so a
 * restarted sandbox with --data keeps their state. Returns how many were added.
 */
export function loadSeedFile(ctx: SandboxContext, file: string): number {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim().toLowerCase());
  const at = SEED_COLUMNS.map((c) => header.indexOf(c));
  const missing = SEED_COLUMNS.filter((_, i) => at[i]! < 0);
  if (missing.length > 0) throw new Error(`${file}: missing column(s) ${missing.join(', ')}`);
  let added = 0;
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    const [txn, orderNo, currency, amountText, state] = at.map((i) => cells[i] ?? '') as [
      string,
      string,
      string,
      string,
      string,
    ];
    const where = `${file}:${n + 1}`;
    const digits = ctx.currencies.get(currency);
    if (digits === undefined) throw new Error(`${where}: unknown currency "${currency}"`);
    const amount = parseAmount(amountText, digits);
    if (amount === undefined) throw new Error(`${where}: bad amount "${amountText}" for ${currency}`);
    if (!(SEEDABLE_STATES as readonly string[]).includes(state))
      throw new Error(`${where}: bad payment_status "${state}"`);
    if (!txn || !orderNo) throw new Error(`${where}: transaction_id and order_no are required`);
    if (ctx.store.byTransactionId.has(txn) || ctx.store.byOrderNo.has(orderNo)) continue;
    insertOrder(ctx, { transaction_id: txn, order_no: orderNo, currency, amount }, state);
    added++;
  }
  return added;
}

/** CSV of every order, in chunks so that a million orders do not build one giant string. */
export function* ordersCsv(ctx: SandboxContext): Generator<string> {
  yield `${SEED_COLUMNS.join(',')}\n`;
  let chunk = '';
  for (const order of ctx.store.orders) {
    const s = summarise(ctx, order);
    chunk += `${csvCell(s.transaction_id)},${csvCell(s.order_no)},${s.currency},${s.amount},${s.payment_status}\n`;
    if (chunk.length > 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}
