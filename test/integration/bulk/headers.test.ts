// Issue 26, items 3 and 4, through the real binary against the sandbox, judged by its ledger: a
// workbook exported with a title above the header and a dashboard's column names refunds exactly
// the amounts it shows; a file whose columns it cannot place is refused in one short block with the
// --columns line that fixes it, and nothing is sent; that line makes the run, and the run's header
// keeps the mapping (so a resume reads the same).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { payops, refundsByTransaction, useBulkSuite, writeCsv } from './support.js';

const suite = useBulkSuite();

const DASHBOARD = ['Transaction ID', 'Order No.', 'Currency', 'Amount', 'Refund Amount', 'Reason'];

async function workbook(path: string, rows: string[][]): Promise<string> {
  const w = createXlsxWriter(path, ['Refunds November 2026', '', '', '', '', '']);
  await w.ready;
  await w.writeCells(['', '', '', '', '', '']);
  for (const r of rows) await w.writeCells(r);
  await w.end();
  return path;
}

function runHeaders(home: string): Array<Record<string, unknown>> {
  const runs = join(home, 'state', 'runs');
  return readdirSync(runs).map(
    (id) =>
      JSON.parse(readFileSync(join(runs, id, 'journal.jsonl'), 'utf8').split('\n')[0]!) as Record<
        string,
        unknown
      >,
  );
}

describe('finance files as exported (issue 26, items 3 and 4)', () => {
  it('a title on row 1 and dashboard headers on row 3: the plan says both, the ledger holds the shown amounts', async () => {
    const orders = await suite.gw.createOrders(2);
    const [a, b] = orders as [(typeof orders)[0], (typeof orders)[0]];
    const file = await workbook(join(suite.dir, 'refunds.xlsx'), [
      DASHBOARD,
      [a.transaction_id, a.order_no, a.currency, a.amount, '1.25', 'damaged'],
      [b.transaction_id, b.order_no, b.currency, b.amount, '2.50', 'late'],
    ]);
    const env = suite.gw.env(join(suite.dir, 'home'));
    const dry = await payops(['refund', '--file', file, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/header: row 3/);
    expect(dry.stderr).toMatch(/refund_reason ← "?Reason"?/);
    const r = await payops(['refund', '--file', file, '--yes'], { env });
    expect(r.code, r.stderr).toBe(0);
    const got = refundsByTransaction(await suite.gw.ledger());
    expect(got.get(a.transaction_id)?.map((e) => e.refund_amount)).toEqual(['1.25']);
    expect(got.get(b.transaction_id)?.map((e) => e.refund_amount)).toEqual(['2.50']);
  });

  it('columns it cannot place: one short block with the --columns line; with it, the run refunds and keeps the mapping', async () => {
    const [o] = await suite.gw.createOrders(1);
    const file = writeCsv(
      join(suite.dir, 'export.csv'),
      ['Txn Ref', 'Invoice', 'Currency', 'Amount', 'Refund Amount', 'Reason'],
      [[o!.transaction_id, o!.order_no, o!.currency, o!.amount, '3.00', 'goodwill']],
    );
    const home = join(suite.dir, 'home');
    const env = suite.gw.env(home);
    const refused = await payops(['refund', '--file', file, '--yes'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/missing columns transaction_id, order_no/);
    expect(refused.stderr).toContain("--columns 'transaction_id=");
    // One short block: the header is listed once.
    expect(refused.stderr.split('Refund Amount').length - 1).toBe(1);
    expect(refused.stderr.trim().split('\n').length).toBeLessThanOrEqual(8);
    expect((await suite.gw.ledger()).filter((e) => e.kind === 'refund')).toHaveLength(0);

    const r = await payops(
      ['refund', '--file', file, '--columns', 'transaction_id=Txn Ref,order_no=Invoice', '--yes'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /transaction_id ← "?Txn Ref"?, order_no ← "?Invoice"? \(--columns\); refund_amount ← "Refund Amount"/,
    );
    const got = refundsByTransaction(await suite.gw.ledger());
    expect(got.get(o!.transaction_id)?.map((e) => e.refund_amount)).toEqual(['3.00']);
    const [header] = runHeaders(home);
    expect(JSON.parse(header!.readAs as string).columns).toEqual({
      transaction_id: 'Txn Ref',
      order_no: 'Invoice',
    });
  });
});
