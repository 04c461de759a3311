// The look-ups before a run (preflight.ts) read the row cache by position — only the ids of most
// rows — or any stream of rows (a file read again, the rows a resumed run has not sent). Whichever
// source, they must ask the same requests and find the same rows done.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOOKUP_TRIES, lookUpConcurrency, persist, preflight } from '../../../src/bulk/check/preflight.js';
import { inputRows } from '../../../src/bulk/input.js';
import { planBulk } from '../../../src/bulk/plan/plan.js';
import { RowCache } from '../../../src/bulk/plan/row-cache.js';
import { AuthError, GatewayError, GatewayRejectedError, TransportError } from '../../../src/errors.js';
import type { BatchOperation } from '../../../src/gateway/endpoints.js';
import { DEFAULT_READ_AS } from '../../../src/tabular/read-as.js';
import { fakeGateway } from './fake-gateway.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payops-preflight-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The same file's rows three ways: the row cache by position, its rows() and the file again. */
async function sources(op: BatchOperation, text: string) {
  const path = join(dir, `${op}.csv`);
  await writeFile(path, text);
  // Refund rows without a reason take one, as with --refund-reason (the gateway requires it).
  const source = { path, label: `${op}.csv`, readAs: { ...DEFAULT_READ_AS, refundReason: 'given' } };
  const cache = new RowCache();
  await planBulk(op, source, {}, cache);
  expect(cache.complete).toBe(true);
  return { cache, rows: () => cache.rows(), file: () => inputRows(op, source) };
}

/** Runs preflight on a fresh copy of the gateway; the result and the ids asked, per request. */
async function lookUp(
  op: BatchOperation,
  gw: ReturnType<typeof fakeGateway>,
  rows: Parameters<typeof preflight>[2],
  concurrency: number,
) {
  gw.calls.length = 0;
  const result = await preflight(op, gw.client, rows, concurrency);
  return { result, asked: gw.calls.map((c) => String(c.body.transaction_id)) };
}

