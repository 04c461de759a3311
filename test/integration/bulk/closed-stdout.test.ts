// A reader that stops early (`payops … | head -2`): the pipe behind stdout closes and every later
// write fails with EPIPE. That must never stop a run (issue 13, item 1): sending and journaling go
// on, the exit code is the run's own, and no stack trace is printed. A command that moved no money
// (--help, runs show, query) ends quietly with 141, as git and gh do (killed by SIGPIPE: 128 + 13).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonRows } from '../../helpers/json-rows.js';
import { PAYOPS_BIN, REPO_ROOT } from '../../helpers/run-cli.js';
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

interface Closed {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What stdout carried before the test closed it. */
  stdout: string;
  stderr: string;
}

/**
 * `payops …args | head -c N`: stdout is read until `bytes` have come (0: closed before anything is
 * read), then the pipe is destroyed, as a reader that exits does.
 */
function payopsIntoClosingReader(
  args: string[],
  env: NodeJS.ProcessEnv,
  bytes: number,
  /** `2>&1 | head`: stderr goes to the same reader, and is closed with it. */
  stderrToo = false,
): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [PAYOPS_BIN, ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const close = () => {
      child.stdout!.destroy();
      if (stderrToo) child.stderr!.destroy();
    };
    if (bytes === 0) close();
    else
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.length >= bytes) close();
      });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (stderrToo && stderr.length >= bytes) close();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin!.on('error', () => {});
    child.stdin!.end();
  });
}

const NO_TRACE = /EPIPE|at \S+ \(|node:internal|Error:/;

describe('stdout closed by its reader (issue 13, item 1)', () => {
  it('a 1,000-row refund run goes on to the end: every row refunded once, journaled, exit 0', async () => {
    const orders = await suite.gw.createOrders(1000);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    await suite.gw.faults({ mode: 'none', latency_ms: 5 });
    // `| head -2`: the header and one result row, then the reader is gone.
    const r = await payopsIntoClosingReader(
      ['refund', '--file', file, '--yes', '--output', 'csv', '--concurrency', '2'],
      env,
      200,
    );
    await suite.gw.faults({ mode: 'none' });
    expect(r.stderr).not.toMatch(NO_TRACE);
    expect(r.code, r.stderr).toBe(0);
    const byTx = refundsByTransaction(await suite.gw.ledger());
    expect(byTx.size).toBe(1000);
    expect([...byTx.values()].filter((l) => l.length !== 1)).toEqual([]);
    // The journal holds every row's result: runs show regenerates them all.
    const runId = /run (\d{8}-\d{6}-[0-9a-z]+)/i.exec(r.stderr)?.[1] ?? (await onlyRun(env));
    const out = join(suite.dir, 'shown.csv');
    const shown = await payops(['runs', 'show', runId, '--output', 'csv', '--out', out], { env });
    expect(shown.code, shown.stderr).toBe(0);
    const results = readResults(out);
    expect(results).toHaveLength(1000);
    expect(expectHonest(results, await suite.gw.ledger()).problems).toEqual([]);
    expect(results.every((x) => x.outcome === 'succeeded')).toBe(true);
  });

  it('with --out, stdout and stderr closed (`2>&1 | head -2`): the results file is complete, exit 0', async () => {
    const orders = await suite.gw.createOrders(600);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const out = join(suite.dir, 'results.csv');
    const env = suite.gw.env(suite.dir);
    await suite.gw.faults({ mode: 'none', latency_ms: 5 });
    // --debug logs every request and answer on stderr: far more than a pipe holds, so the closed
    // stderr is certain to be met.
    const r = await payopsIntoClosingReader(
      ['--debug', 'refund', '--file', file, '--yes', '--out', out, '--concurrency', '2'],
      env,
      100,
      true,
    );
    await suite.gw.faults({ mode: 'none' });
    expect(r.code, r.stderr).toBe(0);
    const results = readResults(out);
    expect(results.map((x) => x.transaction_id)).toEqual(orders.map((o) => o.transaction_id));
    const honest = expectHonest(results, await suite.gw.ledger());
    expect(honest.problems).toEqual([]);
    expect(honest.succeeded).toBe(600);
  });

  it('--help, runs show and query end quietly with 141, no stack trace', async () => {
    // Far more output than the reader can have taken before it goes away: its first read (up to
    // 64 KiB) plus a full pipe (64 KiB on Linux). 1,000 rows (~130 KB) fitted in that on a loaded
    // machine and exited 0; 3,000 rows (~390 KB) always meet the closed pipe.
    const orders = await suite.gw.createOrders(3000);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    const run = await payops(['refund', '--file', file, '--yes', '--out', join(suite.dir, 'r.csv')], { env });
    expect(run.code, run.stderr).toBe(0);
    const runId = await onlyRun(env);
    const ids = orders.map((o) => o.transaction_id).join(',');
    for (const [args, bytes] of [
      [['refund', '--help'], 0],
      [['runs', 'show', runId, '--output', 'csv'], 0],
      [['runs', 'show', runId, '--output', 'csv'], 100],
      [['query', '--transaction-id', ids, '--output', 'csv'], 0],
      [['query', '--transaction-id', ids, '--output', 'csv'], 100],
    ] as const) {
      const r = await payopsIntoClosingReader([...args], env, bytes);
      expect(r.stderr, args.join(' ')).not.toMatch(NO_TRACE);
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(141);
    }
  });
});

async function onlyRun(env: NodeJS.ProcessEnv): Promise<string> {
  const list = await payops(['runs', 'list', '--output', 'json'], { env });
  const runs = jsonRows(list.stdout) as Array<{ id?: string; runId?: string; run_id?: string }>;
  const first = runs[0]!;
  return (first.id ?? first.runId ?? first.run_id)!;
}
