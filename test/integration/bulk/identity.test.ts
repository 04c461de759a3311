// Issue 12, "identity by meaning": runs are matched by what their input means (its rows, not its
// bytes) and by the gateway's normalised identity (URL, merchant, account), so a file saved again,
// an order typed another way or a URL spelled otherwise finds the earlier run — refused when it
// finished, continued by --resume when it did not — and --resume with no such run is refused.
// The real binary against the sandbox on loopback; the sandbox's ledger says what was sent.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  MID_RUN_LATENCY_MS,
  type Order,
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

/** `n` captured orders and a file refunding 1.00 of each ("part"): the gateway would take it twice. */
async function partialFile(n: number, name = 'refunds.csv') {
  const orders = await suite.gw.createOrders(n);
  const rows = refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']);
  const file = writeCsv(join(suite.dir, name), REFUND_HEADER, rows);
  return { file, orders, ids: orders.map((o) => o.transaction_id) };
}

const runIdOf = (stderr: string) => {
  // A new run's id is said once it is confirmed, after any earlier run a note names (issue 27).
  const m = /run id: (\S+)/.exec(stderr) ?? /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stderr);
  if (!m) throw new Error(`no run id in:\n${stderr}`);
  return m[1]!;
};

/** The same rows saved again, as a spreadsheet would. */
const RESAVES: Array<[string, (text: string) => string]> = [
  ['with Windows line ends', (text) => text.replace(/\n/g, '\r\n')],
  [
    'with a BOM, columns reordered, an extra column and the rows in reverse order',
    (text) => {
      const [head, ...lines] = text.trimEnd().split('\n');
      const swap = (cells: string[]) => [cells[1], 'x', cells[0], ...cells.slice(2).reverse()];
      const swapped = lines.map((l) => swap(l.split(',')).join(',')).reverse();
      const header = swap(head!.split(',')).join(',').replace(',x,', ',note,');
      return `\uFEFF${[header, ...swapped].join('\n')}\n`;
    },
  ],
];

/** Each of these transactions refunded exactly once in the ledger, and nothing else. */
async function expectRefundedOnce(ids: readonly string[]) {
  const byTx = refundsByTransaction(await suite.gw.ledger());
  expect(byTx.size).toBe(ids.length);
  expect([...byTx.keys()].sort()).toEqual([...ids].sort());
  expect([...byTx.entries()].filter(([, l]) => l.length !== 1)).toEqual([]);
}

describe('a re-saved file after a SIGKILL: --resume continues the same run (case 2)', () => {
  it.each(RESAVES)('saved again %s: same run id, exit 0, each order refunded once', async (_, resave) => {
    const { file, ids } = await partialFile(100);
    const env = suite.gw.env(suite.dir);
    // Slow answers, one request at a time: the kill lands once the first chunk is at the gateway,
    // seconds before the second can be (MID_RUN_LATENCY_MS), however loaded the machine.
    await suite.gw.faults({ mode: 'none', latency_ms: MID_RUN_LATENCY_MS, paths: ['/v1/refund'] });
    let halfway = false;
    const watch = (async () => {
      while (!halfway) {
        if ((await suite.gw.ledger()).length >= 50) halfway = true;
        else await sleep(10);
      }
    })();
    const first = await payops(['refund', '--file', file, '--yes', '--concurrency', '1'], {
      env,
      signal: { name: 'SIGKILL', afterMs: 0, when: () => halfway },
    });
    halfway = true;
    await watch;
    await suite.gw.faults({ mode: 'none' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const runId = runIdOf(first.stderr);
    const sent = (await suite.gw.ledger()).length;
    expect(sent).toBeGreaterThanOrEqual(50);
    expect(sent).toBeLessThan(100);

    const resaved = join(suite.dir, 'resaved.csv');
    writeFileSync(resaved, resave(readFileSync(file, 'utf8')));
    const out = join(suite.dir, 'out.csv');
    const resumed = await payops(['refund', '--file', resaved, '--resume', '--yes', '--out', out], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^resuming run: refund 100 orders/);
    expect(runIdOf(resumed.stderr)).toBe(runId);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `resaved\\.csv has the same rows as run ${runId} but other bytes: the run goes on from its own copy of \\S*refunds\\.csv`,
      ),
    );
    expect(resumed.stderr).not.toMatch(/starting a new run/);
    await expectRefundedOnce(ids);
    // The results are the run's own copy's rows, in its order, whatever order the new file has.
    const results = readResults(out);
    expect(results.map((r) => r.transaction_id)).toEqual(ids);
    expect(results.every((r) => r.outcome === 'succeeded')).toBe(true);
    // One run only, now finished: the re-saved file is refused as already processed.
    const after = await payops(['refund', '--file', resaved, '--yes'], { env });
    expect(after.code, after.stderr).toBe(2);
    expect(after.stderr).toContain(`already processed by run ${runId}`);
    await expectRefundedOnce(ids);
  });
});

