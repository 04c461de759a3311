// `payops audit export` end to end (issue 28, item 6): two refund runs and a payout run against the
// sandbox, one run's header given an approved plan (the whole chain written again after it, as anyone
// with write access could), exported over the range as CSV, JSON and .xlsx and checked cell by cell;
// a broken chain is named in the export and makes it exit 4.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineHash } from '../../../src/lifecycle/chain.js';
import { readCsv } from '../../../src/tabular/csv-reader.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { payops, REFUND_HEADER, readResults, refundRows, useBulkSuite, writeCsv } from '../bulk/support.js';

const suite = useBulkSuite();
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-f]{4}\b/;

const APPROVAL = {
  planId: 'plan-0001',
  planDigest: 'ab'.repeat(32),
  maker: { name: 'Ana Silva', fingerprint: 'SHA256:maker000' },
  approvers: [
    { name: 'Bo Chen', fingerprint: 'SHA256:checker1', at: '2026-12-01T10:00:00.000Z' },
    { name: 'Cy Diaz', fingerprint: 'SHA256:checker2', at: '2026-12-01T11:00:00.000Z' },
  ],
};

/** The journal's lines linked again from the first: what a forger with write access can do. */
function rechain(lines: string[]): string[] {
  const out = [lines[0]!];
  for (const l of lines.slice(1)) {
    const { prev: _old, ...rec } = JSON.parse(l) as Record<string, unknown>;
    out.push(JSON.stringify({ ...rec, prev: lineHash(out[out.length - 1]!) }));
  }
  return out;
}

async function sheetRows(file: string): Promise<Array<Record<string, string>>> {
  const r = readCsv({ file });
  await r.header;
  const out: Array<Record<string, string>> = [];
  for await (const row of r.rows) out.push(row.fields);
  return out;
}

const today = () => {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
};

