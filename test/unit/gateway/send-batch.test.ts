// client.sendBatch: the same request as send(op, { [batchArray]: elements }), byte for byte and
// error for error, with the per-order results returned typed whatever return_status says.
import { MockAgent } from 'undici';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { GatewayError, GatewayRejectedError, UnknownOutcomeError } from '../../../src/errors.js';
import { assertAccepted, createClient, type GatewayClient } from '../../../src/gateway/client.js';
import { type BatchOperation, ENDPOINTS } from '../../../src/gateway/endpoints.js';
import { createSigner } from '../../../src/gateway/signer.js';
import { createTransport } from '../../../src/gateway/transport.js';
import type { BatchOrderOf, RefundResult } from '../../../src/gateway/types.js';

const ORIGIN = 'https://gateway.test';
const signer = createSigner('sandbox-sign-key');
const json = { headers: { 'content-type': 'application/json' } };
const WHO = { merchant_id: '800001', account_id: '800001001' };

let mock: MockAgent | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  mock = agent;
  const transport = await createTransport({ dispatcher: agent, sleep: async () => {} });
  const client = createClient({
    transport,
    signer,
    baseUrl: ORIGIN,
    merchantId: '800001',
    accountId: '800001001',
  });
  return { pool: agent.get(ORIGIN), client };
}

function signed(body: Record<string, unknown>) {
  return JSON.stringify({ ...body, encryption_data: signer.sign(body) });
}

const key = { transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '10.00' };
const ELEMENTS: { [K in BatchOperation]: BatchOrderOf[K][] } = {
  capture: [key, { ...key, transaction_id: 'T2', order_no: 'O2' }],
  cancel: [key],
  review: [{ ...key, review_flag: '1' }],
  refund: [{ ...key, refund_amount: '2.50', refund_reason: 'damaged – "box" & more' }],
};

describe('client.sendBatch', () => {
  for (const op of ['capture', 'cancel', 'review', 'refund'] as const) {
    it(`${op}: sends the same bytes as send(op, { ${ENDPOINTS[op].batchArray}: elements }) and returns its results`, async () => {
      const { pool, client } = await setup();
      const arrayName = ENDPOINTS[op].batchArray;
      const bodies: string[] = [];
      const results = ELEMENTS[op].map((e) => ({ ...e, [`${op}_status`]: '1', error_message: '' }));
      const answer = { ...WHO, return_status: '1', return_message: '0000:OK', [arrayName]: results };
      pool
        .intercept({ path: ENDPOINTS[op].path, method: 'POST' })
        .reply(
          200,
          (opts) => {
            bodies.push(String(opts.body));
            return signed(answer);
          },
          json,
        )
        .times(2);

      const viaSend = await client.send(op, { [arrayName]: ELEMENTS[op] } as never);
      const viaBatch = await client.sendBatch(op, ELEMENTS[op]);

      expect(bodies).toHaveLength(2);
      expect(bodies[1]).toBe(bodies[0]);
      expect(JSON.parse(bodies[1]!)[arrayName]).toEqual(ELEMENTS[op]);
      expect(viaBatch.signature).toBe('valid');
      expect(viaBatch.data).toEqual(viaSend.data);
      expect(viaBatch.results).toEqual(results);
      expect(viaBatch.status).toBe(200);
    });
  }

  it('types the per-order results of the operation', async () => {
    const { pool, client } = await setup();
    const result: RefundResult = {
      ...key,
      refund_amount: '2.50',
      refund_reason: 'x',
      refund_message: '0000:OK',
      refund_reference: 'R1',
      refund_reference_id: 'T1-01',
      refund_status: '1',
    };
    pool
      .intercept({ path: '/v1/refund', method: 'POST' })
      .reply(
        200,
        signed({ ...WHO, return_status: '1', return_message: 'OK', refund_orders: [result] }),
        json,
      );
    const res = await client.sendBatch('refund', ELEMENTS.refund);
    expectTypeOf(res.results).toEqualTypeOf<RefundResult[]>();
    expect(res.results[0]?.refund_reference_id).toBe('T1-01');
  });

  it('keeps the per-order results of an answer whose return_status is 0; assertAccepted still rejects it', async () => {
    const { pool, client } = await setup();
    const elements = [{ ...key, capture_status: '0', error_message: 'E2003:order is 2100' }];
    pool
      .intercept({ path: '/v1/capture', method: 'POST' })
      .reply(
        200,
        signed({ ...WHO, return_status: '0', return_message: 'E2003:not allowed', capture_orders: elements }),
        json,
      );
    const res = await client.sendBatch('capture', ELEMENTS.capture);
    expect(res.data.return_status).toBe('0');
    expect(res.results).toEqual(elements);
    expect(() => assertAccepted(res.data, client)).toThrow(GatewayRejectedError);
  });

  it('returns no results when the answer carries no array (or not an array)', async () => {
    const { pool, client } = await setup();
    pool
      .intercept({ path: '/v1/cancel', method: 'POST' })
      .reply(200, signed({ ...WHO, return_status: '0', return_message: 'E9001:busy' }), json);
    pool
      .intercept({ path: '/v1/cancel', method: 'POST' })
      .reply(200, signed({ ...WHO, return_status: '1', return_message: 'OK', cancel_orders: 'none' }), json);
    expect((await client.sendBatch('cancel', ELEMENTS.cancel)).results).toEqual([]);
    expect((await client.sendBatch('cancel', ELEMENTS.cancel)).results).toEqual([]);
  });

  it('fails as send fails: a bad signature is an unknown outcome, a 400 error body a GatewayError', async () => {
    const { pool, client } = await setup();
    const both = (c: GatewayClient) => [
      c.send('refund', { refund_orders: ELEMENTS.refund }),
      c.sendBatch('refund', ELEMENTS.refund),
    ];
    const badlySigned = JSON.stringify({
      ...WHO,
      return_status: '1',
      refund_orders: [],
      encryption_data: 'f00',
    });
    pool.intercept({ path: '/v1/refund', method: 'POST' }).reply(200, badlySigned, json).times(2);
    for (const p of both(client)) {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnknownOutcomeError);
      expect((err as UnknownOutcomeError).reason).toBe('bad_signature');
    }
    pool
      .intercept({ path: '/v1/refund', method: 'POST' })
      .reply(400, JSON.stringify({ code: 'E1005', message: 'refund_orders is required' }), json)
      .times(2);
    for (const p of both(client)) {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).code).toBe('E1005');
    }
  });
});
