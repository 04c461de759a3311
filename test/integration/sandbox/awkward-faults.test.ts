// The fault modes that play a gateway's awkward answers rather than a broken network:
// commit_late (HTTP 500 now, the very same request committed delay_ms later) and status_zero
// (the batch processed, answered with return_status 0 and its per-order results, signed).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { JOURNAL_FILE } from '../../../src/sandbox/journal.js';
import { type Client, type Json, signatureValid, signed, waitUntil, withSandbox } from './helpers.js';

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

async function captured(amount = '100.00'): Promise<Row> {
  const [o] = (await client.createOrders(1, '3000', 'USD', { amount })) as Row[];
  return {
    transaction_id: o!.transaction_id!,
    order_no: o!.order_no!,
    currency: 'USD',
    amount: o!.amount!,
  };
}

function refundOf(key: Row, refundAmount: string, reason = 'late test'): Row {
  return { ...key, refund_amount: refundAmount, refund_reason: reason };
}

async function statusOf(c: Client, txn: string): Promise<string> {
  const orders = (await c.admin('GET', 'orders')).json as unknown as Row[];
  return orders.find((o) => o.transaction_id === txn)!.payment_status!;
}

const lateCommits = async (c: Client) => (await c.admin('GET', 'health')).json.late_commits as number;

function payoutBody(extra: Json = {}): Json {
  return signed({
    request_id: randomUUID(),
    payment_amount: '25.00',
    payment_currency: 'EUR',
    payment_method: 'SWIFT',
    payer: { entity_type: 'COMPANY' },
    beneficiary: { entity_type: 'COMPANY', bank_details: { account_name: 'B', account_number: '12345' } },
    ...extra,
  });
}

