import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inlineCsv } from '../../../src/bulk/input.js';
import { parseMaxAmount, planBulk } from '../../../src/bulk/plan/plan.js';
import { RowCache } from '../../../src/bulk/plan/row-cache.js';
import { exitCodeForTotals, newTotals, resultCells, resultLayout } from '../../../src/bulk/report/results.js';
import { InputError, UsageError } from '../../../src/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payops-plan-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(text: string): Promise<{ path: string; label: string }> {
  const path = join(dir, 'in.csv');
  await writeFile(path, text);
  return { path, label: 'in.csv' };
}

const HEAD = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason\n';

describe('plan', () => {
  it('counts rows, requests and totals per currency without keeping rows', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `T${i},O${i},${i % 2 ? 'EUR' : 'usd'},10.00,2.50,r\n`);
    const plan = await planBulk('refund', await file(HEAD + rows.join('')));
    expect(plan.rows).toBe(120);
    expect(plan.requests).toBe(3);
    expect(plan.chunkSize).toBe(50);
    expect(plan.moving).toEqual(
      new Map([
        ['USD', 15000n],
        ['EUR', 15000n],
      ]),
    );
    expect(plan.amounts).toEqual(
      new Map([
        ['USD', 60000n],
        ['EUR', 60000n],
      ]),
    );
    expect(plan.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.columns).toEqual(HEAD.trim().split(','));
  });

  it('totals each currency in the order currencies first appear, whatever their runs', async () => {
    const cur = ['USD', 'usd', 'EUR', 'JPY', 'USD', 'EUR', 'EUR', 'jpy', 'USD'];
    const rows = cur.map(
      (c, i) => `T${i},O${i},${c},${c.toUpperCase() === 'JPY' ? '100' : '10.00'},${i + 1},r\n`,
    );
    const plan = await planBulk('refund', await file(HEAD + rows.join('')));
    expect([...plan.amounts]).toEqual([
      ['USD', 4000n],
      ['EUR', 3000n],
      ['JPY', 200n],
    ]);
    expect([...plan.moving]).toEqual([
      ['USD', 100n + 200n + 500n + 900n],
      ['EUR', 300n + 600n + 700n],
      ['JPY', 4n + 8n],
    ]);
  });

  it('has the same content key whether the rows are kept (key read from their bytes) or not', async () => {
    const id = fc.oneof(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,9}$/),
      fc.constantFrom('Tü1', 'T€2', 'T😀3'),
    );
    const amount = fc.constantFrom('10', '10.00', '0.05', '0.5', '010.50', ' 7 ', '1000', '0.001', '99.9');
    const reason = fc.oneof(
      fc.constantFrom('', 'bench', 'late', 'räson ✓', 'a,b'),
      fc.string({ maxLength: 6 }),
    );
    const row = fc.record({
      tx: id,
      cur: fc.constantFrom('USD', 'usd', 'JPY', 'KWD', 'eur'),
      amount,
      reason,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(row, { minLength: 1, maxLength: 12, selector: (r) => r.tx }),
        fc.constantFrom('refund', 'capture', 'review'),
        async (rows, op) => {
          const head =
            op === 'refund'
              ? 'transaction_id,order_no,currency,amount,refund_amount,refund_reason,note'
              : op === 'review'
                ? 'transaction_id,order_no,currency,amount,review_flag'
                : 'transaction_id,order_no,currency,amount';
          const csv = (v: string) => `"${v.replace(/"/g, '""')}"`;
          const lines = rows.map((r, i) => {
            const base = [r.tx, `O-${r.tx}`, r.cur, r.amount];
            if (op === 'refund') base.push(r.amount, r.reason, `n${i}`);
            if (op === 'review') base.push(String(i % 2));
            return base.map(csv).join(',');
          });
          const source = await file(`${head}\n${lines.join('\n')}\n`);
          const plain = await planBulk(op, source).catch((e: unknown) => e as Error);
          const cache = new RowCache();
          const kept = await planBulk(op, source, {}, cache).catch((e: unknown) => e as Error);
          if (plain instanceof Error || kept instanceof Error) {
            // Amounts a currency cannot have (JPY with decimals…): refused either way.
            expect(plain).toBeInstanceOf(Error);
            expect(kept).toBeInstanceOf(Error);
            return;
          }
          expect(cache.complete).toBe(true);
          expect(kept.content).toBe(plain.content);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reports every problem of the file in one InputError', async () => {
    const err = await planBulk(
      'refund',
      await file(`${HEAD}T1,O1,USD,10.00,1,5,r\nT2,O2,USD,abc,1.00,r\nT3,O3,USD,10.00,1.00,r\n`),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect([...new Set((err as InputError).problems.map((p) => p.line))]).toEqual([2, 3]);
  });

  it('refuses a file with only a header', async () => {
    await expect(planBulk('refund', await file(HEAD))).rejects.toThrow(/no orders/);
  });

  it('enforces --max-orders and --max-amount', async () => {
    const src = await file(`${HEAD}T1,O1,USD,10.00,6.00,r\nT2,O2,EUR,10.00,6.00,r\n`);
    await expect(planBulk('refund', src, { maxOrders: 1 })).rejects.toThrow(/more than --max-orders 1/);
    await expect(planBulk('refund', src, { maxAmounts: [parseMaxAmount('USD:100')] })).rejects.toThrow(
      /no limit for EUR/,
    );
    await expect(
      planBulk('refund', src, { maxAmounts: [parseMaxAmount('USD:5.99'), parseMaxAmount('EUR:100')] }),
    ).rejects.toThrow(/more than --max-amount USD 5\.99/);
    const ok = await planBulk('refund', src, {
      maxAmounts: [parseMaxAmount('usd:6'), parseMaxAmount('EUR:6')],
    });
    expect(ok.rows).toBe(2);
  });

  it('names the flag, not a line, for one order given by flags', async () => {
    const path = join(dir, 'order.csv');
    await writeFile(
      path,
      inlineCsv([
        ['transaction_id', 'T1'],
        ['order_no', 'O1'],
        ['currency', 'USD'],
        ['amount', '10.00'],
        ['refund_amount', '1,5'],
        ['refund_reason', ''],
      ]),
    );
    const err = (await planBulk('refund', { path, label: 'flags', inline: true }).catch(
      (e) => e,
    )) as InputError;
    expect(err.problems[0]).toMatchObject({ field: '--refund-amount' });
    expect(err.problems[0]!.line).toBeUndefined();
  });
});

