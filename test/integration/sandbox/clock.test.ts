// POST /_sandbox/clock: the sandbox's clock ahead of or behind ours, for every timestamp it writes
// and so for every date filter; 0 resets; reset restores it; a restart starts on the real clock.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, signed, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await client.admin('POST', 'reset');
});

const MINUTE = 60_000;
/** A loaded machine answers slowly: compare times to within this. */
const SLACK = 5_000;

type Row = Record<string, string>;

/** YYYYMMDDhhmmss UTC, the gateway's compact time. */
function compact(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
function fromCompact(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text)!;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}
/** YYYY-MM-DDThh:mm:ss+0000, the payout's time. */
function fromOffsetTime(text: string): number {
  return Date.parse(text.replace('+0000', 'Z'));
}

async function refundOne(c: Client, amount = '1.00'): Promise<Row> {
  const [o] = (await c.createOrders(1, '3000', 'USD', { amount: '50.00' })) as Row[];
  const a = await c.batch('/v1/refund', 'refund_orders', [
    {
      transaction_id: o!.transaction_id,
      order_no: o!.order_no,
      currency: 'USD',
      amount: '50.00',
      refund_amount: amount,
      refund_reason: 'clock test',
    },
  ]);
  const r = (a.json.refund_orders as Row[])[0]!;
  expect(r.refund_status).toBe('1');
  return r;
}

async function refundsOf(c: Client, txn: string, range: Record<string, string> = {}): Promise<Row[]> {
  const a = await c.search('/v1/retrievalRefund', { transaction_id: txn, ...range });
  expect(a.json.return_status).toBe('1');
  return a.json.refund_orders as Row[];
}

function payoutBody(): Json {
  return signed({
    request_id: randomUUID(),
    payment_amount: '5.00',
    payment_currency: 'USD',
    payment_method: 'SWIFT',
    payer: { entity_type: 'COMPANY' },
    beneficiary: { entity_type: 'COMPANY', bank_details: { account_name: 'A', account_number: '1' } },
  });
}