describe('commit_late', () => {
  it('a refund batch: 500 at once with the ledger unchanged, the refund in the ledger after delay_ms', async () => {
    const key = await captured();
    // The default delay, 2 s: time enough to look at the ledger before the commit lands.
    const set = await client.admin('POST', 'faults', { mode: 'commit_late' });
    expect(set.json).toMatchObject({ mode: 'commit_late', delay_ms: 2000 });
    const sent = Date.now();
    const a = await client.batch('/v1/refund', 'refund_orders', [refundOf(key, '30.00')]);
    const answered = Date.now();
    expect(a.status).toBe(500);
    expect(a.json).toEqual({ code: 'E9001', message: 'E9001:temporarily unavailable' });
    expect(answered - sent).toBeLessThan(2000);
    // Nothing yet: not in the ledger, not in refund search, the order still captured.
    expect(await client.ledger()).toEqual([]);
    expect(await statusOf(client, key.transaction_id!)).toBe('3000');
    const search = await client.search('/v1/retrievalRefund', { transaction_id: key.transaction_id! });
    expect(search.json.refund_orders).toEqual([]);
    expect(await lateCommits(client)).toBe(1);

    await waitUntil(async () => (await lateCommits(client)) === 0);
    const ledger = await client.ledger();
    expect(ledger).toEqual([
      expect.objectContaining({
        kind: 'refund',
        transaction_id: key.transaction_id,
        refund_amount: '30.00',
        refund_reference_id: `${key.transaction_id}-01`,
      }),
    ]);
    // Stamped when it was committed, not when it arrived.
    expect(Date.parse(ledger[0]!.at as string)).toBeGreaterThanOrEqual(sent + 1950);
    expect(await statusOf(client, key.transaction_id!)).toBe('4100');
    const after = await client.search('/v1/retrievalRefund', { transaction_id: key.transaction_id! });
    expect((after.json.refund_orders as Row[]).map((r) => r.refund_amount)).toEqual(['30.00']);
  });

  it('the late request is applied as if it arrived then: the same checks against the state of that moment', async () => {
    const key = await captured();
    await client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: 1500 });
    expect(
      (await client.batch('/v1/refund', 'refund_orders', [refundOf(key, '60.00', 'first')])).status,
    ).toBe(500);
    // Meanwhile the client (or the portal) refunds 60.00 itself: the late 60.00 no longer fits.
    await client.admin('POST', 'faults', { mode: 'none' });
    const direct = await client.batch('/v1/refund', 'refund_orders', [refundOf(key, '60.00', 'second')]);
    expect((direct.json.refund_orders as Row[])[0]!.refund_status).toBe('1');
    await waitUntil(async () => (await lateCommits(client)) === 0);
    const refunds = (await client.ledger()).filter((l) => l.kind === 'refund');
    expect(refunds.map((l) => l.refund_amount)).toEqual(['60.00']);
    expect(await statusOf(client, key.transaction_id!)).toBe('4100');
  });

  it('a payout: 500 now, the payout later; the same request_id then gets that payout, never a second', async () => {
    await client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: 1000, paths: ['/v1/payout'] });
    const body = payoutBody();
    const a = await client.post('/v1/payout', body);
    expect(a.status).toBe(500);
    expect(await client.ledger()).toEqual([]);
    await waitUntil(async () => (await lateCommits(client)) === 0);
    const ledger = await client.ledger();
    expect(ledger).toEqual([expect.objectContaining({ kind: 'payout', request_id: body.request_id })]);
    await client.admin('POST', 'faults', { mode: 'none' });
    const again = await client.post('/v1/payout', body);
    expect(again.json).toMatchObject({ status: 'COMPLETED', transaction_id: ledger[0]!.transaction_id });
    expect(await client.ledger()).toHaveLength(1);
  });

  it('reads are answered as usual (nothing to commit late)', async () => {
    await client.admin('POST', 'faults', { mode: 'commit_late' });
    const a = await client.search('/v1/retrievalRefund', {});
    expect(a.status).toBe(200);
    expect(a.json.return_status).toBe('1');
    expect(await lateCommits(client)).toBe(0);
  });

  it('a rate hits a share of the requests; every request is applied exactly once either way', async () => {
    await client.admin('POST', 'faults', { mode: 'commit_late', rate: 0.5, seed: 7, delay_ms: 100 });
    const keys: Row[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const key = await captured('10.00');
      keys.push(key);
      statuses.push((await client.batch('/v1/refund', 'refund_orders', [refundOf(key, '10.00')])).status);
    }
    expect(statuses.filter((s) => s === 500).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    await waitUntil(async () => (await lateCommits(client)) === 0);
    const refunded = (await client.ledger()).map((l) => l.transaction_id).sort();
    expect(refunded).toEqual(keys.map((k) => k.transaction_id).sort());
  });

  it('reset drops the pending commits', async () => {
    await client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: 1000 });
    expect((await client.post('/v1/payout', payoutBody())).status).toBe(500);
    expect(await lateCommits(client)).toBe(1);
    await client.admin('POST', 'reset');
    expect(await lateCommits(client)).toBe(0);
    await new Promise((r) => setTimeout(r, 1200));
    const health = (await client.admin('GET', 'health')).json;
    expect(health).toMatchObject({ payouts: 0, ledger: 0 });
  });

  it('rejects delay_ms without commit_late, or out of range', async () => {
    expect((await client.admin('POST', 'faults', { mode: 'error500', delay_ms: 10 })).status).toBe(400);
    expect((await client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: -1 })).status).toBe(400);
  });
});

describe('commit_late and stopping', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payops-sandbox-late-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('close() returns promptly and drops a pending commit: never applied, not even after a restart', async () => {
    const first = await withSandbox({ dataDir: dir });
    const [o] = (await first.client.createOrders(1, '3000', 'USD', { amount: '20.00' })) as Row[];
    const key = {
      transaction_id: o!.transaction_id!,
      order_no: o!.order_no!,
      currency: 'USD',
      amount: '20.00',
    };
    await first.client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: 1000 });
    const a = await first.client.batch('/v1/refund', 'refund_orders', [refundOf(key, '5.00')]);
    expect(a.status).toBe(500);
    const started = Date.now();
    await first.sandbox.close();
    expect(Date.now() - started).toBeLessThan(1000);
    // Past the delay: the timer was cleared, so nothing ran against the closed store and journal.
    const warnings = vi.spyOn(process, 'emitWarning');
    try {
      await new Promise((r) => setTimeout(r, 1200));
      expect(warnings).not.toHaveBeenCalled();
    } finally {
      warnings.mockRestore();
    }
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).not.toContain('"e":"refund"');

    const second = await withSandbox({ dataDir: dir });
    try {
      expect(await second.client.ledger()).toEqual([]);
      expect(await statusOf(second.client, key.transaction_id)).toBe('3000');
    } finally {
      await second.sandbox.close();
    }
  });

  it('a commit that lands is journaled like any request', async () => {
    const s = await withSandbox({ dataDir: dir });
    try {
      await s.client.admin('POST', 'faults', { mode: 'commit_late', delay_ms: 50 });
      const body = payoutBody();
      expect((await s.client.post('/v1/payout', body)).status).toBe(500);
      await waitUntil(async () => (await lateCommits(s.client)) === 0);
      expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).toContain(body.request_id as string);
    } finally {
      await s.sandbox.close();
    }
  });
});