describe('preflight', () => {
  it('asks the same look-ups and finds the same refunds from the row cache as from the file', async () => {
    // 260 rows over 240 orders: ids repeat across the 100-id cut, and some orders are refunded
    // already — the same amount and reason (done), another reason (not done), twice (two rows).
    const gw = fakeGateway(240);
    const lines: string[] = [];
    for (let i = 0; i < 260; i++) {
      const n = (i % 240) + 1;
      const reason = n % 7 === 0 ? 'other' : 'dup';
      lines.push(`T${String(n).padStart(5, '0')},O${n},USD,10.00,${i < 240 ? '1.00' : '2.00'},${reason}`);
    }
    for (const n of [3, 7, 50, 99, 100, 101, 150, 233, 5]) {
      gw.refunds.push({
        transaction_id: `T${String(n).padStart(5, '0')}`,
        order_no: `O${n}`,
        amount: '10.00',
        currency: 'USD',
        refund_amount: n === 5 ? '2.00' : '1.00',
        refund_reason: n === 7 ? 'other' : 'dup',
        refund_reference_id: `T${String(n).padStart(5, '0')}-01`,
        refund_date: '20261123101502',
      });
    }
    const text = `transaction_id,order_no,currency,amount,refund_amount,refund_reason\n${lines.join('\n')}\n`;
    const s = await sources('refund', text);

    const byPosition = await lookUp('refund', gw, s.cache, 4);
    expect(byPosition.asked.length).toBe(3);
    expect(byPosition.asked.map((ids) => ids.split(',').length)).toEqual([100, 100, 60]);
    expect(byPosition.result.done.map((d) => d.line).sort((a, b) => a - b)).toEqual(
      [3, 7, 50, 99, 100, 101, 150, 233].map((n) => n + 1).concat([245 + 1]),
    );
    expect(byPosition.result.done.find((d) => d.line === 4)?.where).toBe(
      'refund T00003-01 of 2026-11-23 10:15:02',
    );
    expect(Object.keys(byPosition.result.before)).toHaveLength(9);
    for (const [name, rows] of [
      ['rows()', s.rows()],
      ['file', s.file()],
    ] as const) {
      const other = await lookUp('refund', gw, rows, 4);
      expect(other, name).toEqual(byPosition);
    }
    // The order of answers does not depend on how many are in flight.
    expect(await lookUp('refund', gw, s.cache, 1)).toEqual(byPosition);
  });

  it('compares reasons by meaning; a refund of the same amount with another reason makes one row possibly done, after every exact match (issue 23)', async () => {
    const gw = fakeGateway(150);
    const refund = (n: number, amount: string, reason: string) =>
      gw.refunds.push({
        transaction_id: `T${String(n).padStart(5, '0')}`,
        order_no: `O${n}`,
        amount: '10.00',
        currency: 'USD',
        refund_amount: amount,
        refund_reason: reason,
        refund_reference_id: `T${String(n).padStart(5, '0')}-0${gw.refunds.length + 1}`,
        refund_date: '20261123101502',
      });
    refund(1, '1.00', 'goodwill');
    refund(5, '1.00', 'goodwill');
    refund(7, '2.00', 'damaged');
    // Made with a zero-width space and a capital (payops refuses such a reason now; an older run or
    // the portal may have sent it): the row "r" is that refund.
    refund(10, '1.00', 'R\u200b');
    const lines = ['T00001,O1,USD,10.00,1.00,shipping'];
    for (let n = 2; n <= 150; n++) lines.push(`T${String(n).padStart(5, '0')},O${n},USD,10.00,1.00,r`);
    // The row of T00001's refund comes last, re-typed, in the second look-up.
    lines.push('T00001,O1,USD,10.00,1.00,GOODWILL');
    const text = `transaction_id,order_no,currency,amount,refund_amount,refund_reason\n${lines.join('\n')}\n`;
    const s = await sources('refund', text);
    for (const rows of [s.cache, s.rows(), s.file()]) {
      const { result, asked } = await lookUp('refund', gw, rows, 2);
      expect(asked).toHaveLength(2);
      expect(result.done).toEqual([
        {
          line: 6,
          ref: 'T00005-02',
          possible: true,
          tx: 'T00005',
          where:
            'refund T00005-02 of 2026-11-23 10:15:02, reason "goodwill" (the same amount, another reason)',
        },
        { line: 11, ref: 'T00010-04', where: 'refund T00010-04 of 2026-11-23 10:15:02' },
        { line: 152, ref: 'T00001-01', where: 'refund T00001-01 of 2026-11-23 10:15:02' },
      ]);
      expect(result.partly).toEqual([
        { line: 2, where: 'order O1 has 1 other refund at the gateway (USD 1.00): USD 9.00 left to refund' },
        { line: 8, where: 'order O7 has 1 other refund at the gateway (USD 2.00): USD 8.00 left to refund' },
      ]);
    }
  });

  it('keeps more look-ups in flight than the run sends at once, within bounds', async () => {
    expect([1, 2, 4, 8, 32].map(lookUpConcurrency)).toEqual([4, 8, 16, 16, 32]);
    const gw = fakeGateway(2000);
    const lines = Array.from(
      { length: 2000 },
      (_, i) => `T${String(i + 1).padStart(5, '0')},O${i + 1},USD,10.00,1.00,r`,
    );
    const s = await sources(
      'refund',
      `transaction_id,order_no,currency,amount,refund_amount,refund_reason\n${lines.join('\n')}\n`,
    );
    const send = gw.client.send;
    let inFlight = 0;
    let most = 0;
    gw.client.send = (async (op: never, body: never) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return send(op, body);
    }) as typeof send;
    const r = await preflight('refund', gw.client, s.cache, 2);
    expect(r.requests).toBe(20);
    expect(most).toBe(8);
  });

  it('finds the same orders done by query from the row cache as from the file', async () => {
    const gw = fakeGateway(150, '2000');
    for (const n of [1, 60, 149]) gw.orders.get(`T${String(n).padStart(5, '0')}`)!.status = '3000';
    const lines = Array.from({ length: 150 }, (_, i) => {
      const n = i + 1;
      return `T${String(n).padStart(5, '0')},O${n},USD,10.00`;
    });
    const s = await sources('capture', `transaction_id,order_no,currency,amount\n${lines.join('\n')}\n`);
    const byPosition = await lookUp('capture', gw, s.cache, 4);
    expect(byPosition.result.done.map((d) => d.line)).toEqual([2, 61, 150]);
    expect(byPosition.result.done[0]?.where).toMatch(/^the order is already 3000/);
    expect(await lookUp('capture', gw, s.file(), 4)).toEqual(byPosition);
  });
});