describe('a finished run, then the same file saved again (case 1)', () => {
  it.each(RESAVES)(
    'saved again %s: refused, exit 2, the earlier run named, nothing sent',
    async (_, resave) => {
      const { file, ids } = await partialFile(3);
      const env = suite.gw.env(suite.dir);
      const first = await payops(['refund', '--file', file, '--yes'], { env });
      expect(first.code, first.stderr).toBe(0);
      const runId = runIdOf(first.stderr);
      const resaved = join(suite.dir, 'resaved.csv');
      writeFileSync(resaved, resave(readFileSync(file, 'utf8')));

      const again = await payops(['refund', '--file', resaved, '--yes'], { env });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toMatch(
        new RegExp(
          `resaved\\.csv was already processed by run ${runId} of \\d{4}-\\d\\d-\\d\\d .* UTC; nothing was sent`,
        ),
      );
      expect(again.stderr).toContain(`payops runs show ${runId}`);
      await expectRefundedOnce(ids);
      // --resume shows the finished run's results; nothing is sent either.
      const resumed = await payops(['refund', '--file', resaved, '--yes', '--resume', '--output', 'csv'], {
        env,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`was already processed to the end by run ${runId}`);
      await expectRefundedOnce(ids);
    },
  );
});

describe('the gateway by its normalised URL (case 3)', () => {
  it('`HTTP://127.0.0.1:PORT/` and `http://127.0.0.1:PORT` are the same gateway: the run is recognised', async () => {
    const { file, ids } = await partialFile(100);
    const port = new URL(suite.gw.url).port;
    const spelled = suite.gw.env(suite.dir, { PAYOPS_BASE_URL: `HTTP://127.0.0.1:${port}/` });
    const plain = suite.gw.env(suite.dir, { PAYOPS_BASE_URL: `http://127.0.0.1:${port}` });
    // Interrupted mid-way under one spelling (Ctrl-C once the first of two chunks is on its way)…
    await suite.gw.faults({ mode: 'none', latency_ms: MID_RUN_LATENCY_MS, paths: ['/v1/refund'] });
    const first = await payops(['refund', '--file', file, '--yes', '--concurrency', '1'], {
      env: spelled,
      signal: { name: 'SIGINT', afterMs: 0, when: async () => (await suite.gw.ledgerCount()) >= 1 },
    });
    await suite.gw.faults({ mode: 'none' });
    expect(first.code, first.stderr).toBe(130);
    const runId = runIdOf(first.stderr);
    // …is an unfinished run of this file under the other: refused without --resume, continued with it.
    const refused = await payops(['refund', '--file', file, '--yes'], { env: plain });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`has an unfinished run ${runId}`);
    const resumed = await payops(['refund', '--file', file, '--yes', '--resume'], { env: plain });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(runIdOf(resumed.stderr)).toBe(runId);
    await expectRefundedOnce(ids);
    // Finished: refused under either spelling, and `runs resume` under the first shows it.
    for (const env of [plain, spelled]) {
      const again = await payops(['refund', '--file', file, '--yes'], { env });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain(`already processed by run ${runId}`);
    }
    const byId = await payops(['runs', 'resume', runId, '--yes', '--output', 'csv'], { env: spelled });
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stderr).toContain(`run ${runId} is already finished`);
    await expectRefundedOnce(ids);
  });
});

describe('--resume with no earlier run of the input', () => {
  it('is refused: exit 2, the closest runs listed, nothing sent', async () => {
    const env = suite.gw.env(suite.dir);
    const a = await partialFile(2, 'a.csv');
    const done = await payops(['refund', '--file', a.file, '--yes'], { env });
    expect(done.code, done.stderr).toBe(0);
    const runA = runIdOf(done.stderr);
    const b = await partialFile(2, 'b.csv');

    const r = await payops(['refund', '--file', b.file, '--yes', '--resume'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/there is no earlier run of \S*b\.csv to resume .*; nothing was sent/);
    expect(r.stderr).toMatch(
      new RegExp(
        `the latest refund runs at this gateway:\\n {4}${runA} {2}\\d{4}-\\d\\d-\\d\\d \\S+ UTC {2}\\S*a\\.csv {2}\\(finished, 2 rows\\)`,
      ),
    );
    expect(r.stderr).toMatch(/hint: run without --resume to start a new run, or `payops runs resume RUN-ID`/);
    expect(r.stderr).not.toMatch(/starting a new run/);
    await expectRefundedOnce(a.ids);

    // A dry run says what a run would do, without failing.
    const dry = await payops(['refund', '--file', b.file, '--resume', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(
      /no earlier run of \S*b\.csv to resume: a run with --resume refuses \(exit 2\)/,
    );
    await expectRefundedOnce(a.ids);
  });
});

describe('one order by flags in another spelling (case 3)', () => {
  it('`--currency usd --amount 150 --refund-amount 5` after `USD 150.00 5.00`: refused as already processed', async () => {
    const res = await fetch(`${suite.gw.url}/_sandbox/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1, state: '3000', currency: 'USD', amount: '150.00' }),
    });
    const [order] = (await res.json()) as Order[];
    const env = suite.gw.env(suite.dir);
    const by = (currency: string, amount: string, refund: string) => [
      'refund',
      '--transaction-id',
      order!.transaction_id,
      '--order-no',
      order!.order_no,
      '--currency',
      currency,
      '--amount',
      amount,
      '--refund-amount',
      refund,
      '--refund-reason',
      'goodwill',
      '--yes',
    ];
    const first = await payops(by('USD', '150.00', '5.00'), { env });
    expect(first.code, first.stderr).toBe(0);
    const runId = runIdOf(first.stderr);
    const again = await payops(by('usd', '150', '5'), { env });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`this order was already processed by run ${runId}`);
    expect(again.stderr).toContain('nothing was sent');
    await expectRefundedOnce([order!.transaction_id]);
  });
});
