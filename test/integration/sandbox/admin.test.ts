// The admin API (design.md §1.5) and fault injection.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, signatureValid, signed, waitUntil, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox({ seed: 3 }));
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await client.admin('POST', 'reset');
});

type Row = Record<string, string>;

async function captureOne(): Promise<{ key: Row; send: () => Promise<Response> }> {
  const [o] = (await client.createOrders(1, '2000')) as Row[];
  const key = {
    transaction_id: o!.transaction_id!,
    order_no: o!.order_no!,
    currency: o!.currency!,
    amount: o!.amount!,
  };
  const body = JSON.stringify(signed({ capture_orders: [key] }));
  return {
    key,
    send: () =>
      fetch(`${sandbox.url}/v1/capture`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        signal: AbortSignal.timeout(2000),
      }),
  };
}

async function statusOf(txn: string): Promise<string> {
  const orders = (await client.admin('GET', 'orders')).json as unknown as Row[];
  return orders.find((o) => o.transaction_id === txn)!.payment_status!;
}

describe('admin API', () => {
  it('health', async () => {
    const a = await client.raw('/_sandbox/health', { method: 'GET' });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ status: 'ok', orders: 0 });
  });

  it('creates orders in any state and returns their summaries', async () => {
    const created = (await client.createOrders(3, '2100', 'JPY')) as Row[];
    expect(created).toHaveLength(3);
    for (const o of created) {
      expect(Object.keys(o)).toEqual(['transaction_id', 'order_no', 'currency', 'amount', 'payment_status']);
      expect(o).toMatchObject({ currency: 'JPY', payment_status: '2100' });
      expect(o.amount).toMatch(/^\d+$/);
    }
    const refunded = (await client.createOrders(1, '4100', 'USD', { amount: '10.00' })) as Row[];
    expect(refunded[0]!.payment_status).toBe('4100');
    const bad = await client.admin('POST', 'orders', { count: 1, state: '7000' });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('E1005');
  });

  it('exports every order as CSV', async () => {
    await client.createOrders(2, '3000', 'EUR', { amount: '5.50' });
    const a = await client.raw('/_sandbox/orders?format=csv', { method: 'GET' });
    expect(a.contentType).toMatch(/text\/csv/);
    const lines = a.text.trim().split('\n');
    expect(lines[0]).toBe('transaction_id,order_no,currency,amount,payment_status');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^T\d{10},SBX-\d+,EUR,5\.50,3000$/);
  });

  it('ledger entries carry kind, ids, currency, amount, at and request_id', async () => {
    const { key, send } = await captureOne();
    await send();
    const ledger = (await client.admin('GET', 'ledger')).json as unknown as Row[];
    expect(ledger).toEqual([
      {
        kind: 'capture',
        transaction_id: key.transaction_id,
        order_no: key.order_no,
        currency: key.currency,
        amount: key.amount,
        at: expect.stringMatching(/Z$/),
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
  });

  it('reset clears orders, ledger and faults', async () => {
    await client.createOrders(2);
    await client.admin('POST', 'faults', { mode: 'error500' });
    await client.admin('POST', 'reset');
    expect((await client.admin('GET', 'health')).json.orders).toBe(0);
    expect((await client.admin('GET', 'faults')).json.mode).toBe('none');
  });

  it('unknown admin paths answer 404', async () => {
    expect((await client.admin('GET', 'nope')).status).toBe(404);
  });
});

describe('faults', () => {
  it('error500: 500 and nothing applied', async () => {
    const { key, send } = await captureOne();
    await client.admin('POST', 'faults', { mode: 'error500' });
    const res = await send();
    expect(res.status).toBe(500);
    expect(await statusOf(key.transaction_id!)).toBe('2000');
  });

  it('drop_before_commit: connection dropped, nothing applied', async () => {
    const { key, send } = await captureOne();
    await client.admin('POST', 'faults', { mode: 'drop_before_commit' });
    await expect(send()).rejects.toThrow();
    expect(await statusOf(key.transaction_id!)).toBe('2000');
  });

  it('drop_after_commit: connection dropped, change applied', async () => {
    const { key, send } = await captureOne();
    await client.admin('POST', 'faults', { mode: 'drop_after_commit' });
    await expect(send()).rejects.toThrow();
    expect(await statusOf(key.transaction_id!)).toBe('3000');
  });

  it('hang: never answers', async () => {
    const { key } = await captureOne();
    await client.admin('POST', 'faults', { mode: 'hang', paths: ['/v1/capture'] });
    const started = Date.now();
    const res = fetch(`${sandbox.url}/v1/capture`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(300),
    });
    await expect(res).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await statusOf(key.transaction_id!)).toBe('2000');
  });

  it('garbage: 200 with an unparseable body (the change is applied)', async () => {
    const { key, send } = await captureOne();
    await client.admin('POST', 'faults', { mode: 'garbage' });
    const res = await send();
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    expect(await statusOf(key.transaction_id!)).toBe('3000');
  });

  it('bad_signature: a valid body with a wrong encryption_data', async () => {
    const { send } = await captureOne();
    await client.admin('POST', 'faults', { mode: 'bad_signature' });
    const res = await send();
    const body = (await res.json()) as Json;
    expect(body.return_status).toBe('1');
    expect(body.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureValid(body)).toBe(false);
    // Unsigned answers (the query) get a wrong signature added.
    const q = await client.search('/v1/retrievalTrans');
    expect(q.json.encryption_data).toMatch(/^0{64}$/);
  });

  it('latency_ms delays matching responses, whatever the mode', async () => {
    const { send } = await captureOne();
    await client.admin('POST', 'faults', { latency_ms: 200 });
    const started = Date.now();
    const res = await send();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('paths limit faults to those endpoints; admin paths are never faulted', async () => {
    await client.admin('POST', 'faults', { mode: 'error500', paths: ['/v1/refund'] });
    const { send } = await captureOne();
    expect((await send()).status).toBe(200);
    await client.admin('POST', 'faults', { mode: 'error500' });
    expect((await client.admin('GET', 'health')).status).toBe(200);
  });

  it('mode none clears', async () => {
    await client.admin('POST', 'faults', { mode: 'error500', latency_ms: 50 });
    const cleared = await client.admin('POST', 'faults', { mode: 'none' });
    expect(cleared.json).toEqual({ mode: 'none', rate: 1, latency_ms: 0, paths: null });
    const { send } = await captureOne();
    expect((await send()).status).toBe(200);
  });

  it('rate hits a reproducible share of requests for a given seed', async () => {
    const pattern = async () => {
      await client.admin('POST', 'faults', {
        mode: 'error500',
        rate: 0.5,
        seed: 42,
        paths: ['/v1/retrievalRefund'],
      });
      const hits: boolean[] = [];
      for (let i = 0; i < 40; i++) hits.push((await client.search('/v1/retrievalRefund')).status === 500);
      return hits;
    };
    const first = await pattern();
    const second = await pattern();
    expect(second).toEqual(first);
    const count = first.filter(Boolean).length;
    expect(count).toBeGreaterThan(8);
    expect(count).toBeLessThan(32);
  });

  it('rejects a bad fault configuration', async () => {
    expect((await client.admin('POST', 'faults', { mode: 'explode' })).status).toBe(400);
    expect((await client.admin('POST', 'faults', { mode: 'hang', rate: 2 })).status).toBe(400);
  });
});

describe('shutdown', () => {
  it('closes promptly with a hung request in flight', async () => {
    const { startSandbox } = await import('../../../src/sandbox/index.js');
    const s = await startSandbox({ port: 0 });
    await fetch(`${s.url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify({ mode: 'hang' }) });
    const hung = fetch(`${s.url}/v1/capture`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    }).catch((e: unknown) => e);
    // Once the sandbox has taken the request in (its pace counts every gateway request it decides
    // on), not after a guessed 50 ms: a close before that would test a refused connection instead.
    await waitUntil(async () => {
      const pace = (await (await fetch(`${s.url}/_sandbox/pace`)).json()) as {
        per_second: Record<string, number>;
      };
      return Object.values(pace.per_second).some((n) => n > 0);
    });
    const started = Date.now();
    await s.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await hung).toBeInstanceOf(Error);
  });

  it('keeps signatures valid on ordinary answers', async () => {
    const { send } = await captureOne();
    expect(signatureValid((await (await send()).json()) as Json)).toBe(true);
  });
});
