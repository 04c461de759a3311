// Issue 12: never twice around a run. Before sending, payops asks the gateway which rows it already
// shows done (preflight), so a re-saved file, another spelling or another machine cannot refund
// again; and a lost answer is settled by what is new at the gateway, not by comparing clocks.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonRows } from '../../helpers/json-rows.js';
import {
  MID_RUN_LATENCY_MS,
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

/** Orders refunded once (1.00, "part") by a finished run of `file`; returns the file and ids. */
async function refundedOnce(n: number) {
  const orders = await suite.gw.createOrders(n);
  const rows = refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']);
  const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
  const first = await payops(['refund', '--file', file, '--yes', '--output', 'csv'], {
    env: suite.gw.env(suite.dir),
  });
  expect(first.code, first.stderr).toBe(0);
  expect((await suite.gw.ledger()).length).toBe(n);
  return { file, rows, ids: orders.map((o) => o.transaction_id) };
}

describe('preflight: rows the gateway already shows done', () => {
  it.each([
    [
      'saved again with Windows line ends and a BOM',
      (text: string) => `\uFEFF${text.replace(/\n/g, '\r\n')}`,
    ],
    [
      'columns reordered and an extra column added',
      (text: string) => {
        const [head, ...lines] = text.trimEnd().split('\n');
        const swap = (cells: string[]) => [cells[1], cells[0], ...cells.slice(2), 'note'];
        return `${[swap(head!.split(',')).join(','), ...lines.map((l) => swap(l.split(',')).join(','))].join('\n')}\n`;
      },
    ],
  ])(
    'a re-saved file (%s) is refused, exit 2, each row named; --skip-done sends nothing, exit 0',
    async (_, resave) => {
      const { file } = await refundedOnce(3);
      const copy = join(suite.dir, 'resaved.csv');
      writeFileSync(copy, resave(readFileSync(file, 'utf8')));
      const env = suite.gw.env(suite.dir);

      // Here, where the first run is journaled, the same rows are the same input (issue 12): refused
      // by the earlier run, before the gateway is asked.
      const here = await payops(['refund', '--file', copy, '--yes'], { env });
      expect(here.code, here.stderr).toBe(2);
      expect(here.stderr).toMatch(/resaved\.csv was already processed by run \S+ of .*; nothing was sent/);
      expect(here.stderr).toMatch(/--skip-done/);
      // On another machine (no journal of that run), the gateway check refuses it, row by row.
      const again = await payops(['refund', '--file', copy, '--yes'], {
        env: suite.gw.env(join(suite.dir, 'other-machine')),
      });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toMatch(/3 of 3 rows are already refunded at the gateway; nothing was sent/);
      expect(again.stderr).toMatch(/resaved\.csv:2.*already refunded: refund \S+-01 of \d{4}-\d\d-\d\d/);
      expect(again.stderr).toMatch(/--skip-done/);
      expect((await suite.gw.ledger()).length).toBe(3);
      // The input copy, begun while the check was still answered, is gone with the refused run.
      expect(readdirSync(join(suite.dir, 'other-machine', 'state', 'runs'))).toEqual([]);

      const out = join(suite.dir, 'skipped.csv');
      const skipped = await payops(['refund', '--file', copy, '--yes', '--skip-done', '--out', out], { env });
      expect(skipped.code, skipped.stderr).toBe(0);
      expect(skipped.stderr).toMatch(
        /3 rows already refunded at the gateway: skipped \(--skip-done\); 0 to send/,
      );
      expect(skipped.stderr).toMatch(/already done\s+3/);
      expect((await suite.gw.ledger()).length).toBe(3);
      expect(readResults(out).map((r) => r.outcome)).toEqual([
        'already_done',
        'already_done',
        'already_done',
      ]);
      // runs show tells the same from the journal.
      const runId = /run id: (\S+)/.exec(skipped.stderr)![1]!;
      const shown = await payops(['runs', 'show', runId, '--output', 'csv'], { env });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout.match(/already_done/g)).toHaveLength(3);
      // runs list accounts for every row: 3 already done, not "succeeded 0" and nothing else.
      const list = await payops(['runs', 'list', '--output', 'json'], { env });
      expect(list.code, list.stderr).toBe(0);
      const listed = (jsonRows(list.stdout) as Array<Record<string, unknown>>).find((r) => r.id === runId);
      expect(listed).toMatchObject({ rows: 3, succeeded: 0, already_done: 3, failed: 0 });
    },
  );

  it('one order by flags in another spelling is refused: as processed here, as refunded elsewhere', async () => {
    const [order] = await suite.gw.createOrders(1);
    const env = suite.gw.env(suite.dir);
    const by = (currency: string, refund: string) => [
      'refund',
      '--transaction-id',
      order!.transaction_id,
      '--order-no',
      order!.order_no,
      '--currency',
      currency,
      '--amount',
      order!.amount,
      '--refund-amount',
      refund,
      '--refund-reason',
      'part',
      '--yes',
    ];
    const first = await payops(by('USD', '1.00'), { env });
    expect(first.code, first.stderr).toBe(0);
    const again = await payops(by('usd', '1'), { env });
    expect(again.code, again.stderr).toBe(2);
    // The same order by meaning (issue 12): the earlier run of it refuses it.
    expect(again.stderr).toMatch(/this order was already processed by run /);
    const elsewhere = await payops(by('usd', '1'), { env: suite.gw.env(join(suite.dir, 'other-machine')) });
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toMatch(/already refunded/);
    expect((await suite.gw.ledger()).length).toBe(1);
  });

  it('only the rows already done are refused; --force sends them too (on purpose)', async () => {
    const { rows } = await refundedOnce(2);
    const fresh = await suite.gw.createOrders(1);
    const mixed = [...rows, ...refundRows(fresh).map((r) => [...r.slice(0, 4), '1.00', 'part'])];
    const file = writeCsv(join(suite.dir, 'mixed.csv'), REFUND_HEADER, mixed);
    const env = suite.gw.env(suite.dir);
    const refused = await payops(['refund', '--file', file, '--yes'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/2 of 3 rows are already refunded/);
    expect(refused.stderr).not.toMatch(/mixed\.csv:4/);
    const forced = await payops(['refund', '--file', file, '--yes', '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/2 rows already refunded at the gateway: sent again \(--force\)/);
    expect((await suite.gw.ledger()).length).toBe(5);
  });

  it('a file edited while the gateway is being asked is refused: nothing sent, nothing left', async () => {
    // The rows sent are the run's own copy of the file: a copy made before the check ended kept
    // the rows the user then removed (a review found it; 28 MB files were even refunded twice).
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'edited.csv'), REFUND_HEADER, refundRows(orders));
    const home = join(suite.dir, 'edited-home');
    const runs = join(home, 'state', 'runs');
    // The look-up answers after 6 s: the edit below lands inside that on a loaded machine too.
    await suite.gw.faults({ latency_ms: 6000, paths: ['/v1/retrievalRefund'] });
    const running = payops(['refund', '--file', file, '--yes'], { env: suite.gw.env(home) });
    // Pass 1 is over and the run decided (its operation lock is taken); the look-up still waits.
    const deadline = Date.now() + 60_000; // a safety net: the wait is on the lock file
    const decided = () => {
      try {
        return readdirSync(runs).some((n) => n.startsWith('.op-'));
      } catch {
        return false;
      }
    };
    while (!decided() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(decided()).toBe(true);
    // What the run does at once after taking its lock (copying the file) has no outward sign, so
    // this one waits on time: 1 s is long after it, and well inside the 6 s the look-up waits.
    await new Promise((r) => setTimeout(r, 1000));
    writeCsv(file, REFUND_HEADER, refundRows(orders.slice(0, 1)));
    const r = await running;
    await suite.gw.faults({ mode: 'none' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/edited\.csv changed while payops was checking it; nothing was sent/);
    expect((await suite.gw.ledger()).length).toBe(0);
    expect(readdirSync(runs).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  });

  it('a dry run reports the rows already done and sends nothing', async () => {
    const { file } = await refundedOnce(2);
    const copy = join(suite.dir, 'copy.csv');
    writeFileSync(copy, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    const dry = await payops(['refund', '--file', copy, '--dry-run'], { env: suite.gw.env(suite.dir) });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(
      /2 rows already refunded at the gateway: a run refuses them unless --skip-done or --force/,
    );
    expect(dry.stderr).toMatch(/copy\.csv:2 already refunded: refund \S+-01 of/);
    expect((await suite.gw.ledger()).length).toBe(2);
  });

  it('a dry run still checks the file when the gateway cannot be asked, and says so', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'offline.csv'), REFUND_HEADER, refundRows(orders));
    const env = { ...suite.gw.env(suite.dir), PAYOPS_BASE_URL: 'http://127.0.0.1:9' };
    const dry = await payops(['refund', '--file', file, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/not checked at the gateway: .*could not reach/);
    // A real run never goes on without the check: exit 3, nothing sent.
    const real = await payops(['refund', '--file', file, '--yes'], { env });
    expect(real.code, real.stderr).toBe(3);
  });

  it('a check the gateway never answers: exit 3, and the error says that nothing was sent', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'silent.csv'), REFUND_HEADER, refundRows(orders));
    await suite.gw.faults({ mode: 'hang', paths: ['/v1/retrievalRefund'] });
    try {
      const r = await payops(['refund', '--file', file, '--yes', '--timeout', '500ms'], {
        env: suite.gw.env(suite.dir),
      });
      expect(r.code, r.stderr).toBe(3);
      // A finance operator reading "no complete answer" on a refund run must not have to wonder.
      expect(r.stderr).toMatch(/no complete answer within 500 ms .*retrievalRefund/);
      expect(r.stderr).toMatch(/hint: .*nothing was sent/);
    } finally {
      await suite.gw.faults({ mode: 'none' });
    }
    expect((await suite.gw.ledger()).filter((e) => e.kind === 'refund')).toHaveLength(0);
  });

  it('capture: orders already captured are found by query', async () => {
    const orders = await suite.gw.createOrders(2, '3000');
    const file = writeCsv(
      join(suite.dir, 'capture.csv'),
      ['transaction_id', 'order_no', 'currency', 'amount'],
      orders.map((o) => [o.transaction_id, o.order_no, o.currency, o.amount]),
    );
    const r = await payops(['capture', '--file', file, '--yes'], { env: suite.gw.env(suite.dir) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/already captured: the order is already 3000/);
    expect((await suite.gw.ledger()).length).toBe(0);
  });
});

describe('a resumed run asks again before sending what it has not sent', () => {
  it('rows refunded elsewhere since the run began are not sent: already_done, each order refunded once', async () => {
    const orders = await suite.gw.createOrders(150);
    const rows = refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']);
    const file = writeCsv(join(suite.dir, 'resume.csv'), REFUND_HEADER, rows);
    const env = suite.gw.env(suite.dir);
    await suite.gw.faults({ mode: 'none', latency_ms: MID_RUN_LATENCY_MS, paths: ['/v1/refund'] });
    const first = await payops(['refund', '--file', file, '--yes', '--output', 'csv', '--concurrency', '1'], {
      env,
      signal: { name: 'SIGINT', afterMs: 0, when: async () => (await suite.gw.ledgerCount()) >= 1 },
    });
    await suite.gw.faults({ mode: 'none' });
    expect(first.code, first.stderr).toBe(130);
    const sent = refundsByTransaction(await suite.gw.ledger()).size;
    expect(sent).toBeLessThan(150);

    // Meanwhile the last rows are refunded from another machine (a copy of the file, saved again).
    const last = writeCsv(join(suite.dir, 'last.csv'), REFUND_HEADER, rows.slice(100));
    const elsewhere = await payops(['refund', '--file', last, '--yes'], {
      env: suite.gw.env(join(suite.dir, 'other-machine')),
    });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);

    const out = join(suite.dir, 'out.csv');
    const resumed = await payops(['refund', '--file', file, '--yes', '--resume', '--out', out], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/50 rows were done at the gateway since this run began/);
    const results = readResults(out);
    expect(results.filter((r) => r.outcome === 'already_done')).toHaveLength(50);
    expect(results.filter((r) => r.outcome === 'succeeded')).toHaveLength(100);
    const byTx = refundsByTransaction(await suite.gw.ledger());
    expect(byTx.size).toBe(150);
    expect([...byTx.values()].every((l) => l.length === 1)).toBe(true);
    // The journal says so too: runs show agrees, and the run is finished.
    const runId = /run id: (\S+)/.exec(first.stderr)![1]!;
    const shown = await payops(['runs', 'show', runId, '--output', 'csv'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.match(/already_done/g)).toHaveLength(50);
  });
});

describe('reconciliation by what is new at the gateway (issue 12, case 7)', () => {
  it("a refund made elsewhere before the run is never taken for the run's own lost one", async () => {
    const orders = await suite.gw.createOrders(1);
    const rows = refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']);
    // "The portal": the same refund made from another machine, just before the run.
    const portal = writeCsv(join(suite.dir, 'portal.csv'), REFUND_HEADER, rows);
    const elsewhere = await payops(['refund', '--file', portal, '--yes'], {
      env: suite.gw.env(join(suite.dir, 'other-machine')),
    });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);

    // Our run sends it on purpose (--force); its request is lost before the gateway commits it.
    await suite.gw.faults({ mode: 'drop_before_commit', rate: 1, paths: ['/v1/refund'] });
    const file = writeCsv(join(suite.dir, 'ours.csv'), REFUND_HEADER, rows);
    const out = join(suite.dir, 'out.csv');
    const ours = await payops(['refund', '--file', file, '--yes', '--force', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    await suite.gw.faults({ mode: 'none' });
    const [result] = readResults(out);
    // Not "succeeded" on the strength of the portal's refund: the gateway has no new one. Every
    // attempt was lost, so the row is left for a resumed run (exit 3), not reported done.
    expect(ours.code, ours.stderr).toBe(3);
    expect(result!.outcome, ours.stderr).toBe('not_sent');
    expect(result!.outcome_detail).toMatch(/not applied after 3 requests.*no new refund/);
    expect(refundsByTransaction(await suite.gw.ledger()).get(orders[0]!.transaction_id)).toHaveLength(1);
    // Resumed with the gateway well again: the run's own refund is made, once.
    const resumed = await payops(['refund', '--file', file, '--yes', '--resume', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readResults(out)[0]!.outcome).toBe('succeeded');
    expect(refundsByTransaction(await suite.gw.ledger()).get(orders[0]!.transaction_id)).toHaveLength(2);
  });

  it.each([
    ['10 minutes behind', -600_000],
    ['10 minutes ahead', 600_000],
  ])('with the gateway clock %s, refunds whose answers were lost are found (case 5)', async (_, offset) => {
    await clock(offset);
    try {
      await refundsOnceUnder('drop_after_commit', 'clock.csv');
    } finally {
      await clock(0);
    }
  });
});

describe('return_status 0 with per-order results (issue 12, case 8)', () => {
  it('each row takes its own status: the refunds made are succeeded, exit 0, each once', async () => {
    await refundsOnceUnder('status_zero', 'zero.csv');
  });
});

/** 60 orders refunded with fault `mode` on every refund request: exit 0, all succeeded, each once. */
async function refundsOnceUnder(mode: string, name: string): Promise<void> {
  const orders = await suite.gw.createOrders(60);
  const file = writeCsv(join(suite.dir, name), REFUND_HEADER, refundRows(orders));
  await suite.gw.faults({ mode, rate: 1, paths: ['/v1/refund'] });
  const out = join(suite.dir, 'out.csv');
  try {
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
  } finally {
    await suite.gw.faults({ mode: 'none' });
  }
  expect(readResults(out).every((x) => x.outcome === 'succeeded')).toBe(true);
  const byTx = refundsByTransaction(await suite.gw.ledger());
  expect(byTx.size).toBe(60);
  expect([...byTx.values()].every((l) => l.length === 1)).toBe(true);
}

/** Shift the sandbox's clock (docs/sandbox.md). */
async function clock(offsetMs: number): Promise<void> {
  const res = await fetch(`${suite.gw.url}/_sandbox/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ offset_ms: offsetMs }),
  });
  expect(res.ok).toBe(true);
}
