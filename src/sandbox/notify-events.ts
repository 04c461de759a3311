// The events of design.md §1.9, made where a change commits: a payment's order (created with a
// notify_url) that changes state, a payout (sent with one) that reaches a status. The body is built
// and signed once, now (its data is the order as it is at this moment), and handed to the delivery
// queue (notify-queue.ts), which sends it after the answer.
import { randomBytes } from 'node:crypto';
import type { PaymentEventType, PayoutEventType } from '../gateway/events.js';
import type { SandboxContext } from './context.js';
import type { NotifyEvent } from './notify-queue.js';
import { offsetTime } from './render.js';
import { orderRecord } from './search.js';
import type { Order } from './store.js';

export type { PaymentEventType, PayoutEventType };

/** `EV` and 24 hex digits: unique across restarts of the sandbox, as a receiver's de-duplication needs. */
function eventId(): string {
  return `EV${randomBytes(12).toString('hex').toUpperCase()}`;
}

function make(
  ctx: SandboxContext,
  type: PaymentEventType | PayoutEventType,
  url: string,
  accountId: string,
  data: Record<string, unknown>,
  refs: Record<string, string>,
): void {
  const body: Record<string, unknown> = {
    event_id: eventId(),
    event_type: type,
    created_at: offsetTime(ctx.now()),
    merchant_id: ctx.merchantId,
    account_id: accountId,
    data,
    encryption_data: '',
  };
  let text: string | undefined;
  let unsigned: Record<string, unknown> | undefined = body;
  const { signer } = ctx;
  const event: NotifyEvent = {
    event_id: body.event_id as string,
    event_type: type,
    url,
    refs,
    get body() {
      return JSON.parse(this.text) as Record<string, unknown>;
    },
    // Signed and serialised once, on first use: after the answer (a batch of 50 makes 50 events).
    // Then only the text is kept (a third of the object's memory).
    get text() {
      if (text === undefined && unsigned !== undefined) {
        unsigned.encryption_data = signer.sign(unsigned);
        text = JSON.stringify(unsigned);
        unsigned = undefined;
      }
      return text!;
    },
  };
  ctx.notify?.(event);
}

/** A payment event for `order` when it was created with a notify_url (else nothing). */
export function paymentEvent(
  ctx: SandboxContext,
  type: PaymentEventType,
  order: Order,
  refund?: { refund_reference_id: string; refund_amount: string },
): void {
  const url = order.details?.notify_url;
  if (!url || !ctx.notify) return;
  const data: Record<string, unknown> = { ...orderRecord(ctx, order), ...refund };
  const refs: Record<string, string> = { order_no: order.order_no, transaction_id: order.transaction_id };
  if (refund) refs.refund_reference_id = refund.refund_reference_id;
  make(ctx, type, url, order.account_id, data, refs);
}

/** The events of a card payment just made or just completed on the issuer, by its state. */
export function outcomeEvents(ctx: SandboxContext, order: Order): void {
  switch (order.status) {
    case '1000':
    case '2100':
      paymentEvent(ctx, 'payment.pending', order);
      return;
    case '6000':
      paymentEvent(ctx, 'payment.declined', order);
      return;
    case '2000':
      paymentEvent(ctx, 'payment.approved', order);
      return;
    case '3000':
      // Approved and captured in one step (an auto-capture account, an APM or checkout payment):
      // both events, in that order, each with the order as it is now.
      paymentEvent(ctx, 'payment.approved', order);
      paymentEvent(ctx, 'payment.captured', order);
      return;
  }
}

/** A payout event when the request carried a notify_url; `record` is the payout as answered. */
export function payoutEvent(
  ctx: SandboxContext,
  body: Record<string, unknown>,
  record: Record<string, unknown>,
): void {
  const url = body.notify_url;
  if (typeof url !== 'string' || url === '' || !ctx.notify) return;
  const status = record.status;
  const type: PayoutEventType | undefined =
    status === 'COMPLETED'
      ? 'payout.completed'
      : status === 'PENDING'
        ? 'payout.pending'
        : status === 'FAILED'
          ? 'payout.failed'
          : undefined;
  if (!type) return;
  const { encryption_data: _sig, ...data } = record;
  make(ctx, type, url, String(body.account_id), data, {
    request_id: String(record.request_id ?? body.request_id ?? ''),
    transaction_id: String(record.transaction_id ?? ''),
  });
}
