// /v1/retrievalTrans and /v1/retrievalRefund: form bodies, selection (design.md §1.2), shapes of
// gateway-api.md "Order query result" and "Refund record", the registered-IP rule (403 / E1003).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_SAMPLE_ORDERS, type SandboxHandle } from '../../../src/sandbox/index.js';
import { ACCOUNT, type Client, type Json, MERCHANT, signatureValid, signed, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox({ seedFiles: [SANDBOX_SAMPLE_ORDERS] }));
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await client.admin('POST', 'config', { registered_ips: ['127.0.0.1', '::1'] });
});

type Row = Record<string, unknown>;
const list = (json: Json) => json.orders_list as Row[];

describe('order query', () => {
  it('answers the spec shape for a sample order, unsigned', async () => {
    const a = await client.search('/v1/retrievalTrans', { order_no: 'ORD-1001' });
    expect(a.status).toBe(200);
    expect(Object.keys(a.json)).toEqual([
      'merchant_id',
      'account_id',
      'return_status',
      'return_message',
      'orders_list',
    ]);
    expect(a.json).toMatchObject({
      merchant_id: MERCHANT,
      account_id: ACCOUNT,
      return_status: '1',
      return_message: 'OK',
    });
    const [o] = list(a.json);
    expect(Object.keys(o!)).toEqual([
      'order_no',
      'transaction_id',
      'reference_no',
      'amount',
      'currency',
      'payment_status',
      'query_result',
      'is3ds',
      'transaction_date',
      'website',
      'shopper_email',
      'shopper_phone',
      'delivery_information',
      'antifraud_provider',
      'fraud_check_result',
      'subscription_result',
    ]);
    expect(o).toMatchObject({
      order_no: 'ORD-1001',
      transaction_id: 'T0000000001',
      amount: '100.00',
      currency: 'USD',
      payment_status: '3000',
      query_result: '1',
      is3ds: '0',
    });
    expect(o!.transaction_date).toMatch(/^\d{14}$/);
    expect(Object.keys(o!.delivery_information as Row).sort()).toEqual([
      'delivery_address',
      'delivery_city',
      'delivery_country',
      'delivery_firstname',
      'delivery_lastname',
      'delivery_postal_code',
      'delivery_state',
    ]);
    for (const f of o!.fraud_check_result as Row[]) expect(Object.keys(f)).toEqual(['check_items', 'status']);
    expect(Object.keys(o!.subscription_result as Row)).toEqual([
      'contract_name',
      'recurring_deduction_period',
      'recurring_deduction_time',
      'recurring_id',
      'recurring_status',
    ]);
    expect(a.json.encryption_data).toBeUndefined();
  });

  it('selects by order_no and transaction_id lists in request order; unknown ones get query_result 0', async () => {
    const a = await client.search('/v1/retrievalTrans', {
      order_no: 'ORD-1003, ORD-9999',
      transaction_id: 'T0000000041,T0000000003',
    });
    expect(list(a.json).map((o) => [o.order_no, o.transaction_id, o.query_result])).toEqual([
      ['ORD-1003', 'T0000000003', '1'],
      ['ORD-9999', '', '0'],
      ['ORD-1041', 'T0000000041', '1'],
    ]);
    expect(list(a.json)[1]!.payment_status).toBe('');
  });

  it('formats JPY without decimals and EUR with two', async () => {
    const a = await client.search('/v1/retrievalTrans', { order_no: 'ORD-1031,ORD-1021' });
    expect(list(a.json).map((o) => [o.currency, o.amount])).toEqual([
      ['JPY', '12000'],
      ['EUR', '80.00'],
    ]);
  });

  it('without a list returns the 100 newest orders in the date range', async () => {
    await client.createOrders(150, '3000');
    const a = await client.search('/v1/retrievalTrans');
    const rows = list(a.json);
    expect(rows).toHaveLength(100);
    expect(rows[0]!.order_no).toMatch(/^SBX-/);
    const future = await client.search('/v1/retrievalTrans', { start_date: '29991231000000' });
    expect(list(future.json)).toEqual([]);
    const past = await client.search('/v1/retrievalTrans', {
      order_no: 'ORD-1001',
      end_date: '20000101000000',
    });
    expect(list(past.json)).toEqual([]);
  });

  it('E1005 for a malformed date; E1004 for more than 100 values', async () => {
    const bad = await client.search('/v1/retrievalTrans', { start_date: '2026-01-01' });
    expect(bad.json.return_status).toBe('0');
    expect(bad.json.return_message).toMatch(/^E1005:.*start_date/);
    const many = Array.from({ length: 101 }, (_, i) => `ORD-${i}`).join(',');
    const over = await client.search('/v1/retrievalTrans', { order_no: many });
    expect(over.json.return_message).toMatch(/^E1004:/);
    expect(over.json.orders_list).toEqual([]);
  });

  it('E1001 for a bad signature, E1002 for an unknown account', async () => {
    const body = signed({ order_no: 'ORD-1001' }) as Record<string, string>;
    const a = await client.form('/v1/retrievalTrans', { ...body, order_no: 'ORD-1002' });
    expect(a.json.return_message).toBe('E1001:invalid signature');
    const b = await client.form('/v1/retrievalTrans', { ...body, account_id: '1' });
    expect(b.json.return_message).toMatch(/^E1002:/);
  });

  it('403 and E1003 with the caller IP as seen, when the IP is not registered', async () => {
    await client.admin('POST', 'config', { registered_ips: ['10.0.0.1'] });
    const a = await client.search('/v1/retrievalTrans', { order_no: 'ORD-1001' });
    expect(a.status).toBe(403);
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toMatch(
      /^E1003:caller IP (127\.0\.0\.1|::ffff:127\.0\.0\.1|::1) is not registered$/,
    );
    expect(a.json.orders_list).toEqual([]);
    // Refund search is not restricted (the spec restricts the query endpoint only).
    const r = await client.search('/v1/retrievalRefund', { order_no: 'ORD-1001' });
    expect(r.status).toBe(200);
    expect(r.json.return_status).toBe('1');
  });

  it('::ffff:127.0.0.1 and 127.0.0.1 are the same caller', async () => {
    await client.admin('POST', 'config', { registered_ips: ['::ffff:127.0.0.1', '::1'] });
    const a = await client.search('/v1/retrievalTrans', { order_no: 'ORD-1001' });
    expect(a.status).toBe(200);
  });
});

