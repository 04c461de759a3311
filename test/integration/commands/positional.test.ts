// Positional forms (issue 15 item 4) and `runs show --only` (item 8): the real binary against a
// sandbox in this process, judged by the sandbox ledger and the files written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from '../bulk/support.js';

const suite = useBulkSuite();

describe('positional arguments', () => {
  it('`payops refund FILE` is `--file FILE`; `runs show` alone shows that newest run', async () => {
    const orders = await suite.gw.createOrders(3);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    const r = await payops(['refund', file, '--yes'], { env });
    expect(r.code, r.stderr).toBe(0);
    const byTx = refundsByTransaction(await suite.gw.ledger());
    expect(byTx.size).toBe(3);
    const runId = /run id: (\d{8}-\d{6}-[0-9a-f]{4})/.exec(r.stderr)?.[1];
    expect(runId).toBeDefined();

    const out = join(suite.dir, 'shown.csv');
    const show = await payops(['runs', 'show', '--output', 'csv', '--out', out], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stderr).toContain(`run ${runId} (the newest`);
    expect(readResults(out).map((x) => x.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('refuses two different files, sending nothing', async () => {
    const orders = await suite.gw.createOrders(1);
    const a = writeCsv(join(suite.dir, 'a.csv'), REFUND_HEADER, refundRows(orders));
    const b = writeCsv(join(suite.dir, 'b.csv'), REFUND_HEADER, refundRows(orders));
    const r = await payops(['refund', a, '--file', b, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('two files given');
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('`payops query ORD-1 ORD-2` looks up order numbers (bare words are never transaction ids)', async () => {
    const orders = await suite.gw.createOrders(2);
    const env = suite.gw.env(suite.dir);
    const r = await payops(['query', orders[0]!.order_no, orders[1]!.order_no, '--output', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout) as Array<{ order_no: string }>;
    expect(found.map((o) => o.order_no).sort()).toEqual([orders[0]!.order_no, orders[1]!.order_no].sort());
    // A transaction id typed bare is looked up as an order number: not found, exit 1.
    const t = await payops(['query', orders[0]!.transaction_id, '--output', 'json'], { env });
    expect(t.code).toBe(1);
  });

  it('`runs resume` alone refuses when there is no unfinished run', async () => {
    const r = await payops(['runs', 'resume'], { env: suite.gw.env(suite.dir) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no unfinished run');
  });
});

describe('runs show --only', () => {
  it("writes the rows that need action in the input file's own columns, ready to run again", async () => {
    const captured = await suite.gw.createOrders(2);
    const [authorised] = await suite.gw.createOrders(1, '2000');
    const rows = [
      ...refundRows(captured).map((r, i) => [...r, `note ${i}`]),
      [...refundRows([authorised!])[0]!, 'fix me'],
      ['T9999999999', 'ORD-NOPE', 'USD', '1.00', '1.00', 'r', 'gone'],
    ];
    const header = [...REFUND_HEADER, 'Note'];
    const file = writeCsv(join(suite.dir, 'mixed.csv'), header, rows);
    const env = suite.gw.env(suite.dir);
    const r = await payops(['refund', file, '--yes', '--output', 'csv', '--out', join(suite.dir, 'r.csv')], {
      env,
    });
    expect(r.code, r.stderr).toBe(1);
    const runId = /run id: (\d{8}-\d{6}-[0-9a-f]{4})/.exec(r.stderr)![1]!;

    const fix = join(suite.dir, 'fix.csv');
    const show = await payops(['runs', 'show', runId, '--only', 'failed,not_sent,unknown', '--out', fix], {
      env,
    });
    expect(show.code, show.stderr).toBe(1);
    expect(show.stderr).toContain('2 rows failed, not_sent, unknown');
    const text = readFileSync(fix, 'utf8');
    // The input's own columns, then why each row failed (issue 27): the reader ignores payops_*.
    expect(text.split(/\r?\n/)[0]).toBe([...header, 'payops_outcome', 'payops_reason'].join(','));
    expect(readResults(fix).map(({ payops_outcome: _o, payops_reason: _r, ...input }) => input)).toEqual(
      rows.slice(2).map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i]]))),
    );
    expect(readResults(fix).map((r) => r.payops_outcome)).toEqual(['failed', 'failed']);
    expect(readResults(fix).map((r) => (r.payops_reason ?? '').slice(0, 6))).toEqual(['E2003:', 'E2001:']);

    const bad = await payops(['runs', 'show', runId, '--only', 'failed,oops'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"oops"');
  });
});
