// The delivery queue (design.md §1.9): retries on the (scaled-down) schedule, dropped after the last,
// a timeout, a receiver that hangs never holds up an API answer, the notify faults (fail_first,
// drop, duplicate, rate, event_types), reset, and a clean stop with requests still held.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, parseRespon, signed, waitUntil, withSandbox } from './helpers.js';
import { Receiver } from './notify-receiver.js';

const RETRIES = [30, 60];
// Long enough that a receiver slowed by a loaded machine is not taken for a dead one (a timed-out
// attempt that did arrive is delivered again); short enough for the test that waits it out.
const TIMEOUT_MS = 2_000;
let sandbox: SandboxHandle;
let client: Client;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start();
  ({ sandbox, client } = await withSandbox({ notify: { retriesMs: RETRIES, timeoutMs: TIMEOUT_MS } }));
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});
afterEach(async () => {
  await client.admin('POST', 'reset');
  receiver.received.length = 0;
  receiver.answer = () => 200;
  for (const res of receiver.held.splice(0)) res.destroy();
});

let n = 0;
const nextYear = String(new Date().getUTCFullYear() + 2);

/** An approved card payment with a notify_url: one payment.approved. */
async function pay(url = receiver.url, via = client): Promise<{ order_no: string; status: number }> {
  const body = signed({
    order_no: `DLV-${Date.now()}-${++n}`,
    currency: 'USD',
    amount: '5.00',
    card: '4242424242424242',
    expiration_month: '12',
    expiration_year: nextYear,
    security_code: '123',
    notify_url: url,
  });
  const a = await via.post('/v1/authorise', body);
  expect(parseRespon(a.text).order_status).toBe('1');
  return { order_no: body.order_no as string, status: a.status };
}

async function deliveries(): Promise<Json[]> {
  return (await client.admin('GET', 'deliveries')).json as unknown as Json[];
}

async function events(): Promise<Json[]> {
  return (await client.admin('GET', 'events')).json as unknown as Json[];
}

/** Until the event of `orderNo` is no longer pending; its deliveries then. */
async function settled(orderNo: string): Promise<Json[]> {
  await waitUntil(async () =>
    (await events()).some(
      (e) => (e.body as { data: Json }).data.order_no === orderNo && e.state !== 'pending',
    ),
  );
  return (await deliveries()).filter((d) => d.order_no === orderNo);
}

const summary = (ds: Json[]) => ds.map((d) => [d.attempt, d.status]);