describe('refund search', () => {
  it('lists refund records with the spec fields, signed', async () => {
    const key = { transaction_id: 'T0000000002', order_no: 'ORD-1002', currency: 'USD', amount: '49.99' };
    await client.batch('/v1/refund', 'refund_orders', [
      { ...key, refund_amount: '9.99', refund_reason: 'scratch' },
    ]);
    const a = await client.search('/v1/retrievalRefund', { transaction_id: 'T0000000002' });
    expect(Object.keys(a.json)).toEqual([
      'merchant_id',
      'account_id',
      'return_status',
      'return_message',
      'encryption_data',
      'refund_orders',
    ]);
    expect(signatureValid(a.json)).toBe(true);
    const [r] = a.json.refund_orders as Row[];
    expect(Object.keys(r!)).toEqual([
      'transaction_id',
      'order_no',
      'amount',
      'currency',
      'refund_status',
      'payment_status',
      'refund_amount',
      'refund_reference',
      'refund_reason',
      'refund_reference_id',
      'refund_date',
      'refund_processing_date',
    ]);
    expect(r).toMatchObject({
      transaction_id: 'T0000000002',
      order_no: 'ORD-1002',
      amount: '49.99',
      currency: 'USD',
      refund_status: '1',
      payment_status: '4100',
      refund_amount: '9.99',
      refund_reason: 'scratch',
      refund_reference_id: 'T0000000002-01',
    });
    expect(r!.refund_date).toMatch(/^\d{14}$/);
    for (const v of Object.values(r!)) expect(typeof v).toBe('string');
  });

  it('without a list returns the newest refunds, filtered by refund_date', async () => {
    const a = await client.search('/v1/retrievalRefund');
    expect((a.json.refund_orders as Row[]).length).toBeGreaterThan(0);
    const none = await client.search('/v1/retrievalRefund', { end_date: '20000101000000' });
    expect(none.json.refund_orders).toEqual([]);
  });

  it('E1004 above 100 values, E1001 for a bad signature', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `T${i}`).join(',');
    const over = await client.search('/v1/retrievalRefund', { transaction_id: many });
    expect(over.json.return_message).toMatch(/^E1004:/);
    expect(signatureValid(over.json)).toBe(true);
    const bad = await client.form('/v1/retrievalRefund', {
      merchant_id: MERCHANT,
      account_id: ACCOUNT,
      encryption_data: '00',
    });
    expect(bad.json.return_message).toBe('E1001:invalid signature');
  });
});
