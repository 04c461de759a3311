// The fault modes that play a hostile server (issue 13): trickle (the answer, processed, sent a
// byte every TRICKLE_INTERVAL_MS) and oversize (the answer followed by OVERSIZE_PADDING_BYTES of
// spaces, no length). Read here with node:http, byte by byte, as no HTTP client library would.
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OVERSIZE_PADDING_BYTES, TRICKLE_INTERVAL_MS } from '../../../src/sandbox/faults.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, signatureValid, signed, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await client.admin('POST', 'reset');
});

interface Reading {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** When each chunk arrived (ms since the request) and its size. */
  chunks: Array<{ at: number; bytes: number }>;
  body: Buffer;
}

/** POSTs a signed refund and reads the answer until `enough` says stop (then the socket is destroyed). */
function readRefund(
  url: string,
  order: Record<string, string>,
  enough: (r: Reading) => boolean,
): Promise<Reading> {
  const body = JSON.stringify(
    signed({ refund_orders: [{ ...order, refund_amount: '5.00', refund_reason: 'x' }] }),
  );
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      `${url}/v1/refund`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const reading: Reading = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          chunks: [],
          body: Buffer.alloc(0),
        };
        const parts: Buffer[] = [];
        let stopped = false;
        const finish = () => {
          reading.body = Buffer.concat(parts);
          resolve(reading);
        };
        res.on('data', (c: Buffer) => {
          if (stopped) return;
          reading.chunks.push({ at: performance.now() - started, bytes: c.length });
          parts.push(c);
          if (enough(reading)) {
            stopped = true;
            req.destroy();
            finish();
          }
        });
        res.on('end', () => {
          if (!stopped) finish();
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end(body);
  });
}

async function order(): Promise<Record<string, string>> {
  const [o] = (await client.createOrders(1, '3000', 'USD', { amount: '50.00' })) as Array<
    Record<string, string>
  >;
  return { transaction_id: o!.transaction_id!, order_no: o!.order_no!, currency: 'USD', amount: o!.amount! };
}

describe('trickle', () => {
  it('applies the request, then sends its answer one byte at a time', async () => {
    const o = await order();
    await client.admin('POST', 'faults', { mode: 'trickle', paths: ['/v1/refund'] });
    const r = await readRefund(sandbox.url, o, (x) => x.chunks.length >= 4);
    expect(r.status).toBe(200);
    expect(Number(r.headers['content-length'])).toBeGreaterThan(100);
    expect(r.chunks.every((c) => c.bytes === 1)).toBe(true);
    // The gaps are the interval (a little early allowed for timer slack), never the whole answer.
    const gaps = r.chunks.slice(1).map((c, i) => c.at - r.chunks[i]!.at);
    for (const g of gaps) expect(g).toBeGreaterThan(TRICKLE_INTERVAL_MS * 0.8);
    // Processed before the answer began: the refund is in the ledger.
    expect((await client.ledger()).map((e) => e.transaction_id)).toEqual([o.transaction_id]);
  });
});

describe('oversize', () => {
  it('applies the request; its signed answer comes first, then spaces far past any answer', async () => {
    const o = await order();
    await client.admin('POST', 'faults', { mode: 'oversize', paths: ['/v1/refund'] });
    const r = await readRefund(sandbox.url, o, () => false);
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.body.length).toBeGreaterThan(OVERSIZE_PADDING_BYTES);
    // Read whole, it is a valid, signed answer: only a cap tells it from a real one.
    const answer = JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
    expect(signatureValid(answer)).toBe(true);
    expect((await client.ledger()).map((e) => e.transaction_id)).toEqual([o.transaction_id]);
  });
});