describe('the sandbox clock', () => {
  it('GET /_sandbox/clock: offset 0 and the real time at start', async () => {
    const a = await client.admin('GET', 'clock');
    expect(a.status).toBe(200);
    expect(a.json.offset_ms).toBe(0);
    expect(Math.abs((a.json.now_ms as number) - Date.now())).toBeLessThan(SLACK);
    expect(Date.parse(a.json.now as string)).toBe(a.json.now_ms);
  });

  it('10 minutes behind: order, refund, ledger and payout times are 10 minutes behind ours', async () => {
    const set = await client.admin('POST', 'clock', { offset_ms: -10 * MINUTE });
    expect(set.status).toBe(200);
    expect(set.json.offset_ms).toBe(-10 * MINUTE);
    expect(Math.abs((set.json.now_ms as number) - (Date.now() - 10 * MINUTE))).toBeLessThan(SLACK);
    expect((await client.admin('GET', 'clock')).json.offset_ms).toBe(-10 * MINUTE);
    expect((await client.admin('GET', 'health')).json.clock_offset_ms).toBe(-10 * MINUTE);

    const expected = Date.now() - 10 * MINUTE;
    const r = await refundOne(client);
    const [refund] = await refundsOf(client, r.transaction_id!);
    expect(Math.abs(fromCompact(refund!.refund_date!) - expected)).toBeLessThan(SLACK);
    const q = await client.search('/v1/retrievalTrans', { transaction_id: r.transaction_id! });
    const order = (q.json.orders_list as Row[])[0]!;
    expect(Math.abs(fromCompact(order.transaction_date!) - expected)).toBeLessThan(SLACK);
    const p = await client.post('/v1/payout', payoutBody());
    expect(Math.abs(fromOffsetTime(p.json.created_at as string) - expected)).toBeLessThan(SLACK);
    expect(Math.abs(fromOffsetTime(p.json.last_updated_at as string) - expected)).toBeLessThan(SLACK);
    const ledger = await client.ledger();
    expect(ledger.map((l) => l.kind)).toEqual(['refund', 'payout']);
    for (const l of ledger) expect(Math.abs(Date.parse(l.at as string) - expected)).toBeLessThan(SLACK);
  });

  it("date filters compare with the sandbox's times: a refund made 10 minutes behind is before our 'now - 2 min'", async () => {
    await client.admin('POST', 'clock', { offset_ms: -10 * MINUTE });
    const r = await refundOne(client);
    const txn = r.transaction_id!;
    expect(await refundsOf(client, txn, { start_date: compact(Date.now() - 2 * MINUTE) })).toEqual([]);
    const wide = await refundsOf(client, txn, { start_date: compact(Date.now() - 12 * MINUTE) });
    expect(wide.map((x) => x.refund_reference_id)).toEqual([r.refund_reference_id]);
    // The order itself is dated on that clock too.
    const q = await client.search('/v1/retrievalTrans', {
      transaction_id: txn,
      start_date: compact(Date.now() - 2 * MINUTE),
    });
    expect(q.json.orders_list).toEqual([]);
  });

  it("10 minutes ahead: a refund made now is after our 'now' (end_date leaves it out)", async () => {
    await client.admin('POST', 'clock', { offset_ms: 10 * MINUTE });
    const r = await refundOne(client);
    const txn = r.transaction_id!;
    expect(await refundsOf(client, txn, { end_date: compact(Date.now()) })).toEqual([]);
    const [refund] = await refundsOf(client, txn, { end_date: compact(Date.now() + 12 * MINUTE) });
    expect(Math.abs(fromCompact(refund!.refund_date!) - (Date.now() + 10 * MINUTE))).toBeLessThan(SLACK);
  });

  it('offset 0 resets; times already recorded keep their value', async () => {
    await client.admin('POST', 'clock', { offset_ms: -10 * MINUTE });
    const before = await refundOne(client);
    const reset = await client.admin('POST', 'clock', { offset_ms: 0 });
    expect(reset.json.offset_ms).toBe(0);
    const after = await refundOne(client);
    const [old] = await refundsOf(client, before.transaction_id!);
    const [fresh] = await refundsOf(client, after.transaction_id!);
    expect(Math.abs(fromCompact(old!.refund_date!) - (Date.now() - 10 * MINUTE))).toBeLessThan(SLACK);
    expect(Math.abs(fromCompact(fresh!.refund_date!) - Date.now())).toBeLessThan(SLACK);
  });

  it('POST /_sandbox/reset puts the clock back on the real time', async () => {
    await client.admin('POST', 'clock', { offset_ms: 3_600_000 });
    await client.admin('POST', 'reset');
    expect((await client.admin('GET', 'clock')).json.offset_ms).toBe(0);
  });

  it('rejects a bad offset with 400 E1005 and keeps the one it had', async () => {
    await client.admin('POST', 'clock', { offset_ms: 1000 });
    for (const body of [{}, { offset_ms: '60000' }, { offset_ms: 0.5 }, { offset_ms: 1e15 }]) {
      const a = await client.admin('POST', 'clock', body);
      expect(a.status).toBe(400);
      expect(a.json.code).toBe('E1005');
      expect(a.json.message).toMatch(/offset_ms/);
    }
    expect((await client.admin('GET', 'clock')).json.offset_ms).toBe(1000);
  });

  it('is never faulted (an admin endpoint)', async () => {
    await client.admin('POST', 'faults', { mode: 'error500' });
    expect((await client.admin('POST', 'clock', { offset_ms: 5 })).status).toBe(200);
  });
});

describe('the clock and --data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payops-sandbox-clock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the offset is not persisted; the times it stamped are', async () => {
    const first = await withSandbox({ dataDir: dir });
    let txn: string;
    let refundDate: string;
    try {
      await first.client.admin('POST', 'clock', { offset_ms: -10 * MINUTE });
      txn = (await refundOne(first.client)).transaction_id!;
      refundDate = (await refundsOf(first.client, txn))[0]!.refund_date!;
    } finally {
      await first.sandbox.close();
    }
    const second = await withSandbox({ dataDir: dir });
    try {
      expect((await second.client.admin('GET', 'clock')).json.offset_ms).toBe(0);
      expect((await refundsOf(second.client, txn))[0]!.refund_date).toBe(refundDate);
      expect(Math.abs(fromCompact(refundDate) - (Date.now() - 10 * MINUTE))).toBeLessThan(SLACK);
    } finally {
      await second.sandbox.close();
    }
  });
});
