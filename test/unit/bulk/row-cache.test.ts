import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chunkRows } from '../../../src/bulk/engine/chunk.js';
import { inputRows } from '../../../src/bulk/input.js';
import { planBulk } from '../../../src/bulk/plan/plan.js';
import { RowCache } from '../../../src/bulk/plan/row-cache.js';
import type { BatchOperation } from '../../../src/gateway/endpoints.js';
import { DEFAULT_READ_AS } from '../../../src/tabular/read-as.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payops-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bothWays(op: BatchOperation, text: string, budget?: number) {
  const path = join(dir, `${op}.csv`);
  await writeFile(path, text);
  // Refund rows without a reason take one, as with --refund-reason (the gateway requires it).
  const source = { path, label: `${op}.csv`, readAs: { ...DEFAULT_READ_AS, refundReason: 'given' } };
  const cache = new RowCache(budget);
  const plan = await planBulk(op, source, {}, cache);
  const reread = [];
  for await (const r of inputRows(op, source)) reread.push(r);
  return { plan, cache, reread };
}

describe('row cache', () => {
  it('gives refund rows exactly as reading the file again would', async () => {
    const text =
      '\uFEFFTransaction_ID;order_no;currency;amount;refund_amount;refund_reason;Note\r\n' +
      ' T1 ;O1;usd;10;2.5;"late; again";"=x"\r\n' +
      '\r\n' +
      'T2;O2;JPY;1200;1200;;\r\n' +
      // A reason never holds a line break (validate.ts refuses it); another cell may.
      'T3;O3;KWD;1.5;0.250;n;"multi\nline"\r\n';
    const { cache, reread, plan } = await bothWays('refund', text);
    expect(cache.complete).toBe(true);
    expect(cache.size).toBe(plan.rows);
    const cached = [...cache.rows()];
    expect(cached).toEqual(reread.map((r) => ({ ...r })));
    expect(cached[0]).toMatchObject({
      currency: 'USD',
      amountMinor: 1000n,
      refundMinor: 250n,
      refund_amount: '2.50',
    });
    expect(cached[2]).toMatchObject({
      line: 5,
      amountMinor: 1500n,
      refundMinor: 250n,
      refund_reason: 'n',
    });
  });

  it('cuts its rows into the same chunks as chunkRows, each knowing its lines and building its rows once until released', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `T${i},O${i},USD,${i + 1}.00,1.00,r${i}`);
    const { cache } = await bothWays(
      'refund',
      `transaction_id,order_no,currency,amount,refund_amount,refund_reason\n${lines.join('\n')}\n`,
    );
    const expected = [];
    for await (const c of chunkRows(cache.rows(), 50)) expected.push(c);
    const chunks = [...cache.chunks(50)];
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(chunks.map((c) => c.lines)).toEqual(expected.map((c) => c.rows.map((r) => r.line)));
    const first = chunks[0]!;
    const rows = first.rows;
    expect(rows).toEqual(expected[0]!.rows);
    // Built once: the engine reads them when sending and again when writing the results.
    expect(first.rows).toBe(rows);
    // Released once its outcomes are out, a chunk keeps nothing; read again, the same rows.
    first.release?.();
    expect(first.rows).not.toBe(rows);
    expect(first.rows).toEqual(rows);
    expect(chunks[2]!.rows.map((r) => r.transaction_id)).toEqual(
      lines.slice(100).map((l) => l.split(',')[0]),
    );
  });

  it('gives review and capture rows exactly as reading the file again would', async () => {
    for (const [op, text] of [
      ['review', 'transaction_id,order_no,currency,amount,review_flag\nT1,O1,EUR,5,1\nT2,O2,EUR,6.10,0\n'],
      ['capture', 'transaction_id,order_no,currency,amount,extra\nT1,O1,USD,5,\nT2,O2,USD,7.00,x\n'],
    ] as const) {
      const { cache, reread } = await bothWays(op, text);
      expect([...cache.rows()], op).toEqual(reread.map((r) => ({ ...r })));
    }
  });

  it('drops everything beyond its budget, or when a cell holds its separator', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `T${i},O${i},USD,10.00,1.00,r\n`).join('');
    const head = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason\n';
    const small = await bothWays('refund', head + rows, 500);
    expect(small.cache.complete).toBe(false);
    expect(small.cache.size).toBe(0);
    expect(() => [...small.cache.rows()]).toThrow();
    const nul = await bothWays(
      'refund',
      `${head.replace('\n', ',note\n')}T1,O1,USD,10.00,1.00,r,"a\u0000b"\n`,
    );
    expect(nul.cache.complete).toBe(false);
  });

  it('keeps text that looks like its own markup exactly', async () => {
    // In cells beside the reason: a reason never holds a control character (validate.ts).
    const head = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason,note,more\n';
    const { cache, reread } = await bothWays(
      'refund',
      `${head}T1,O1,USD,10.00,1.00,r,\u00021,@A\nT2,O2,USD,10.00,1.00,0123,\u0001\u0002,\u0003\n`,
    );
    expect(cache.complete).toBe(true);
    expect([...cache.rows()]).toEqual(reread.map((r) => ({ ...r })));
  });

  it('keeps rows whose cells repeat other fields than the first row’s do', async () => {
    const head = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason,copy\n';
    const rows = Array.from({ length: 120 }, (_, i) => {
      const copy = ['', `T${i}`, `O${i}`, 'USD', '10.00', `own ${i}`][i % 6];
      return `T${i},O${i},USD,10.00,${i % 3 === 0 ? '10.00' : '1.00'},r${i % 4},${copy}\n`;
    }).join('');
    const { cache, reread } = await bothWays('refund', head + rows);
    expect(cache.complete).toBe(true);
    expect([...cache.rows()]).toEqual(reread.map((r) => ({ ...r })));
  });

  it('keeps cells that repeat a field, differ from it, or hold non-ASCII text exactly', async () => {
    const text =
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason,copy,note\n' +
      'T1,O1,USD,10.00,10.00,"räson ✓",T1,10.00\n' +
      'T2,O2, usd ,10,1,O2,O2,"1,0"\n' +
      'T3,O3,EUR,3.00,3.00,,,\n' +
      // Amounts of every length: up to 15 characters are summed by hand, longer ones by BigInt.
      'T4,O4,JPY,123456789012345,123456789012345,,,\n' +
      'T5,O5,USD,999999999999999.99,999999999999.99,,,\n' +
      'T6,O6,KWD,0.001,0.001,,,\n';
    const { cache, reread } = await bothWays('refund', text);
    expect(cache.complete).toBe(true);
    expect([...cache.rows()]).toEqual(reread.map((r) => ({ ...r })));
  });
});