describe('--max-amount', () => {
  it('parses CUR:AMOUNT into minor units and refuses anything else', () => {
    expect(parseMaxAmount('USD:5000')).toEqual({ currency: 'USD', minor: 500000n });
    expect(parseMaxAmount(' jpy : 1200 ')).toEqual({ currency: 'JPY', minor: 1200n });
    for (const bad of ['5000', 'USD', 'USD:1,000', 'XYZ:10', 'USD:-1', 'USD:1.001']) {
      expect(() => parseMaxAmount(bad), bad).toThrow(UsageError);
    }
  });
});

describe('result rows', () => {
  it('shows in the table the columns a dashboard file names otherwise (an alias or --columns)', () => {
    const header = ['Transaction ID', 'Order No.', 'Currency', 'Amount', 'Refund Amount', 'Reason'];
    const layout = resultLayout('refund', header, [
      { column: 'transaction_id', header: 'Transaction ID' },
      { column: 'order_no', header: 'Order No.' },
      { column: 'refund_amount', header: 'Refund Amount' },
    ]);
    expect(layout.tableColumns.slice(0, 3)).toEqual(['Transaction ID', 'Order No.', 'Currency']);
    expect(layout.tableColumns).toContain('Refund Amount');
  });

  it('keeps input columns untouched and renames gateway columns that clash with them', () => {
    const layout = resultLayout('refund', ['Transaction_ID', 'outcome', 'refund_status', 'note']);
    expect(layout.columns).toEqual([
      'Transaction_ID',
      'outcome',
      'refund_status',
      'note',
      'result_refund_status',
      'refund_message',
      'refund_reference',
      'refund_reference_id',
      'result_outcome',
      'outcome_detail',
    ]);
    const cells = resultCells(layout, [' T1 ', 'x', 'y', '=1+1'], {
      line: 2,
      outcome: 'failed',
      detail: 'E2003:state 5000',
      fields: { refund_status: '0', refund_reference_id: 'T1-01' },
    });
    expect(Object.fromEntries(layout.columns.map((c, i) => [c, cells[i]]))).toEqual({
      Transaction_ID: ' T1 ',
      outcome: 'x',
      refund_status: 'y',
      note: '=1+1',
      result_refund_status: '0',
      refund_message: '',
      refund_reference: '',
      refund_reference_id: 'T1-01',
      result_outcome: 'failed',
      outcome_detail: 'E2003:state 5000',
    });
    expect(layout.tableColumns).toContain('Transaction_ID');
  });

  it('maps outcomes to exit codes: unknown or unsent beat failed', () => {
    const t = newTotals();
    expect(exitCodeForTotals(t)).toBe(0);
    t.counts.failed = 1;
    expect(exitCodeForTotals(t)).toBe(1);
    t.counts.not_sent = 1;
    expect(exitCodeForTotals(t)).toBe(3);
  });
});
