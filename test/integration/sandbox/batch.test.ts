// /v1/capture, /v1/cancel, /v1/review, /v1/refund over HTTP: envelope and per-order shapes of
// gateway-api.md "Batch order records", the state machine (design.md §1.4) and every error code.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import {
  ACCOUNT,
  type Client,
  type Json,
  MERCHANT,
  signatureValid,
  signed,
  signer,
  withSandbox,
} from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await client.admin('POST', 'reset');
});

type Row = Record<string, string>;

async function orders(count: number, state: string, currency = 'USD', amount = '10.00'): Promise<Row[]> {
  const created = (await client.createOrders(count, state, currency, { amount })) as Row[];
  return created.map((o) => ({
    transaction_id: o.transaction_id!,
    order_no: o.order_no!,
    currency: o.currency!,
    amount: o.amount!,
  }));
}

function results(json: Json, array: string): Row[] {
  return json[array] as Row[];
}

describe('envelope', () => {
  it('answers merchant_id, account_id, return_status, return_message, encryption_data and the array, signed', async () => {
    const [o] = await orders(1, '2000');
    const a = await client.batch('/v1/capture', 'capture_orders', [o!]);
    expect(a.status).toBe(200);
    expect(Object.keys(a.json)).toEqual([
      'merchant_id',
      'account_id',
      'return_status',
      'return_message',
      'encryption_data',
      'capture_orders',
    ]);
    expect(a.json).toMatchObject({
      merchant_id: MERCHANT,
      account_id: ACCOUNT,
      return_status: '1',
      return_message: 'OK',
    });
    expect(a.json.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureValid(a.json)).toBe(true);
  });

  it('E1001 for a wrong signature: return_status 0, empty array, still signed', async () => {
    const [o] = await orders(1, '2000');
    const body = { ...signed({ capture_orders: [o!] }), encryption_data: 'ab'.repeat(32) };
    const a = await client.post('/v1/capture', body);
    expect(a.status).toBe(200);
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toBe('E1001:invalid signature');
    expect(a.json.capture_orders).toEqual([]);
    expect(signatureValid(a.json)).toBe(true);
  });

  it('accepts an upper-case signature', async () => {
    const [o] = await orders(1, '2000');
    const body = signed({ capture_orders: [o!] });
    const a = await client.post('/v1/capture', {
      ...body,
      encryption_data: body.encryption_data.toUpperCase(),
    });
    expect(a.json.return_status).toBe('1');
  });

  it('E1002 for an unknown merchant or account', async () => {
    for (const creds of [
      { merchant_id: '999999', account_id: ACCOUNT },
      { merchant_id: MERCHANT, account_id: '800001999' },
    ]) {
      const body = { ...creds, cancel_orders: [] as Json[] };
      const a = await client.post('/v1/cancel', { ...body, encryption_data: signer.sign(body) });
      expect(a.json.return_status).toBe('0');
      expect(a.json.return_message).toMatch(/^E1002:/);
    }
  });

  it('E1005 names a missing credential field', async () => {
    const a = await client.post('/v1/refund', {
      merchant_id: MERCHANT,
      account_id: ACCOUNT,
      refund_orders: [],
    });
    expect(a.json.return_message).toBe('E1005:malformed request: encryption_data is required');
  });

  it('E1005 when the array is missing or empty', async () => {
    const a = await client.post('/v1/capture', signed({}));
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toMatch(/^E1005:.*capture_orders/);
  });

  it('E1004 above the limit (capture 50, review 100)', async () => {
    const os = await orders(51, '2000');
    const a = await client.batch('/v1/capture', 'capture_orders', os);
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toMatch(/^E1004:.*51 orders, at most 50/);
    expect(a.json.capture_orders).toEqual([]);
    // Nothing was applied.
    const q = await client.search('/v1/retrievalTrans', { transaction_id: os[0]!.transaction_id! });
    expect((q.json.orders_list as Row[])[0]!.payment_status).toBe('2000');

    const review = os.map((o) => ({ ...o, review_flag: '1' }));
    const r = await client.batch('/v1/review', 'review_orders', review);
    expect(r.json.return_status).toBe('1');
  });

  it('answers 400 to an unparseable body', async () => {
    const a = await client.raw('/v1/refund', {
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(a.status).toBe(400);
    expect(a.json.code).toBe('E1005');
  });

  it('parses JSON even when sent with the form content type (as the spec samples do)', async () => {
    const [o] = await orders(1, '2000');
    const a = await client.raw('/v1/capture', {
      body: JSON.stringify(signed({ capture_orders: [o!] })),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(a.json.return_status).toBe('1');
  });
});

describe('capture', () => {
  it('2000 → 3000, results in request order with independent failures', async () => {
    const [a, b] = await orders(2, '2000');
    const [captured] = await orders(1, '3000');
    const missing = { transaction_id: 'T9999999999', order_no: 'NOPE', currency: 'USD', amount: '10.00' };
    const res = await client.batch('/v1/capture', 'capture_orders', [b!, missing, captured!, a!]);
    expect(res.json.return_status).toBe('1');
    const rs = results(res.json, 'capture_orders');
    expect(rs.map((r) => r.transaction_id)).toEqual([b, missing, captured, a].map((o) => o!.transaction_id));
    expect(rs[0]).toEqual({ ...b, capture_status: '1', error_message: '' });
    expect(Object.keys(rs[0]!)).toEqual([
      'transaction_id',
      'order_no',
      'currency',
      'amount',
      'capture_status',
      'error_message',
    ]);
    expect(rs[1]!.capture_status).toBe('0');
    expect(rs[1]!.error_message).toMatch(/^E2001:order not found/);
    expect(rs[2]!.capture_status).toBe('0');
    expect(rs[2]!.error_message).toBe(
      "E2003:operation not allowed in the order's state: order is 3000 (captured)",
    );
    expect(rs[3]!.capture_status).toBe('1');
  });

  it('E2002 when currency or amount differ from the order; equal values in other notation pass', async () => {
    const [o, p, q] = await orders(3, '2000', 'USD', '10.00');
    const res = await client.batch('/v1/capture', 'capture_orders', [
      { ...o!, amount: '10.01' },
      { ...p!, currency: 'EUR' },
      { ...q!, amount: '10.0' },
    ]);
    const rs = results(res.json, 'capture_orders');
    expect(rs[0]!.error_message).toMatch(/^E2002:.*10\.00 USD/);
    expect(rs[1]!.error_message).toMatch(/^E2002:/);
    expect(rs[2]!.capture_status).toBe('1');
  });

  it("E2002 names the order's amount in the order's own currency digits (a JPY order asked as USD)", async () => {
    const [o] = await orders(1, '2000', 'JPY', '12000');
    const res = await client.batch('/v1/capture', 'capture_orders', [
      { ...o!, currency: 'USD', amount: '120.00' },
    ]);
    // It said "the order is 120.00 JPY": the order's minor units written with the request's USD digits.
    expect(results(res.json, 'capture_orders')[0]!.error_message).toMatch(/^E2002:.*the order is 12000 JPY$/);
  });

  it('E2001 when order_no does not belong to the transaction_id', async () => {
    const [o, p] = await orders(2, '2000');
    const res = await client.batch('/v1/capture', 'capture_orders', [{ ...o!, order_no: p!.order_no! }]);
    expect(results(res.json, 'capture_orders')[0]!.error_message).toMatch(/^E2001:/);
  });

  it('E1005 per order, naming the field', async () => {
    const [o] = await orders(1, '2000', 'JPY', '1000');
    const res = await client.batch('/v1/capture', 'capture_orders', [
      { ...o!, amount: '1000.5' },
      { ...o!, currency: 'XXY' },
      { transaction_id: o!.transaction_id, order_no: o!.order_no, currency: 'JPY' },
      { ...o!, amount: 1000 },
      'not an object' as unknown as Json,
    ]);
    const rs = results(res.json, 'capture_orders');
    expect(res.json.return_status).toBe('1');
    expect(rs[0]!.error_message).toBe(
      'E1005:malformed request: capture_orders[0].amount must be a decimal with at most 0 fraction digits',
    );
    expect(rs[1]!.error_message).toMatch(/^E1005:.*capture_orders\[1\]\.currency/);
    expect(rs[2]!.error_message).toBe('E1005:malformed request: capture_orders[2].amount is required');
    expect(rs[3]!.error_message).toBe('E1005:malformed request: capture_orders[3].amount must be a string');
    expect(rs[4]!.error_message).toBe('E1005:malformed request: capture_orders[4] must be an object');
    expect(rs.every((r) => r.capture_status === '0')).toBe(true);
  });
});

describe('cancel', () => {
  it('2000 and 2100 → 5000; 3000 refused with E2003', async () => {
    const [a] = await orders(1, '2000');
    const [b] = await orders(1, '2100');
    const [c] = await orders(1, '3000');
    const res = await client.batch('/v1/cancel', 'cancel_orders', [a!, b!, c!]);
    const rs = results(res.json, 'cancel_orders');
    expect(Object.keys(rs[0]!)).toEqual([
      'transaction_id',
      'order_no',
      'currency',
      'amount',
      'cancel_status',
      'error_message',
    ]);
    expect(rs.map((r) => r.cancel_status)).toEqual(['1', '1', '0']);
    expect(rs[2]!.error_message).toMatch(/^E2003:.*3000/);
    const q = await client.search('/v1/retrievalTrans', {
      transaction_id: `${a!.transaction_id},${b!.transaction_id}`,
    });
    expect((q.json.orders_list as Row[]).map((r) => r.payment_status)).toEqual(['5000', '5000']);
  });

  it('E1004 above 50', async () => {
    const os = await orders(51, '2000');
    const res = await client.batch('/v1/cancel', 'cancel_orders', os);
    expect(res.json.return_message).toMatch(/^E1004:/);
  });
});

describe('review', () => {
  it('flag 1: 2100 → 2000; flag 0: 2100 → 5000; others E2003; bad flag E1005', async () => {
    const [a, b, c] = await orders(3, '2100');
    const [d] = await orders(1, '2000');
    const res = await client.batch('/v1/review', 'review_orders', [
      { ...a!, review_flag: '1' },
      { ...b!, review_flag: '0' },
      { ...c!, review_flag: 'yes' },
      { ...d!, review_flag: '1' },
    ]);
    const rs = results(res.json, 'review_orders');
    expect(Object.keys(rs[0]!)).toEqual([
      'transaction_id',
      'order_no',
      'currency',
      'amount',
      'review_flag',
      'review_status',
      'error_message',
    ]);
    expect(rs.map((r) => r.review_status)).toEqual(['1', '1', '0', '0']);
    expect(rs[2]!.error_message).toMatch(/^E1005:.*review_orders\[2\]\.review_flag/);
    expect(rs[3]!.error_message).toMatch(/^E2003:/);
    const q = await client.search('/v1/retrievalTrans', {
      transaction_id: `${a!.transaction_id},${b!.transaction_id}`,
    });
    expect((q.json.orders_list as Row[]).map((r) => r.payment_status)).toEqual(['2000', '5000']);
  });

  it('E1004 above 100', async () => {
    const os = await orders(101, '2100');
    const res = await client.batch(
      '/v1/review',
      'review_orders',
      os.map((o) => ({ ...o, review_flag: '1' })),
    );
    expect(res.json.return_message).toMatch(/^E1004:.*at most 100/);
  });
});

describe('refund', () => {
  it('result element has the spec fields in order', async () => {
    const [o] = await orders(1, '3000');
    const res = await client.batch('/v1/refund', 'refund_orders', [
      { ...o!, refund_amount: '2.50', refund_reason: 'late' },
    ]);
    const [r] = results(res.json, 'refund_orders');
    expect(Object.keys(r!)).toEqual([
      'amount',
      'currency',
      'order_no',
      'refund_amount',
      'refund_reason',
      'transaction_id',
      'refund_message',
      'refund_reference',
      'refund_reference_id',
      'refund_status',
    ]);
    expect(r).toMatchObject({
      amount: '10.00',
      currency: 'USD',
      order_no: o!.order_no,
      refund_amount: '2.50',
      refund_reason: 'late',
      transaction_id: o!.transaction_id,
      refund_message: '0000:Refund accepted',
      refund_reference_id: `${o!.transaction_id}-01`,
      refund_status: '1',
    });
    expect(r!.refund_reference).toMatch(/^RF\d+$/);
    expect(signatureValid(res.json)).toBe(true);
  });

  it('E2004 beyond the refundable balance, E2003 in a non-refundable state, E1005 for a zero or bad refund_amount', async () => {
    const [o] = await orders(1, '3000');
    const [p] = await orders(1, '2000');
    const res = await client.batch('/v1/refund', 'refund_orders', [
      { ...o!, refund_amount: '6.00', refund_reason: 'a' },
      { ...o!, refund_amount: '4.01', refund_reason: 'b' },
      { ...o!, refund_amount: '4.00', refund_reason: 'c' },
      { ...p!, refund_amount: '1.00', refund_reason: 'd' },
      { ...o!, refund_amount: '0.00', refund_reason: 'e' },
      { ...o!, refund_amount: '1.001', refund_reason: 'f' },
      { ...o!, refund_amount: '1.00', refund_reason: '' },
    ]);
    const rs = results(res.json, 'refund_orders');
    expect(rs.map((r) => r.refund_status)).toEqual(['1', '0', '1', '0', '0', '0', '0']);
    expect(rs[1]!.refund_message).toBe(
      'E2004:refund exceeds the refundable balance: refundable balance is 4.00 USD',
    );
    expect(rs[1]!.refund_reference_id).toBe('');
    expect(rs[2]!.refund_reference_id).toBe(`${o!.transaction_id}-02`);
    expect(rs[3]!.refund_message).toMatch(/^E2003:.*2000 \(authorised\)/);
    expect(rs[4]!.refund_message).toMatch(/^E1005:.*refund_orders\[4\]\.refund_amount/);
    expect(rs[5]!.refund_message).toMatch(/^E1005:.*refund_orders\[5\]\.refund_amount/);
    expect(rs[6]!.refund_message).toBe('E1005:malformed request: refund_orders[6].refund_reason is required');
  });

  it('E1004 above 50; exactly 50 is fine', async () => {
    const os = await orders(51, '3000');
    const body = os.map((o) => ({ ...o, refund_amount: '1.00', refund_reason: 'bulk' }));
    const over = await client.batch('/v1/refund', 'refund_orders', body);
    expect(over.json.return_message).toMatch(/^E1004:/);
    const ok = await client.batch('/v1/refund', 'refund_orders', body.slice(0, 50));
    expect(results(ok.json, 'refund_orders').every((r) => r.refund_status === '1')).toBe(true);
  });

  it('records every movement in the ledger with one request_id per request', async () => {
    const [o, p] = await orders(2, '3000');
    await client.batch('/v1/refund', 'refund_orders', [
      { ...o!, refund_amount: '1.00', refund_reason: 'x' },
      { ...p!, refund_amount: '10.00', refund_reason: 'y' },
    ]);
    const ledger = (await client.admin('GET', 'ledger')).json as unknown as Row[];
    expect(ledger).toHaveLength(2);
    expect(ledger[0]).toMatchObject({
      kind: 'refund',
      transaction_id: o!.transaction_id,
      order_no: o!.order_no,
      currency: 'USD',
      amount: '10.00',
      refund_amount: '1.00',
      refund_reference_id: `${o!.transaction_id}-01`,
    });
    expect(ledger[0]!.request_id).toBe(ledger[1]!.request_id);
    expect(ledger[0]!.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