describe('retries', () => {
  it('a failed attempt is tried again after each delay of the schedule; a 2xx ends it', async () => {
    receiver.answer = (r) => (r.n <= 2 ? 503 : 204);
    const { order_no } = await pay();
    const ds = await settled(order_no);
    expect(summary(ds)).toEqual([
      [1, 503],
      [2, 503],
      [3, 204],
    ]);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.text)).size).toBe(1);
    // Never sooner than the schedule says (later is allowed: the machine may be loaded).
    const at = ds.map((d) => Date.parse(d.at as string));
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(RETRIES[0]!);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(RETRIES[1]!);
    const [event] = await events();
    expect(event).toMatchObject({ state: 'delivered', attempts: 3, copies: 1, delivered: 1 });
    // Filters: one event's attempts, from the Nth on.
    const one = await client.admin('GET', `deliveries?event_id=${event!.event_id}&since=1`);
    expect(summary(one.json as unknown as Json[])).toEqual([
      [2, 503],
      [3, 204],
    ]);
    expect((await client.admin('GET', 'deliveries?order_no=nothing')).json).toEqual([]);
    expect((await client.admin('GET', 'deliveries?since=-1')).status).toBe(400);
    expect(ds[0]).toMatchObject({ event_type: 'payment.approved', url: receiver.url, copy: 1 });
    expect(ds[0]!.transaction_id).toMatch(/^T\d+$/);
  });

  it('dropped after the last retry', async () => {
    receiver.answer = () => 500;
    const { order_no } = await pay();
    expect(summary(await settled(order_no))).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [3, 'dropped'],
    ]);
    expect((await events())[0]).toMatchObject({ state: 'dropped', attempts: 3, delivered: 0 });
  });

  it('no answer within the timeout is a failed attempt; an address nobody listens on is an error', async () => {
    receiver.answer = (r) => (r.n === 1 ? 'hold' : 200);
    const { order_no } = await pay();
    expect(summary(await settled(order_no))).toEqual([
      [1, 'timeout'],
      [2, 200],
    ]);
    const closed = await Receiver.start();
    const deadUrl = closed.url;
    await closed.close();
    const dead = await pay(deadUrl);
    const ds = await settled(dead.order_no);
    expect(summary(ds)).toEqual([
      [1, 'error'],
      [2, 'error'],
      [3, 'error'],
      [3, 'dropped'],
    ]);
    expect(ds[0]!.error).toBe('ECONNREFUSED');
  });

  it('a receiver that hangs holds up no API answer, even with the queue full', async () => {
    // A minute's timeout and one delivery at a time: a delivery in the request's path would hold
    // the answer for that minute.
    const own = await withSandbox({ notify: { timeoutMs: 60_000, concurrency: 1 } });
    const hanging = await Receiver.start(() => 'hold');
    try {
      const first = await pay(hanging.url, own.client);
      expect(first.status).toBe(200);
      await hanging.count(1);
      // Answered, and the receiver still holds the delivery of that very payment.
      expect(hanging.held[0]!.destroyed).toBe(false);
      expect((hanging.received[0]!.body.data as Json).order_no).toBe(first.order_no);
      const later = [await pay(hanging.url, own.client), await pay(hanging.url, own.client)];
      expect(later.map((p) => p.status)).toEqual([200, 200]);
      const health = (await own.client.admin('GET', 'health')).json;
      expect(health.notify).toEqual({ events: 3, pending: 3, in_flight: 1 });
      expect(hanging.held[0]!.destroyed).toBe(false);
    } finally {
      await own.sandbox.close();
      await hanging.close();
    }
  });
});

describe('after the answer', () => {
  it('a delivery never overtakes its answer, even one the API delays (latency_ms)', async () => {
    const timeline: string[] = [];
    const own = await withSandbox({
      onRequest: (e) => {
        if (e.path === '/v1/authorise') timeline.push('answered');
      },
    });
    const watching = await Receiver.start(() => {
      timeline.push('delivered');
      return 200;
    });
    try {
      await own.client.admin('POST', 'faults', { latency_ms: 300, paths: ['/v1/authorise'] });
      await pay(watching.url, own.client);
      await watching.count(1);
      expect(timeline).toEqual(['answered', 'delivered']);
    } finally {
      await own.sandbox.close();
      await watching.close();
    }
  });
});

