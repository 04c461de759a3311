// The acceptance scenario: capture, refund partially twice, search refunds (-01, -02),
// payment_status 2000 → 3000 → 4100 → 4000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, signatureValid, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());

async function statusOf(txn: string): Promise<string> {
  const q = await client.search('/v1/retrievalTrans', { transaction_id: txn });
  const list = q.json.orders_list as Array<Record<string, string>>;
  return list[0]!.payment_status!;
}

describe('capture, partial refunds, refund search', () => {
  it('walks 2000 → 3000 → 4100 → 4000 with reference ids -01 and -02', async () => {
    const [order] = (await client.createOrders(1, '2000', 'USD', { amount: '100.00' })) as Array<
      Record<string, string>
    >;
    const key = {
      transaction_id: order!.transaction_id!,
      order_no: order!.order_no!,
      currency: 'USD',
      amount: '100.00',
    };
    expect(await statusOf(key.transaction_id)).toBe('2000');

    const cap = await client.batch('/v1/capture', 'capture_orders', [key]);
    expect(cap.json.return_status).toBe('1');
    expect(signatureValid(cap.json)).toBe(true);
    expect(cap.json.capture_orders).toEqual([{ ...key, capture_status: '1', error_message: '' }]);
    expect(await statusOf(key.transaction_id)).toBe('3000');

    const r1 = await client.batch('/v1/refund', 'refund_orders', [
      { ...key, refund_amount: '30.00', refund_reason: 'damaged' },
    ]);
    const res1 = (r1.json.refund_orders as Array<Record<string, string>>)[0]!;
    expect(res1.refund_status).toBe('1');
    expect(res1.refund_message).toBe('0000:Refund accepted');
    expect(res1.refund_reference_id).toBe(`${key.transaction_id}-01`);
    expect(await statusOf(key.transaction_id)).toBe('4100');

    const r2 = await client.batch('/v1/refund', 'refund_orders', [
      { ...key, refund_amount: '70.00', refund_reason: 'returned' },
    ]);
    const res2 = (r2.json.refund_orders as Array<Record<string, string>>)[0]!;
    expect(res2.refund_reference_id).toBe(`${key.transaction_id}-02`);
    expect(await statusOf(key.transaction_id)).toBe('4000');

    const search = await client.search('/v1/retrievalRefund', { order_no: key.order_no });
    expect(search.json.return_status).toBe('1');
    expect(signatureValid(search.json)).toBe(true);
    const refunds = search.json.refund_orders as Array<Record<string, string>>;
    expect(refunds.map((r) => [r.refund_reference_id, r.refund_amount, r.payment_status])).toEqual([
      [`${key.transaction_id}-01`, '30.00', '4000'],
      [`${key.transaction_id}-02`, '70.00', '4000'],
    ]);

    const r3 = await client.batch('/v1/refund', 'refund_orders', [
      { ...key, refund_amount: '0.01', refund_reason: 'x' },
    ]);
    const res3 = (r3.json.refund_orders as Array<Record<string, string>>)[0]!;
    expect(res3.refund_status).toBe('0');
    expect(res3.refund_message).toMatch(/^E2003:/);
  });
});
