// --data DIR: a restarted sandbox keeps its orders, refunds, ledger and payouts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_SAMPLE_ORDERS } from '../../../src/sandbox/index.js';
import { JOURNAL_FILE } from '../../../src/sandbox/journal.js';
import { Client, type Json, signed, withSandbox } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'payops-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Row = Record<string, string>;

describe('persistence', () => {
  it('replays the journal at start', async () => {
    const first = await withSandbox({ dataDir: dir, seed: 5, seedFiles: [SANDBOX_SAMPLE_ORDERS] });
    const key = { transaction_id: 'T0000000001', order_no: 'ORD-1001', currency: 'USD', amount: '100.00' };
    await first.client.batch('/v1/refund', 'refund_orders', [
      { ...key, refund_amount: '40.00', refund_reason: 'r1' },
    ]);
    await first.client.batch('/v1/capture', 'capture_orders', [
      { transaction_id: 'T0000000041', order_no: 'ORD-1041', currency: 'USD', amount: '40.00' },
    ]);
    const created = (await first.client.createOrders(2, '2100')) as Row[];
    await first.client.post(
      '/v1/payout',
      signed({
        request_id: '123e4567-e89b-12d3-a456-426614174000',
        payment_amount: '5.00',
        payment_currency: 'USD',
        payment_method: 'SWIFT',
        payer: { entity_type: 'COMPANY' },
        beneficiary: { entity_type: 'COMPANY', bank_details: { account_name: 'A', account_number: '1' } },
      }),
    );
    const card = await first.client.post(
      '/v1/authorise',
      signed({
        order_no: 'SUB-1',
        currency: 'USD',
        amount: '9.99',
        card: '4242424242424242',
        expiration_month: '12',
        expiration_year: String(new Date().getUTCFullYear() + 1),
        security_code: '123',
        shopper_email: 'sub@example.com',
        subscription: { contract_name: 'Monthly', interval: 'month', interval_count: '1' },
      }),
    );
    const recurringId = /<recurring_id>(RC\d+)<\/recurring_id>/.exec(card.text)?.[1];
    expect(recurringId).toBeDefined();
    const before = {
      orders: (await first.client.admin('GET', 'orders')).json,
      ledger: (await first.client.admin('GET', 'ledger')).json,
    };
    await first.sandbox.close();

    const second = await withSandbox({ dataDir: dir, seed: 5, seedFiles: [SANDBOX_SAMPLE_ORDERS] });
    try {
      expect((await second.client.admin('GET', 'orders')).json).toEqual(before.orders);
      expect((await second.client.admin('GET', 'ledger')).json).toEqual(before.ledger);
      // --seed did not add 5 more, the seed file did not reset ORD-1001.
      expect((before.orders as unknown as Row[]).length).toBe(60 + 5 + 2 + 1);
      const r = await second.client.batch('/v1/refund', 'refund_orders', [
        { ...key, refund_amount: '60.00', refund_reason: 'r2' },
      ]);
      expect((r.json.refund_orders as Row[])[0]!.refund_reference_id).toBe('T0000000001-02');
      const q = await second.client.search('/v1/retrievalTrans', {
        transaction_id: 'T0000000001,T0000000041',
      });
      expect((q.json.orders_list as Row[]).map((o) => o.payment_status)).toEqual(['4000', '3000']);
      // Payment details survive too: the query shows the subscription and shopper, never the full card.
      const sub = await second.client.search('/v1/retrievalTrans', { order_no: 'SUB-1' });
      const subOrder = (sub.json.orders_list as Json[])[0]!;
      expect(subOrder.shopper_email).toBe('sub@example.com');
      expect((subOrder.subscription_result as Row).recurring_id).toBe(recurringId);
      expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).not.toContain('4242424242424242');
      // Generated ids continue where they stopped.
      const more = (await second.client.createOrders(1)) as Row[];
      expect(created.map((o) => o.transaction_id)).not.toContain(more[0]!.transaction_id);
      // The payout is still known: same request again gives the same answer.
      const ledger = (await second.client.admin('GET', 'ledger')).json as unknown as Json[];
      expect(ledger.filter((l) => l.kind === 'payout')).toHaveLength(1);
    } finally {
      await second.sandbox.close();
    }
  });

  it('drops a torn last line instead of failing', async () => {
    const path = join(dir, JOURNAL_FILE);
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"e":"status","id":"T00`);
    const s = await withSandbox({ dataDir: dir });
    try {
      const health = await new Client(s.sandbox.url).admin('GET', 'health');
      expect(health.json.orders).toBeGreaterThan(60);
      await s.client.createOrders(1);
    } finally {
      await s.sandbox.close();
    }
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