describe('notify faults', () => {
  it('fail_first fails the first attempts without sending them', async () => {
    const set = await client.admin('POST', 'notify-faults', { fail_first: 2 });
    expect(set.json).toMatchObject({ fail_first: 2, retries_ms: RETRIES, timeout_ms: TIMEOUT_MS });
    const { order_no } = await pay();
    const ds = await settled(order_no);
    expect(ds.map((d) => [d.attempt, d.status, d.fault ?? false])).toEqual([
      [1, 500, true],
      [2, 500, true],
      [3, 200, false],
    ]);
    expect(receiver.received).toHaveLength(1);
  });

  it('drop never sends; duplicate sends each event N times (each its own delivery); event_types targets', async () => {
    await client.admin('POST', 'notify-faults', { drop: true });
    const dropped = await pay();
    expect(summary((await deliveries()).filter((d) => d.order_no === dropped.order_no))).toEqual([
      [0, 'dropped'],
    ]);
    expect((await events())[0]).toMatchObject({ state: 'dropped', attempts: 0 });

    await client.admin('POST', 'notify-faults', { duplicate: 3 });
    const tripled = await pay();
    await receiver.count(3);
    const ids = receiver.received.map((r) => r.body.event_id);
    expect(new Set(ids).size).toBe(1);
    expect(receiver.received.every((r) => r.text === receiver.received[0]!.text)).toBe(true);
    const ds = await settled(tripled.order_no);
    expect(ds.map((d) => d.copy).sort()).toEqual([1, 2, 3]);

    await client.admin('POST', 'notify-faults', { drop: true, event_types: ['payment.captured'] });
    const untouched = await pay();
    expect(summary(await settled(untouched.order_no))).toEqual([[1, 200]]);
    const all = await events();
    expect(all.map((e) => e.state)).toEqual(['dropped', 'delivered', 'delivered']);
    expect(receiver.received).toHaveLength(4);
  });

  it('rate hits a share of events (seeded); latency_ms delays attempts; bad settings are refused', async () => {
    await client.admin('POST', 'notify-faults', { drop: true, rate: 0.5, seed: 7 });
    const orders = [];
    for (let i = 0; i < 10; i++) orders.push(await pay());
    const states = (await events()).map((e) => e.state);
    expect(states.filter((s) => s === 'dropped').length).toBeGreaterThan(0);
    expect(states.filter((s) => s === 'dropped').length).toBeLessThan(10);

    await client.admin('POST', 'notify-faults', { latency_ms: 50 });
    const slow = await pay();
    const [d] = await settled(slow.order_no);
    expect(d!.status).toBe(200);

    for (const bad of [
      { fail_first: -1 },
      { rate: 2 },
      { drop: 'yes' },
      { duplicate: 0 },
      { paths: ['notify'] },
      { event_types: ['payment.captrued'] },
    ]) {
      const a = await client.admin('POST', 'notify-faults', bad);
      expect(a.status).toBe(400);
      expect(a.json.code).toBe('E1005');
    }
    expect((await client.admin('GET', 'notify-faults')).json).toMatchObject({ latency_ms: 50, drop: false });
    // The API's faults refuse a "notify" path rather than hit nothing, and say where to go.
    const misplaced = await client.admin('POST', 'faults', { mode: 'error500', paths: ['notify'] });
    expect(misplaced.status).toBe(400);
    expect(misplaced.json.message).toContain('/_sandbox/notify-faults');
  });
});

describe('reset and stop', () => {
  it('reset forgets events, deliveries and faults, and cancels pending retries', async () => {
    receiver.answer = () => 500;
    await client.admin('POST', 'notify-faults', { duplicate: 2 });
    await pay();
    await receiver.count(2);
    await client.admin('POST', 'reset');
    expect(await deliveries()).toEqual([]);
    expect(await events()).toEqual([]);
    expect((await client.admin('GET', 'notify-faults')).json).toMatchObject({ duplicate: 1 });
    const health = (await client.admin('GET', 'health')).json;
    expect(health.notify).toEqual({ events: 0, pending: 0, in_flight: 0 });
    // A payment made now is delivered on its own; nothing of before the reset comes back.
    receiver.answer = () => 200;
    receiver.received.length = 0;
    const after = await pay();
    expect(summary(await settled(after.order_no))).toEqual([[1, 200]]);
    expect(await deliveries()).toHaveLength(1);
  });

  it('a sandbox stopped with a delivery held and retries pending closes at once', async () => {
    const own = await withSandbox({ notify: { retriesMs: [60_000] } });
    const hold = await Receiver.start(() => 'hold');
    const failing = await Receiver.start(() => 500);
    try {
      for (const url of [hold.url, failing.url]) {
        const body = signed({
          order_no: `STOP-${Date.now()}-${++n}`,
          currency: 'USD',
          amount: '5.00',
          card: '4242424242424242',
          expiration_month: '12',
          expiration_year: nextYear,
          security_code: '123',
          notify_url: url,
        });
        await own.client.post('/v1/authorise', body);
      }
      await hold.count(1);
      await failing.count(1);
      await own.sandbox.close();
      expect(hold.held).toHaveLength(1);
    } finally {
      await own.sandbox.close();
      await hold.close();
      await failing.close();
    }
  });
});