describe('look-ups cut by pass 1', () => {
  it('are the batches cut from the ids read back, for any run of ids and limit', () => {
    // The reference rule: a new look-up starts where a new id would make one more than `limit`.
    const reference = (ids: string[], limit: number) => {
      const out: Array<{ ids: string; from: number; to: number }> = [];
      let from = 0;
      let open = new Set<string>();
      ids.forEach((id, i) => {
        if (!open.has(id) && open.size === limit) {
          out.push({ ids: [...open].join(','), from, to: i });
          from = i;
          open = new Set();
        }
        open.add(id);
      });
      if (open.size > 0) out.push({ ids: [...open].join(','), from, to: ids.length });
      return out;
    };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('T1', 'T2', 'T3', 'T4', 'T5', 'Tü6', 'T7'), { maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        (ids, limit) => {
          // Told which rows are the first of their transaction (as pass 1 does), or not told.
          for (const told of [true, false]) {
            const cache = new RowCache();
            cache.cutLookUps(limit);
            const seen = new Set<string>();
            ids.forEach((id, i) => {
              cache.add(
                {
                  line: i + 2,
                  transaction_id: id,
                  order_no: `O${id}`,
                  currency: 'USD',
                  amount: '1.00',
                  amountMinor: 100n,
                },
                [id, `O${id}`, 'USD', '1.00'],
                told && !seen.has(id),
              );
              seen.add(id);
            });
            expect(cache.lookUpBatches(limit)).toEqual(reference(ids, limit));
            expect(cache.lookUpBatches(limit + 1)).toBeUndefined();
          }
        },
      ),
    );
    expect(new RowCache().lookUpBatches(100)).toBeUndefined();
  });
});

describe('row cache by position', () => {
  it('gives each row and its transaction id as rows() does', async () => {
    const text =
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason,note\n' +
      'T1,O1,USD,10.00,1.00,"räson ✓",x\n' +
      'Tü2,O2,EUR,3.00,3.00,,T1\n' +
      '"T3",O3,JPY,5,5,r,"multi\nline"\n';
    const { cache } = await sources('refund', text);
    const all = [...cache.rows()];
    expect(all.map((_, i) => cache.rowAt(i))).toEqual(all);
    expect(all.map((_, i) => cache.transactionIdAt(i))).toEqual(['T1', 'Tü2', 'T3']);
    expect(() => cache.rowAt(3)).toThrow(RangeError);
    expect(() => cache.transactionIdAt(-1)).toThrow(RangeError);
  });
});

describe('persist: a look-up made again after a passing failure', () => {
  it('does not make again a look-up the transport already gave up on slowly: a timeout or an answer too large (issue 16)', async () => {
    // A trickling answer costs a whole --timeout per attempt: the transport's three attempts are the
    // bound, not five times three.
    for (const code of ['timeout', 'too_large']) {
      let calls = 0;
      const err = new GatewayError('no complete answer within 30000 ms', { code });
      await expect(
        persist(
          async () => {
            calls++;
            throw err;
          },
          async () => undefined,
        ),
      ).rejects.toBe(err);
      expect(calls, code).toBe(1);
    }
  });

  it('tries again after 5xx, garbled answers, unreachable and E9001, then gives up after LOOKUP_TRIES', async () => {
    const passing = [
      new TransportError('connection refused'),
      new GatewayError('HTTP 500', { status: 500 }),
      new GatewayError('could not be read as JSON', { status: 200 }),
      new GatewayRejectedError('busy', { code: 'E9001' }),
    ];
    let calls = 0;
    const pauses: number[] = [];
    const value = await persist(
      async () => {
        const err = passing[calls++];
        if (err) throw err;
        return 'found';
      },
      async (ms) => {
        pauses.push(ms);
      },
    );
    expect(value).toBe('found');
    expect(calls).toBe(5);
    expect(pauses).toEqual([250, 500, 1000, 2000]);
    let tries = 0;
    await expect(
      persist(
        async () => {
          tries++;
          throw new GatewayError('HTTP 502', { status: 502 });
        },
        async () => {},
      ),
    ).rejects.toThrow(/502/);
    expect(tries).toBe(LOOKUP_TRIES);
  });

  it('fails at once for refused credentials, a rejected request or a definite 4xx', async () => {
    for (const err of [
      new AuthError('invalid signature'),
      new GatewayRejectedError('bad field', { code: 'E1005' }),
      new GatewayError('HTTP 400', { status: 400 }),
    ]) {
      let tries = 0;
      await expect(
        persist(
          async () => {
            tries++;
            throw err;
          },
          async () => {},
        ),
      ).rejects.toBe(err);
      expect(tries).toBe(1);
    }
  });
});
