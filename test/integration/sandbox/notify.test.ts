// Notifications (design.md §1.9): every event type reaches a receiver on loopback, signed, with the
// order as the order query shows it (or the payout record); only committed changes make events;
// GET /_sandbox/deliveries and /_sandbox/events show every attempt and event.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_AUTO_CAPTURE_ACCOUNT, type SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, parseRespon, signed, signer, withSandbox } from './helpers.js';
import { Receiver } from './notify-receiver.js';

let sandbox: SandboxHandle;
let client: Client;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start();
  ({ sandbox, client } = await withSandbox({ notify: { retriesMs: [20, 40] } }));
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});
afterEach(async () => {
  await client.admin('POST', 'reset');
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

let n = 0;
const nextOrderNo = () => `NTF-${Date.now()}-${++n}`;
const nextYear = String(new Date().getUTCFullYear() + 2);
const EVENT_KEYS = [
  'account_id',
  'created_at',
  'data',
  'encryption_data',
  'event_id',
  'event_type',
  'merchant_id',
];

async function card(pan: string, extra: Json = {}, notify = true) {
  const body = signed({
    order_no: nextOrderNo(),
    currency: 'USD',
    amount: '25.00',
    card: pan,
    expiration_month: '12',
    expiration_year: nextYear,
    security_code: '123',
    ...(notify ? { notify_url: receiver.url } : {}),
    ...extra,
  });
  const xml = parseRespon((await client.post('/v1/authorise', body)).text);
  return { order_no: body.order_no as string, transaction_id: xml.transaction_id as string, xml };
}

function order(o: { order_no: string; transaction_id: string }, extra: Json = {}): Json {
  return {
    transaction_id: o.transaction_id,
    order_no: o.order_no,
    currency: 'USD',
    amount: '25.00',
    ...extra,
  };
}

async function queried(txn: string): Promise<Json> {
  const q = await client.search('/v1/retrievalTrans', { transaction_id: txn });
  return (q.json.orders_list as Json[])[0]!;
}

/** The events the receiver got for one order, by type, once `types` have all arrived. */
async function eventsFor(orderNo: string, types: string[]): Promise<Json[]> {
  const mine = () =>
    receiver.received.map((r) => r.body).filter((b) => (b.data as Json).order_no === orderNo);
  await receiver.until(
    () => types.every((t) => mine().some((b) => b.event_type === t)),
    `${types.join(', ')} for ${orderNo}`,
  );
  return mine();
}

function expectWellFormed(event: Json): void {
  expect(Object.keys(event).sort()).toEqual(EVENT_KEYS);
  expect(event.event_id).toMatch(/^EV[0-9A-F]{24}$/);
  expect(event.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/);
  expect(event.merchant_id).toBe('800001');
  expect(signer.verify(event, event.encryption_data as string)).toBe(true);
}

describe('payment events', () => {
  it('a card approved, declined, held for 3-D Secure or review: one event each, signed, data as the order query shows it', async () => {
    const approved = await card('4242424242424242');
    const declined = await card('4000000000000002');
    const challenge = await card('4000000000003220');
    const review = await card('4000000000009235');
    const [a] = await eventsFor(approved.order_no, ['payment.approved']);
    const [d] = await eventsFor(declined.order_no, ['payment.declined']);
    const [c] = await eventsFor(challenge.order_no, ['payment.pending']);
    const [r] = await eventsFor(review.order_no, ['payment.pending']);
    for (const [event, o, status] of [
      [a, approved, '2000'],
      [d, declined, '6000'],
      [c, challenge, '1000'],
      [r, review, '2100'],
    ] as const) {
      expectWellFormed(event!);
      expect(event!.account_id).toBe('800001001');
      expect((event!.data as Json).payment_status).toBe(status);
      expect(event!.data).toEqual(await queried(o.transaction_id));
    }
    const received = receiver.received.find((x) => x.body.event_id === a!.event_id)!;
    expect(received.contentType).toBe('application/json');
    expect(received.path).toBe('/hook');
    const ids = receiver.received.map((x) => x.body.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('3-D Secure completed on the issuer page: payment.approved then (failed) payment.declined', async () => {
    const ok = await card('4000000000003220');
    const bad = await card('4000000000003220');
    await eventsFor(bad.order_no, ['payment.pending']);
    expect(
      (await fetch(`${sandbox.url}/_sandbox/issuer/${ok.transaction_id}/complete`, { method: 'POST' }))
        .status,
    ).toBe(200);
    expect(
      (await fetch(`${sandbox.url}/_sandbox/issuer/${bad.transaction_id}/fail`, { method: 'POST' })).status,
    ).toBe(200);
    const okEvents = await eventsFor(ok.order_no, ['payment.pending', 'payment.approved']);
    const approved = okEvents.find((e) => e.event_type === 'payment.approved')!;
    expect((approved.data as Json).payment_status).toBe('2000');
    expect((approved.data as Json).is3ds).toBe('1');
    const badEvents = await eventsFor(bad.order_no, ['payment.declined']);
    expect(badEvents.map((e) => e.event_type)).toEqual(['payment.pending', 'payment.declined']);
  });

  it('capture, cancel, review (approve, reject) and refunds (partial, full): their events with the order as it became', async () => {
    const toCapture = await card('4242424242424242');
    const toCancel = await card('4242424242424242');
    const toApprove = await card('4000000000009235');
    const toReject = await card('4000000000009235');
    await client.batch('/v1/capture', 'capture_orders', [order(toCapture)]);
    await client.batch('/v1/cancel', 'cancel_orders', [order(toCancel)]);
    await client.batch('/v1/review', 'review_orders', [
      order(toApprove, { review_flag: '1' }),
      order(toReject, { review_flag: '0' }),
    ]);
    const refund = (amount: string) =>
      client.batch('/v1/refund', 'refund_orders', [
        order(toCapture, { refund_amount: amount, refund_reason: 'customer' }),
      ]);
    await refund('10.00');
    await refund('15.00');
    const captured = await eventsFor(toCapture.order_no, ['payment.captured']);
    expect(captured.find((e) => e.event_type === 'payment.captured')!.data).toMatchObject({
      payment_status: '3000',
    });
    const cancelled = await eventsFor(toCancel.order_no, ['payment.cancelled']);
    expect(cancelled.find((e) => e.event_type === 'payment.cancelled')!.data).toMatchObject({
      payment_status: '5000',
    });
    const approved = await eventsFor(toApprove.order_no, ['payment.approved']);
    expect(approved.find((e) => e.event_type === 'payment.approved')!.data).toMatchObject({
      payment_status: '2000',
    });
    const rejected = await eventsFor(toReject.order_no, ['payment.cancelled']);
    expect(rejected.find((e) => e.event_type === 'payment.cancelled')!.data).toMatchObject({
      payment_status: '5000',
    });
    await receiver.until(
      (r) => r.filter((x) => x.body.event_type === 'payment.refunded').length === 2,
      'two payment.refunded',
    );
    const refunds = receiver.of('payment.refunded').map((e) => e.data as Json);
    refunds.sort((x, y) => String(x.refund_reference_id).localeCompare(String(y.refund_reference_id)));
    expect(refunds.map((d) => [d.refund_reference_id, d.refund_amount, d.payment_status])).toEqual([
      [`${toCapture.transaction_id}-01`, '10.00', '4100'],
      [`${toCapture.transaction_id}-02`, '15.00', '4000'],
    ]);
    for (const r of receiver.received) expectWellFormed(r.body);
  });

  it('an auto-capture account: payment.approved then payment.captured', async () => {
    const o = await card('4242424242424242', { account_id: SANDBOX_AUTO_CAPTURE_ACCOUNT });
    const events = await eventsFor(o.order_no, ['payment.approved', 'payment.captured']);
    expect(events.map((e) => (e.data as Json).payment_status)).toEqual(['3000', '3000']);
    expect(events.every((e) => e.account_id === SANDBOX_AUTO_CAPTURE_ACCOUNT)).toBe(true);
  });

  it('APM and checkout: payment.pending at creation, approved and captured (or declined) when the shopper completes', async () => {
    const apm = signed({
      order_no: nextOrderNo(),
      currency: 'BRL',
      amount: '150.00',
      payment_method: 'PIX',
      notify_url: receiver.url,
    });
    const issuer = parseRespon((await client.post('/v1/authorise', apm)).text).issuer_url as string;
    const checkout = signed({
      order_no: nextOrderNo(),
      currency: 'EUR',
      amount: '42.00',
      notify_url: receiver.url,
    });
    expect((await client.post('/v1/checkout', checkout)).status).toBe(200);
    await eventsFor(apm.order_no as string, ['payment.pending']);
    const pending = await eventsFor(checkout.order_no as string, ['payment.pending']);
    const checkoutTxn = (pending[0]!.data as Json).transaction_id as string;
    await fetch(`${issuer}/complete`, { method: 'POST' });
    await fetch(`${sandbox.url}/_sandbox/issuer/${checkoutTxn}/fail`, { method: 'POST' });
    const apmEvents = await eventsFor(apm.order_no as string, ['payment.approved', 'payment.captured']);
    expect(apmEvents.map((e) => [e.event_type, (e.data as Json).payment_status])).toEqual([
      ['payment.pending', '1000'],
      ['payment.approved', '3000'],
      ['payment.captured', '3000'],
    ]);
    const checkoutEvents = await eventsFor(checkout.order_no as string, ['payment.declined']);
    expect(checkoutEvents.map((e) => e.event_type)).toEqual(['payment.pending', 'payment.declined']);
  });

  it('makes none without a notify_url, for a refused request, or for a fault that drops before the commit; drop_after_commit makes one', async () => {
    const quiet = await card('4242424242424242', {}, false);
    const o = await card('4242424242424242');
    await eventsFor(o.order_no, ['payment.approved']);
    // Refused: cancel of a declined order; capture of an unknown one.
    const declined = await card('4000000000000002');
    await eventsFor(declined.order_no, ['payment.declined']);
    await client.batch('/v1/cancel', 'cancel_orders', [order(declined)]);
    await client.admin('POST', 'faults', { mode: 'drop_before_commit', paths: ['/v1/capture'] });
    await client.batch('/v1/capture', 'capture_orders', [order(o)]).catch(() => undefined);
    await client.admin('POST', 'faults', { mode: 'drop_after_commit', paths: ['/v1/capture'] });
    await client.batch('/v1/capture', 'capture_orders', [order(o)]).catch(() => undefined);
    await client.admin('POST', 'faults', { mode: 'none' });
    await eventsFor(o.order_no, ['payment.captured']);
    const events = (await client.admin('GET', 'events')).json as unknown as Json[];
    expect(events.map((e) => `${e.event_type} ${(e.body as { data: Json }).data.order_no}`)).toEqual([
      `payment.approved ${o.order_no}`,
      `payment.declined ${declined.order_no}`,
      `payment.captured ${o.order_no}`,
    ]);
    expect(events.some((e) => (e.body as { data: Json }).data.order_no === quiet.order_no)).toBe(false);
  });
});

describe('a late commit', () => {
  it('commit_late: the event comes when the request is applied, not when the 500 is answered', async () => {
    const o = await card('4242424242424242');
    await eventsFor(o.order_no, ['payment.approved']);
    await client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: 200, paths: ['/v1/capture'] });
    const a = await client.batch('/v1/capture', 'capture_orders', [order(o)]);
    expect(a.status).toBe(500);
    const events = async () => (await client.admin('GET', 'events')).json as unknown as Json[];
    // Answered 500; while its commit is still pending (read after the events), no event for it.
    const before = await events();
    if ((await client.admin('GET', 'health')).json.late_commits === 1)
      expect(before.map((e) => e.event_type)).toEqual(['payment.approved']);
    const [captured] = (await eventsFor(o.order_no, ['payment.captured'])).filter(
      (e) => e.event_type === 'payment.captured',
    );
    expect((captured!.data as Json).payment_status).toBe('3000');
    expect((await client.admin('GET', 'health')).json.late_commits).toBe(0);
  });
});

describe('with --data', () => {
  it("an order's notify_url survives a restart; the restored store makes no event, its next change does", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payops-notify-data-'));
    try {
      const first = await withSandbox({ dataDir: dir });
      const body = signed({
        order_no: nextOrderNo(),
        currency: 'USD',
        amount: '25.00',
        card: '4242424242424242',
        expiration_month: '12',
        expiration_year: nextYear,
        security_code: '123',
        notify_url: receiver.url,
      });
      const txn = parseRespon((await first.client.post('/v1/authorise', body)).text).transaction_id as string;
      await eventsFor(body.order_no as string, ['payment.approved']);
      await first.sandbox.close();
      const second = await withSandbox({ dataDir: dir });
      try {
        expect((await second.client.admin('GET', 'events')).json).toEqual([]);
        const o = { order_no: body.order_no as string, transaction_id: txn };
        await second.client.batch('/v1/capture', 'capture_orders', [order(o)]);
        const events = await eventsFor(o.order_no, ['payment.captured']);
        expect(events.map((e) => e.event_type)).toEqual(['payment.approved', 'payment.captured']);
        expect(new Set(events.map((e) => e.event_id)).size).toBe(2);
      } finally {
        await second.sandbox.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('orders made by the admin API with a notify_url', () => {
  it('make no event themselves; a batch of 50 captures makes 50 events, one per order', async () => {
    const orders = await client.createOrders(50, '2000', 'USD', { notify_url: receiver.url });
    const events = async () => (await client.admin('GET', 'events')).json as unknown as Json[];
    expect(await events()).toEqual([]);
    const a = await client.batch(
      '/v1/capture',
      'capture_orders',
      orders.map((o) => ({
        transaction_id: o.transaction_id,
        order_no: o.order_no,
        currency: 'USD',
        amount: o.amount,
      })),
    );
    expect((a.json.capture_orders as Json[]).map((r) => r.capture_status)).toEqual(orders.map(() => '1'));
    await receiver.count(50);
    const captured = receiver.of('payment.captured').map((e) => (e.data as Json).order_no);
    expect(new Set(captured)).toEqual(new Set(orders.map((o) => o.order_no)));
    expect((await events()).every((e) => e.event_type === 'payment.captured')).toBe(true);
    const bad = await client.admin('POST', 'orders', { count: 1, notify_url: 'ftp://x' });
    expect(bad.status).toBe(400);
  });
});

function payout(account: string): Json {
  return {
    request_id: randomUUID(),
    beneficiary: {
      entity_type: 'INDIVIDUAL',
      first_name: 'Ana',
      last_name: 'Silva',
      bank_details: { account_name: 'Ana Silva', account_number: account, bank_country_code: 'BR' },
    },
    payer: { entity_type: 'COMPANY', company_name: 'Shop Inc' },
    payment_amount: '100.00',
    payment_currency: 'USD',
    payment_method: 'LOCAL',
    notify_url: receiver.url,
  };
}

describe('payout events', () => {
  it('completed; pending then completed (…7777); pending then failed (…6666): the payout record as answered', async () => {
    const done = signed(payout('12345678'));
    const later = signed(payout('12347777'));
    const failing = signed(payout('12346666'));
    const answer = (await client.post('/v1/payout', done)).json;
    await client.post('/v1/payout', later);
    await client.post('/v1/payout', failing);
    const byRequest = (id: unknown) =>
      receiver.received.map((r) => r.body).filter((b) => (b.data as Json).request_id === id);
    await receiver.until(
      () => byRequest(later.request_id).length === 1 && byRequest(failing.request_id).length === 1,
    );
    await client.post('/v1/payout', later);
    const failed = (await client.post('/v1/payout', failing)).json;
    expect(failed.status).toBe('FAILED');
    await receiver.until(
      () => [done, later, failing].every((p, i) => byRequest(p.request_id).length === [1, 2, 2][i]),
      'the payout events',
    );
    const [completed] = byRequest(done.request_id);
    expectWellFormed(completed!);
    expect(completed!.event_type).toBe('payout.completed');
    const { encryption_data: _sig, ...record } = answer;
    expect(completed!.data).toEqual(record);
    expect(byRequest(later.request_id).map((e) => e.event_type)).toEqual([
      'payout.pending',
      'payout.completed',
    ]);
    const failEvents = byRequest(failing.request_id);
    expect(failEvents.map((e) => e.event_type)).toEqual(['payout.pending', 'payout.failed']);
    expect((failEvents[1]!.data as Json).failure_type).toBe('E4001');
    // A replayed payout (same request_id, already final) makes no new event; no money for 6666.
    await client.post('/v1/payout', done);
    const ledger = await client.ledger();
    expect(
      ledger
        .filter((l) => l.kind === 'payout')
        .map((l) => l.request_id)
        .sort(),
    ).toEqual([done.request_id, later.request_id].sort());
    const events = (await client.admin('GET', 'events')).json as unknown as Json[];
    expect(events.filter((e) => (e.body as { data: Json }).data.request_id === done.request_id)).toHaveLength(
      1,
    );
  });
});
