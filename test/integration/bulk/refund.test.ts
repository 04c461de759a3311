// `payops refund|capture|cancel|review` end to end: the real binary against a sandbox in this process.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonRows } from '../../helpers/json-rows.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import {
  expectHonest,
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

describe('refund from a CSV file', () => {
  it('refunds 1,000 orders in 20 requests, each exactly once, results in input order', async () => {
    const orders = await suite.gw.createOrders(1000);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const out = join(suite.dir, 'results.csv');
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
    const ledger = await suite.gw.ledger();
    const byTx = refundsByTransaction(ledger);
    expect(byTx.size).toBe(1000);
    expect([...byTx.values()].every((l) => l.length === 1)).toBe(true);
    expect(new Set(ledger.map((e) => e.request_id)).size).toBe(20);
    const results = readResults(out);
    expect(results.map((x) => x.transaction_id)).toEqual(orders.map((o) => o.transaction_id));
    expect(results.every((x) => x.outcome === 'succeeded' && x.refund_reference_id !== '')).toBe(true);
    expect(r.stderr).toMatch(/succeeded\s+1,000\s+USD/);
    expect(r.stderr).toMatch(/run id: \d{8}-\d{6}-[0-9a-f]{4}/);
  });

  it('reports partial failures per row with the gateway message, extra columns untouched', async () => {
    const captured = await suite.gw.createOrders(3);
    const [authorised] = await suite.gw.createOrders(1, '2000');
    const rows = [
      ...refundRows(captured).map((r, i) => [...r, `=note ${i}`]),
      [...refundRows([authorised!])[0]!, 'x'],
      ['T9999999999', 'ORD-NOPE', 'USD', '1.00', '1.00', 'r', 'y'],
    ];
    const file = writeCsv(join(suite.dir, 'mixed.csv'), [...REFUND_HEADER, 'Note'], rows);
    const out = join(suite.dir, 'results.csv');
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(1);
    const results = readResults(out);
    expect(results.map((x) => x.outcome)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'failed',
      'failed',
    ]);
    expect(results[3]!.outcome_detail).toMatch(/E2003/);
    expect(results[4]!.outcome_detail).toMatch(/E2001/);
    // Formula-looking text is neutralised for Excel; the rest of the input is carried as is.
    expect(results[0]!.Note).toBe("'=note 0");
    expect(results[3]!.Note).toBe('x');
    expect(r.stderr).toMatch(/failed\s+2/);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });

  it('refuses to run a finished file again, and --force runs it', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(
      join(suite.dir, 'r.csv'),
      REFUND_HEADER,
      refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']),
    );
    const first = await payops(['refund', '--file', file, '--yes', '--output', 'csv'], {
      env: suite.gw.env(suite.dir),
    });
    expect(first.code, first.stderr).toBe(0);
    const runId = /run id: (\S+)/.exec(first.stderr)![1]!;
    const again = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(runId);
    expect(again.stderr).toMatch(/already processed by run .* of \d{4}-\d\d-\d\d/);
    expect((await suite.gw.ledger()).length).toBe(2);
    const forced = await payops(['refund', '--file', file, '--yes', '--force', '--output', 'csv'], {
      env: suite.gw.env(suite.dir),
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect((await suite.gw.ledger()).length).toBe(4);
  });

  it('a damaged journal header fails closed: the re-run is refused (exit 4, folder and line named), runs list shows it', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(
      join(suite.dir, 'dmg.csv'),
      REFUND_HEADER,
      refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']),
    );
    const env = suite.gw.env(suite.dir);
    const first = await payops(['refund', '--file', file, '--yes', '--output', 'csv'], { env });
    expect(first.code, first.stderr).toBe(0);
    const runId = /run id: (\S+)/.exec(first.stderr)![1]!;
    // One damaged byte in the header line (issue 12, case 4).
    const journal = join(suite.dir, 'state', 'runs', runId, 'journal.jsonl');
    const text = readFileSync(journal, 'utf8');
    writeFileSync(journal, `${text.slice(0, 5)}#${text.slice(6)}`);

    const again = await payops(['refund', '--file', file, '--yes'], { env });
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toContain(join('runs', runId));
    expect(again.stderr).toMatch(/line 1/);
    expect(again.stderr).toMatch(/nothing was sent/);
    expect(again.stderr).toMatch(/move/);
    expect((await suite.gw.ledger()).length).toBe(2);

    // Listed in its place, said on stderr, and exit 4 so that a script notices.
    const list = await payops(['runs', 'list', '--output', 'csv'], { env });
    expect(list.code, list.stderr).toBe(4);
    expect(list.stderr).toContain(join('runs', runId));
    expect(list.stdout).toMatch(new RegExp(`${runId},.*damaged`));
    expect(list.stderr).not.toMatch(/no runs yet/);
  });

  it('an --out that cannot be written stops before the run exists (exit 2, nothing sent)', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const bad = await payops(
      ['refund', '--file', file, '--yes', '--out', join(suite.dir, 'no', 'such', 'x.csv')],
      {
        env: suite.gw.env(suite.dir),
      },
    );
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toMatch(/cannot write/);
    expect(await suite.gw.ledger()).toEqual([]);
    const good = await payops(['refund', '--file', file, '--yes', '--out', join(suite.dir, 'ok.csv')], {
      env: suite.gw.env(suite.dir),
    });
    expect(good.code, good.stderr).toBe(0);
  });

  it('--dry-run prints the plan and sends nothing, writes no journal', async () => {
    const orders = await suite.gw.createOrders(120);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const r = await payops(['refund', '--file', file, '--dry-run'], { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/refund 120 orders .* in 3 requests of up to 50/);
    expect(r.stderr).toMatch(/to refund: USD [\d,]+\.\d\d/);
    expect(await suite.gw.ledger()).toEqual([]);
    expect(() => readdirSync(join(suite.dir, 'state', 'runs'))).toThrow();
  });

  it('refuses without a terminal and without --yes (exit 2), nothing sent', async () => {
    const orders = await suite.gw.createOrders(1);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const r = await payops(['refund', '--file', file], { env: suite.gw.env(suite.dir) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('refuses under a read-only profile (exit 4), before asking anything', async () => {
    const orders = await suite.gw.createOrders(1);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    writeFileSync(
      join(suite.dir, 'config.json'),
      JSON.stringify({ current: 'ro', profiles: { ro: { read_only: true } } }),
      { mode: 0o600 },
    );
    const r = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/read-only/);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('--max-orders and --max-amount refuse a file above them (exit 2)', async () => {
    const orders = await suite.gw.createOrders(3);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const many = await payops(['refund', '--file', file, '--yes', '--max-orders', '2'], {
      env: suite.gw.env(suite.dir),
    });
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/3 orders, more than --max-orders 2/);
    const much = await payops(['refund', '--file', file, '--yes', '--max-amount', 'USD:0.01'], {
      env: suite.gw.env(suite.dir),
    });
    expect(much.code).toBe(2);
    expect(much.stderr).toMatch(/more than --max-amount USD 0\.01/);
    expect(await suite.gw.ledger()).toEqual([]);
  });
});

describe('input errors: exit 2, the line, nothing sent', () => {
  const cases: Array<[string, string, RegExp]> = [
    // Issue 14: "1,234.56" is read as 1234.56 now; a thousands separator alone is ambiguous.
    ['thousands separator', 'T1,O1,USD,"1,234",1.00,r', /:2\b.*"1,234" is ambiguous/],
    ['decimal comma', 'T1,O1,USD,10.00,"12,50",r', /:2\b.*12,50/],
    ['unknown currency', 'T1,O1,XYZ,10.00,1.00,r', /:2\b.*XYZ/],
    ['refund above amount', 'T1,O1,USD,10.00,11.00,r', /:2\b.*refund_amount/],
    ['zero refund', 'T1,O1,USD,10.00,0,r', /:2\b.*refund_amount/],
    ['id mangled by Excel', '1.23457E+15,O1,USD,10.00,1.00,r', /:2\b.*scientific/],
    ['missing value', 'T1,,USD,10.00,1.00,r', /:2\b.*order_no/],
  ];
  it.each(cases)('%s', async (_name, line, pattern) => {
    const file = join(suite.dir, 'bad.csv');
    writeFileSync(file, `${REFUND_HEADER.join(',')}\n${line}\n`);
    const r = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('lists every problem of a file at once, with line numbers', async () => {
    const file = join(suite.dir, 'bad.csv');
    writeFileSync(
      file,
      `${REFUND_HEADER.join(',')}\nT1,O1,USD,10.00,4.00,a\nT1,O1,USD,10.00,4.00,a\nT2,O2,USD,10.00,6.00,a\nT2,O2,USD,10.00,6.00,b\n`,
    );
    const r = await payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.csv:3\b.*duplicate/);
    expect(r.stderr).toMatch(/bad\.csv:5\b.*add up to/);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('a missing column, a review_flag other than 0/1, invalid UTF-8', async () => {
    const missing = join(suite.dir, 'missing.csv');
    writeFileSync(missing, 'transaction_id,order_no,currency\nT1,O1,USD\n');
    const a = await payops(['refund', '--file', missing, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/missing column/);

    const review = join(suite.dir, 'review.csv');
    writeFileSync(review, 'transaction_id,order_no,currency,amount,review_flag\nT1,O1,USD,10.00,2\n');
    const b = await payops(['review', '--file', review, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/review\.csv:2\b.*review_flag/);

    const latin1 = join(suite.dir, 'latin1.csv');
    writeFileSync(
      latin1,
      Buffer.concat([
        Buffer.from(`${REFUND_HEADER.join(',')}\nT1,O1,USD,10.00,1.00,`),
        Buffer.from([0xe9]),
        Buffer.from('\n'),
      ]),
    );
    const c = await payops(['refund', '--file', latin1, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/latin1\.csv:2\b.*UTF-8/);
    expect(await suite.gw.ledger()).toEqual([]);
  });
});

describe('single order by flags, and the other operations', () => {
  it('refunds one order given by flags and refuses it a second time', async () => {
    const [o] = await suite.gw.createOrders(1);
    const args = [
      'refund',
      '--transaction-id',
      o!.transaction_id,
      '--order-no',
      o!.order_no,
      '--currency',
      o!.currency,
      '--amount',
      o!.amount,
      '--refund-amount',
      '1.00',
      '--refund-reason',
      'goodwill',
      '--yes',
      '--output',
      'json',
    ];
    const r = await payops(args, { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(0);
    const [row] = jsonRows(r.stdout);
    expect(row).toMatchObject({
      transaction_id: o!.transaction_id,
      outcome: 'succeeded',
      refund_amount: '1.00',
    });
    const again = await payops(args, { env: suite.gw.env(suite.dir) });
    expect(again.code).toBe(2);
    const bad = await payops([...args.slice(0, 9), '--refund-amount', '1,5', '--yes'], {
      env: suite.gw.env(suite.dir),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--refund-amount/);
    expect((await suite.gw.ledger()).length).toBe(1);
  });

  it('captures, cancels and reviews from CSV files', async () => {
    const toCapture = await suite.gw.createOrders(3, '2000');
    const toCancel = await suite.gw.createOrders(2, '2000');
    const held = await suite.gw.createOrders(2, '2100');
    const plain = (list: typeof toCapture) =>
      list.map((o) => [o.transaction_id, o.order_no, o.currency, o.amount]);
    const head = ['transaction_id', 'order_no', 'currency', 'amount'];
    const cap = writeCsv(join(suite.dir, 'capture.csv'), head, plain(toCapture));
    const can = writeCsv(join(suite.dir, 'cancel.csv'), head, plain(toCancel));
    const rev = writeCsv(
      join(suite.dir, 'review.csv'),
      [...head, 'review_flag'],
      plain(held).map((r, i) => [...r, i === 0 ? '1' : '0']),
    );
    for (const [op, file] of [
      ['capture', cap],
      ['cancel', can],
      ['review', rev],
    ] as const) {
      const r = await payops([op, '--file', file, '--yes', '--output', 'csv'], {
        env: suite.gw.env(suite.dir),
      });
      expect(r.code, `${op}: ${r.stderr}`).toBe(0);
    }
    const kinds = (await suite.gw.ledger()).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'capture')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'cancel')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'review')).toHaveLength(2);
  });
});

describe('runs', () => {
  it('lists runs and shows a run the same as its results file', async () => {
    const orders = await suite.gw.createOrders(60);
    const file = writeCsv(join(suite.dir, 'r.csv'), REFUND_HEADER, refundRows(orders));
    const out = join(suite.dir, 'results.csv');
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
    const runId = /run id: (\S+)/.exec(r.stderr)![1]!;
    const list = await payops(['runs', 'list', '--output', 'json'], { env: suite.gw.env(suite.dir) });
    expect(list.code).toBe(0);
    expect(jsonRows(list.stdout)).toEqual([
      expect.objectContaining({ id: runId, op: 'refund', rows: 60, succeeded: 60, state: 'finished' }),
    ]);
    const shown = join(suite.dir, 'shown.csv');
    const show = await payops(['runs', 'show', runId, '--out', shown], { env: suite.gw.env(suite.dir) });
    expect(show.code, show.stderr).toBe(0);
    expect(readFileSync(shown, 'utf8')).toBe(readFileSync(out, 'utf8'));
    const honest = expectHonest(readResults(shown), await suite.gw.ledger());
    expect(honest.problems).toEqual([]);
  });
});

describe('samples and the demo', () => {
  it('every sample works against --sandbox, and the file with mistakes is refused', async () => {
    for (const [op, file] of [
      ['refund', 'samples/refunds.csv'],
      ['capture', 'samples/capture.csv'],
      ['cancel', 'samples/cancel.csv'],
      ['review', 'samples/review.csv'],
    ] as const) {
      const r = await payops(['--sandbox', op, '--file', file, '--yes', '--output', 'json'], {
        env: suite.gw.env(suite.dir),
      });
      expect(r.code, `${op}: ${r.stderr}`).toBe(0);
      const rows = jsonRows(r.stdout) as Array<{ outcome: string }>;
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((x) => x.outcome === 'succeeded')).toBe(true);
    }
    const bad = await payops(
      ['--sandbox', 'refund', '--file', 'samples/refunds-with-mistakes.csv', '--yes'],
      {
        env: suite.gw.env(suite.dir),
      },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/6 problems found; nothing was sent/);
  });

  it('npm run demo works every time it is run', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'demo.js')], {
          cwd: REPO_ROOT,
          env: { ...suite.gw.env(suite.dir), PAYOPS_HOME: undefined },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        child.stderr.on('data', (d) => {
          out += d;
        });
        child.on('close', (code) => resolve({ code, out }));
      });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/succeeded\s+12/);
    }
  });
});
