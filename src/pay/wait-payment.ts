// `pay apm|checkout|card --wait`: after the payment is created pending (payment_status 1000: the
// shopper must act on the issuer's or hosted page, or finish 3-D Secure), wait for its final state —
// by the events a running `payops listen` journaled for this order, else by asking the gateway
// (order query, the query feature's own call) with backoff — and end with that state's exit code.
// Waiting changes nothing at the gateway: stopped or out of time, the payment stays as it is.
import type { Context } from '../context.js';
import { ExitCode, exitCodeForSignal } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { OrderRecord } from '../gateway/types.js';
import { writeCsvRecords } from '../output/csv-writer.js';
import { stdoutColor } from '../output/stdout-color.js';
import { flatten } from '../query/flatten.js';
import { type StatusLabels, statusText } from '../query/labels.js';
import { renderOrderCard } from '../query/order-card.js';
import { queryOrders } from '../query/search.js';
import { outputJsonReplacer } from '../redact.js';
import { durationText } from '../wait/duration.js';
import type { EventTail, JournaledEvent } from '../wait/events-tail.js';
import { hasNotifyUrl, noEventsNote, type WaitEnd, waitForFinal } from '../wait/wait-loop.js';
import { waitLine, whileWaiting } from '../wait/wait-view.js';

/** What a payment_status means for a wait: still pending, or final with its outcome. */
export type PaymentEnd = 'approved' | 'declined' | 'cancelled' | 'refunded';

const FINAL: Readonly<Record<string, PaymentEnd>> = {
  '2000': 'approved',
  '3000': 'approved',
  // Paid and since refunded: the payment went through.
  '4000': 'refunded',
  '4100': 'refunded',
  '5000': 'cancelled',
  '6000': 'declined',
};

/** undefined while the order is pending (1000, or 2100 held for review). */
export function paymentEnd(status: string | undefined): PaymentEnd | undefined {
  return status === undefined ? undefined : FINAL[status];
}

/** As `pay card` exits: 0 the payment went through, 1 refused (declined or cancelled), 3 not settled. */
export function waitExitCode(end: PaymentEnd | undefined): number {
  if (end === undefined) return ExitCode.gateway;
  return end === 'declined' || end === 'cancelled' ? ExitCode.someFailed : ExitCode.ok;
}

export interface PaymentToWaitFor {
  order_no: string;
  /** From the gateway's answer, when it gave one: an event for another order of that number is not this one. */
  transaction_id?: string;
  /** As sent: without one the gateway sends no event for this payment, so none is waited for. */
  notify_url?: string;
}

/** The final order among these events (the newest by created_at when several), if one is there. */
export function finalFromEvents(
  payment: PaymentToWaitFor,
  events: readonly JournaledEvent[],
): OrderRecord | undefined {
  let found: { order: OrderRecord; at: string } | undefined;
  for (const ev of events) {
    if (!ev.eventType.startsWith('payment.')) continue;
    const data = ev.data as Partial<OrderRecord>;
    if (data.order_no !== payment.order_no) continue;
    if (payment.transaction_id && data.transaction_id && data.transaction_id !== payment.transaction_id)
      continue;
    if (paymentEnd(String(data.payment_status ?? '')) === undefined) continue;
    if (!found || ev.createdAt >= found.at) found = { order: data as OrderRecord, at: ev.createdAt };
  }
  return found?.order;
}

export interface WaitPaymentOptions {
  client: GatewayClient;
  waitMs: number;
  /** The events journal, opened before the payment was sent (so no event of it is missed). */
  tail: EventTail;
  labels: StatusLabels;
  /** "waiting for the shopper", "waiting for 3-D Secure". */
  what: string;
}

