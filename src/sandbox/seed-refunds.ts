// `POST /_sandbox/refunds`: many refund records at chosen times, for tests of whole-range searches
// (`--all`). Captured orders are made for them, then `count` refunds of one minor unit each, spread
// evenly over `seconds` seconds from `from` (a refund time is whole milliseconds), round-robin over
// the orders: `per_order` refunds each.
import type { SandboxContext } from './context.js';
import { Rejection } from './fields.js';
import { createOrders, refundReference } from './seed.js';

export interface SeededRefund {
  transaction_id: string;
  order_no: string;
  refund_reference_id: string;
  /** ISO 8601 UTC, milliseconds. */
  refund_date: string;
}

function whole(body: Record<string, unknown>, field: string, fallback: number, max: number): number {
  const v = body[field] ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new Rejection('E1005', `${field} must be a whole number from 1 to ${max}`, 400);
  }
  return v;
}

export function seedRefunds(ctx: SandboxContext, body: Record<string, unknown>): SeededRefund[] {
  const count = whole(body, 'count', 1, 100_000);
  const seconds = whole(body, 'seconds', 1, 366 * 86_400);
  const perOrder = whole(body, 'per_order', 1, 99);
  const from = typeof body.from === 'string' ? Date.parse(body.from) : Number.NaN;
  if (!Number.isFinite(from)) {
    throw new Rejection('E1005', 'from must be an ISO 8601 time such as 2026-11-01T00:00:00Z', 400);
  }
  const orderCount = Math.ceil(count / perOrder);
  // Each order can take all its refunds: per_order minor units of refund, amount above that.
  const orders = createOrders(ctx, {
    count: orderCount,
    state: '3000',
    currency: 'USD',
    amount: BigInt(perOrder * 100 + 100),
  });
  const out: SeededRefund[] = [];
  for (let i = 0; i < count; i++) {
    const order = orders[i % orderCount]!;
    const at = from + Math.floor((i * seconds * 1000) / count);
    const n = order.refunds + 1;
    const referenceId = `${order.transaction_id}-${n < 10 ? '0' : ''}${n}`;
    ctx.store.addRefund(
      order,
      {
        transaction_id: order.transaction_id,
        refund_amount: 1n,
        refund_reason: 'sandbox seed',
        refund_reference: refundReference(ctx),
        refund_reference_id: referenceId,
        date: at,
      },
      '4100',
    );
    out.push({
      transaction_id: order.transaction_id,
      order_no: order.order_no,
      refund_reference_id: referenceId,
      refund_date: new Date(at).toISOString(),
    });
  }
  return out;
}