describe('payops audit export', { timeout: 180_000 }, () => {
  it('lists every run of the range, its plan, rows sent and answered, and chain heads (CSV, JSON, .xlsx)', async () => {
    const env = suite.gw.env(suite.dir);
    // Run A: two refunds with an approved plan. Run B: one refund and one order the gateway does not know.
    const a = await suite.gw.createOrders(2);
    const fileA = writeCsv(
      join(suite.dir, 'a.csv'),
      REFUND_HEADER,
      refundRows(a).map((r) => [...r.slice(0, 4), '1.25', 'dup']),
    );
    const runA = await payops(['refund', '--file', fileA, '--yes'], { env });
    expect(runA.code, runA.stderr).toBe(0);
    const idA = RUN_ID.exec(runA.stderr)![0];
    const b = await suite.gw.createOrders(1);
    const fileB = writeCsv(join(suite.dir, 'b.csv'), REFUND_HEADER, [
      ...refundRows(b),
      ['T9999999999', 'ORD-NOPE', 'USD', '1.00', '1.00', 'x'],
    ]);
    const runB = await payops(['refund', '--file', fileB, '--yes', '--force'], { env });
    const idB = RUN_ID.exec(runB.stderr)![0];
    expect(runB.code, runB.stderr).toBe(1);
    const payout = join(suite.dir, 'payout.json');
    writeFileSync(payout, readFileSync(join(REPO_ROOT, 'samples', 'payout-request.json')));
    const runP = await payops(['payout', '--request', payout, '--yes'], { env });
    expect(runP.code, runP.stderr).toBe(0);
    const idP = readdirSync(join(suite.dir, 'state', 'runs')).find((d) => d !== idA && d !== idB)!;

    // A's header gets its approved plan, and the chain is written again from there.
    const journalA = join(suite.dir, 'state', 'runs', idA, 'journal.jsonl');
    const lines = readFileSync(journalA, 'utf8').split('\n').filter(Boolean);
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), approval: APPROVAL });
    writeFileSync(journalA, `${rechain(lines).join('\n')}\n`);
    const heads: Record<string, string> = {};
    for (const id of [idA, idB, idP]) {
      const v = await payops(['runs', 'verify', id, '--journal'], { env });
      expect(v.code, v.stdout).toBe(0);
      heads[id] = /head: ([0-9a-f]{64})/.exec(v.stdout)![1]!;
    }

    const range = ['--from', today(), '--to', today()];
    const csv = join(suite.dir, 'audit.csv');
    const ex = await payops(['audit', 'export', ...range, '--out', csv], { env });
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stderr).toMatch(/audit export: 3 runs created .*, 5 rows, written to/);
    const rows = readResults(csv);
    expect(rows.map((r) => [r.run_id, r.line])).toEqual([
      [idA, '2'],
      [idA, '3'],
      [idB, '2'],
      [idB, '3'],
      [idP, '1'],
    ]);
    const [a1, a2, b1, b2, p1] = rows as [Record<string, string>, ...Record<string, string>[]];
    expect(a1).toMatchObject({
      operation: 'refund',
      merchant_id: '800001',
      account_id: '800001001',
      file: fileA,
      state: 'finished',
      run_rows: '2',
      plan_id: 'plan-0001',
      plan_maker: 'Ana Silva',
      plan_maker_fingerprint: 'SHA256:maker000',
      plan_approvers:
        'Bo Chen (SHA256:checker1) at 2026-12-01T10:00:00.000Z; Cy Diaz (SHA256:checker2) at 2026-12-01T11:00:00.000Z',
      chain: 'intact',
      chain_head: heads[idA],
      chain_break: '',
      transaction_id: a[0]!.transaction_id,
      order_no: a[0]!.order_no,
      currency: 'USD',
      amount: '1.25',
      outcome: 'succeeded',
      gateway_status: '1',
    });
    expect(a1!.content_key).toMatch(/^refund:2-[0-9a-f]{16}$/);
    expect(a1!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(a1!.gateway).toContain('|800001|800001001');
    expect(JSON.parse(a1!.sent!)).toMatchObject({
      transaction_id: a[0]!.transaction_id,
      refund_amount: '1.25',
    });
    expect(JSON.parse(a1!.answer!).refund_reference_id).toBe(`${a[0]!.transaction_id}-01`);
    expect(a2).toMatchObject({
      transaction_id: a[1]!.transaction_id,
      outcome: 'succeeded',
      plan_maker: 'Ana Silva',
    });
    expect(b1).toMatchObject({
      plan_id: 'none',
      plan_maker: '',
      plan_approvers: '',
      state: 'finished',
      chain_head: heads[idB],
    });
    expect(b1).toMatchObject({ transaction_id: b[0]!.transaction_id, outcome: 'succeeded' });
    expect(b2).toMatchObject({ transaction_id: 'T9999999999', order_no: 'ORD-NOPE', outcome: 'failed' });
    expect(b2!.detail).not.toBe('');
    expect(p1).toMatchObject({
      operation: 'payout',
      outcome: 'completed',
      gateway_status: 'COMPLETED',
      currency: 'EUR',
      amount: '1250.00',
    });
    expect(p1!.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(p1!.sent!)).toEqual({ request_id: p1!.request_id });
    // No secret, no bank account number.
    const text = readFileSync(csv, 'utf8');
    expect(text).not.toContain(env.PAYOPS_SIGN_KEY!);
    expect(text).not.toContain('DE89370400440532013000');

    // JSON: one document, runs with their rows.
    const jsonFile = join(suite.dir, 'audit.json');
    expect((await payops(['audit', 'export', ...range, '--out', jsonFile], { env })).code).toBe(0);
    const doc = JSON.parse(readFileSync(jsonFile, 'utf8')) as {
      runs: Array<Record<string, unknown> & { rows: Array<Record<string, unknown>> }>;
    };
    expect(doc.runs.map((r) => [r.run_id, r.rows.length])).toEqual([
      [idA, 2],
      [idB, 2],
      [idP, 1],
    ]);
    expect(doc.runs[0]).toMatchObject({
      plan_maker: 'Ana Silva',
      plan_approvers: APPROVAL.approvers,
      chain: 'intact',
      chain_head: heads[idA],
      sandbox: false,
    });
    expect(doc.runs[0]!.rows[0]).toMatchObject({
      line: 2,
      outcome: 'succeeded',
      sent: { refund_amount: '1.25' },
      answer: { refund_status: '1' },
    });
    expect(doc.runs[1]!.rows[1]).toMatchObject({
      transaction_id: 'T9999999999',
      outcome: 'failed',
      detail: b2!.detail,
    });
    expect(doc.runs[1]).toMatchObject({ plan_id: 'none', plan_approvers: [] });

    // .xlsx, read back by payops' own reader: the same cells as the CSV.
    const xlsx = join(suite.dir, 'audit.xlsx');
    expect((await payops(['audit', 'export', ...range, '--out', xlsx], { env })).code).toBe(0);
    const sheet = await sheetRows(xlsx);
    // Amounts are numbers in a workbook (1.00 is stored as 1, shown with its decimals).
    const cells = (r: Record<string, string>) => [
      r.run_id,
      r.line,
      r.outcome,
      r.plan_maker,
      r.plan_approvers,
      r.chain_head,
      Number(r.amount),
      r.transaction_id,
      r.content_key,
      r.detail,
      r.sent,
    ];
    expect(sheet.map(cells)).toEqual(rows.map(cells));

    // A range before the runs: none. A journal edited: named in its run's columns, exit 4.
    const none = await payops(
      ['audit', 'export', '--from', '2020-01-01', '--to', '2020-01-31', '--out', csv],
      { env },
    );
    expect(none.code, none.stderr).toBe(0);
    expect(readResults(csv)).toEqual([]);
    const journalB = join(suite.dir, 'state', 'runs', idB, 'journal.jsonl');
    const linesB = readFileSync(journalB, 'utf8').split('\n').filter(Boolean);
    writeFileSync(journalB, `${linesB.filter((_, i) => i !== 2).join('\n')}\n`);
    const edited = await payops(['audit', 'export', ...range, '--out', csv], { env });
    expect(edited.code, edited.stderr).toBe(4);
    expect(edited.stderr).toMatch(/1 run's journal cannot be trusted as written/);
    const afterEdit = readResults(csv).filter((r) => r.run_id === idB);
    expect(afterEdit[0]).toMatchObject({
      chain: 'broken',
      chain_break: expect.stringMatching(/^line 3 \(\w+\): its prev does not match line 2/),
    });
    expect(readResults(csv).filter((r) => r.run_id === idA)[0]!.chain).toBe('intact');
  });
});