describe('status_zero', () => {
  it('processes the batch and answers return_status 0 with every per-order result, signed', async () => {
    const key = await captured('100.00');
    const other = await captured('10.00');
    await client.admin('POST', 'faults', { mode: 'status_zero' });
    const a = await client.batch('/v1/refund', 'refund_orders', [
      refundOf(key, '40.00'),
      refundOf(other, '11.00'), // more than its balance: refused on its own
      refundOf(other, '4.00'),
    ]);
    expect(a.status).toBe(200);
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toBe('E9001:temporarily unavailable');
    expect(signatureValid(a.json)).toBe(true);
    const results = a.json.refund_orders as Row[];
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({
      transaction_id: key.transaction_id,
      refund_status: '1',
      refund_amount: '40.00',
      refund_reference_id: `${key.transaction_id}-01`,
      refund_message: '0000:Refund accepted',
    });
    expect(results[0]!.refund_reference).toMatch(/^RF\d+$/);
    expect(results[1]).toMatchObject({ transaction_id: other.transaction_id, refund_status: '0' });
    expect(results[1]!.refund_message).toMatch(/^E2004:/);
    expect(results[2]).toMatchObject({
      transaction_id: other.transaction_id,
      refund_status: '1',
      refund_reference_id: `${other.transaction_id}-01`,
    });
    // The money moved for the two accepted refunds, exactly as the elements say.
    const ledger = await client.ledger();
    expect(ledger.map((l) => [l.transaction_id, l.refund_amount])).toEqual([
      [key.transaction_id, '40.00'],
      [other.transaction_id, '4.00'],
    ]);
  });

  it('every batch operation: capture moves the order although return_status is 0', async () => {
    const [o] = (await client.createOrders(1, '2000', 'USD', { amount: '12.00' })) as Row[];
    await client.admin('POST', 'faults', { mode: 'status_zero' });
    const a = await client.batch('/v1/capture', 'capture_orders', [
      { transaction_id: o!.transaction_id!, order_no: o!.order_no!, currency: 'USD', amount: '12.00' },
    ]);
    expect(a.json.return_status).toBe('0');
    expect((a.json.capture_orders as Row[])[0]!.capture_status).toBe('1');
    expect(signatureValid(a.json)).toBe(true);
    expect(await statusOf(client, o!.transaction_id!)).toBe('3000');
  });

  it('a whole-request rejection is answered as always (its own code, no elements)', async () => {
    const key = await captured();
    await client.admin('POST', 'faults', { mode: 'status_zero' });
    const body = { ...signed({ refund_orders: [refundOf(key, '1.00')] }), encryption_data: '0'.repeat(64) };
    const a = await client.post('/v1/refund', body);
    expect(a.json).toMatchObject({ return_status: '0', refund_orders: [] });
    expect(a.json.return_message).toMatch(/^E1001:/);
    expect(await client.ledger()).toEqual([]);
  });

  it('leaves the endpoints without per-order results alone', async () => {
    await client.admin('POST', 'faults', { mode: 'status_zero' });
    expect((await client.post('/v1/payout', payoutBody())).json.status).toBe('COMPLETED');
    expect((await client.search('/v1/retrievalRefund', {})).json.return_status).toBe('1');
  });
});