export async function waitForPayment(
  ctx: Context,
  payment: PaymentToWaitFor,
  opts: WaitPaymentOptions,
): Promise<number> {
  const eventsExpected = hasNotifyUrl(payment.notify_url);
  if (opts.tail.listening && !eventsExpected) ctx.log.info(noEventsNote(`order ${payment.order_no}`));
  const line = waitLine(ctx.io, ctx.globals, opts.what, opts.waitMs);
  let lastSeen: OrderRecord | undefined;
  let asked = false;
  const started = Date.now();
  let end: WaitEnd<OrderRecord>;
  try {
    end = await whileWaiting((signal) =>
      waitForFinal<OrderRecord>({
        waitMs: opts.waitMs,
        signal,
        tail: opts.tail,
        eventsExpected,
        fromEvents: (events) => finalFromEvents(payment, events),
        ask: async () => {
          asked = true;
          const outcome = await queryOrders(
            { client: opts.client, concurrency: 1, log: ctx.log, signal },
            { orderNos: [payment.order_no], transactionIds: [] },
          );
          const order = outcome.orders.find(
            (o) => !payment.transaction_id || o.transaction_id === payment.transaction_id,
          );
          if (order) lastSeen = order;
          return order && paymentEnd(order.payment_status) !== undefined ? order : undefined;
        },
        onTick: (ms) => line.tick(ms),
        onAskFailed: (err) =>
          ctx.log.verbose(
            `asking the gateway failed (${err instanceof Error ? err.message : String(err)}); still waiting`,
          ),
      }),
    );
  } finally {
    line.stop();
  }
  const waited = Date.now() - started;
  const again = `payops query --order-no ${payment.order_no}`;
  if (end.kind === 'final') {
    const order = end.value;
    const result = paymentEnd(order.payment_status)!;
    await writeFinal(ctx, order, { outcome: result, via: end.via, waited }, opts.labels);
    const by = end.via === 'event' ? 'by its event (payops listen)' : 'by the gateway';
    ctx.log.info(
      `order ${payment.order_no}: ${statusText(order.payment_status, opts.labels)}, learnt ${by} after ${durationText(waited)}`,
    );
    return waitExitCode(result);
  }
  const state = lastSeen
    ? statusText(lastSeen.payment_status, opts.labels)
    : asked
      ? 'the gateway did not show it'
      : 'pending when created';
  if (end.kind === 'stopped') {
    await writeFinal(ctx, lastSeen, { outcome: 'stopped', via: undefined, waited }, opts.labels);
    ctx.log.warn(
      `stopped waiting for order ${payment.order_no} (${state}); the payment stays as it is at the gateway — look again with: ${again}`,
    );
    return exitCodeForSignal(end.reason);
  }
  await writeFinal(ctx, lastSeen, { outcome: 'pending', via: undefined, waited }, opts.labels);
  ctx.log.warn(
    `order ${payment.order_no} is not settled after ${durationText(opts.waitMs)} (${state}); the payment stays as it is — look again with: ${again}`,
  );
  return ExitCode.gateway;
}

interface WaitFacts {
  outcome: PaymentEnd | 'pending' | 'stopped';
  via: 'event' | 'gateway' | undefined;
  waited: number;
}

/**
 * The order as the wait ended, on stdout: its card on a terminal (nothing when none was seen), one
 * JSON document ({order_no, outcome, payment_status, via, waited_seconds, order}) or one CSV row.
 */
async function writeFinal(
  ctx: Context,
  order: OrderRecord | undefined,
  facts: WaitFacts,
  labels: StatusLabels,
): Promise<void> {
  // As the payment itself is shown: a card unless --output asks for data (run-pay.ts).
  const format = ctx.globals.output ?? 'table';
  const doc = {
    outcome: facts.outcome,
    payment_status: order?.payment_status ?? null,
    status: order ? statusText(order.payment_status, labels).replace(/^\S+ /, '') : null,
    via: facts.via ?? null,
    waited_seconds: Math.round(facts.waited / 1000),
    order: order ?? null,
  };
  if (format === 'json') {
    ctx.io.stdout.write(`${JSON.stringify(doc, outputJsonReplacer, 2)}\n`);
  } else if (format === 'csv') {
    const { order: o, ...head } = doc;
    const row = { ...flatten(head), ...(o ? flatten(o, 'order') : {}) };
    await writeCsvRecords(ctx.io.stdout, Object.keys(row), [row]);
  } else if (order) {
    ctx.io.stdout.write(renderOrderCard(order, { labels, color: stdoutColor(ctx) }));
  }
}
