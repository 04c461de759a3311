// Closed stdout campaign (issue 13, item 1): a refund run writes its results to stdout, whose reader
// goes away at a random point (`| head -c N`), and the run is then interrupted (Ctrl-C) at a random
// moment or left to finish; resumed the same way until it is over. A closed pipe must never stop a
// run nor leave it unjournaled: no stack trace, exit 0/1 (over) or 130 (interrupted) only, each
// order refunded exactly once in the sandbox ledger, and a last `--resume --out` gives a complete
// results file. CHAOS_SCALE=full: 10 closes of 5,000 rows; default (CI): 3 of 1,500. Seeded by
// CHAOS_SEED (printed in the summary) so a failure can be replayed.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { checkExactlyOnce, isOver, prepareRefundFile, runStarted, settleArgs } from './campaign.js';
import { BIN, FULL, payopsEnv, prng, ROOT, TestSandbox, tempDir, writeSummary } from './support.js';

const ROWS = Number(process.env.CHAOS_PIPE_ROWS ?? (FULL ? 5000 : 1500));
const CLOSES = Number(process.env.CHAOS_PIPE_CLOSES ?? (FULL ? 10 : 3));
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
/** Added to every refund answer, with --concurrency 1: a run lasts long enough to be cut into. */
const LATENCY_MS = 100;
const FINAL_RESUMES = 8;

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
});

interface Piped {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Bytes of stdout read before the reader went away. */
  read: number;
}

/** payops with its stdout read for `bytes` and then closed; Ctrl-C `sigintAfterMs` after that. */
function pipedRun(args: string[], env: NodeJS.ProcessEnv, bytes: number, sigintAfterMs?: number) {
  return new Promise<Piped>((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let read = 0;
    let stderr = '';
    let closed = false;
    const timers: NodeJS.Timeout[] = [setTimeout(() => child.kill('SIGKILL'), 300_000)];
    const close = () => {
      if (closed) return;
      closed = true;
      child.stdout!.destroy();
      if (sigintAfterMs !== undefined) timers.push(setTimeout(() => child.kill('SIGINT'), sigintAfterMs));
    };
    child.stdout!.on('data', (d: Buffer) => {
      read += d.length;
      if (read >= bytes) close();
    });
    if (bytes === 0) close();
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code, signal, stderr, read });
    });
  });
}

test(`stdout closed at ${CLOSES} random points of a ${ROWS}-row refund run, interrupted or not, resumed: each order refunded exactly once, results complete`, async () => {
  const dir = tempDir('chaos-pipe');
  const random = prng(SEED);
  const started = performance.now();
  const attempts: Array<{ bytes: number; sigintAfterMs?: number; code: number | null; read: number }> = [];
  try {
    await sandbox.reset();
    const { file, planned } = await prepareRefundFile(sandbox, dir.path, ROWS);
    await sandbox.faults({ mode: 'none', latency_ms: LATENCY_MS, paths: ['/v1/refund'] });
    const env = payopsEnv(sandbox.url, dir.path);
    const base = ['refund', '--file', file, '--yes', '--concurrency', '1', ...settleArgs(1000)];
    let over = false;
    for (let i = 0; i < CLOSES && !over; i++) {
      // From nothing read at all to a good part of the results (written in blocks of rows).
      const bytes = Math.floor(random() * ROWS * 80);
      // Most runs are interrupted after the pipe closes, so that later ones have a run to resume.
      const sigintAfterMs = random() < 0.8 ? Math.round(100 + random() * 2500) : undefined;
      const resume = runStarted(dir.path);
      const r = await pipedRun(
        [...base, '--output', 'csv', ...(resume ? ['--resume'] : [])],
        env,
        bytes,
        sigintAfterMs,
      );
      attempts.push({
        bytes,
        ...(sigintAfterMs === undefined ? {} : { sigintAfterMs }),
        code: r.code,
        read: r.read,
      });
      expect(r.stderr, `attempt ${i + 1}`).not.toMatch(/EPIPE|node:internal|\n\s+at \S+ \(/);
      // A Ctrl-C before the run began ends payops by the signal itself (nothing sent): no code.
      if (r.code === null) expect(r.signal).toBe('SIGINT');
      // A run whose last chunk was in flight at the Ctrl-C ends every row yet exits 130; the
      // --resume after it sends nothing and only shows the results: moving no money, it ends
      // 141 when its reader went away (docs/configuration.md), like `runs show | head`.
      const replayed = /was already processed to the end by run/.test(r.stderr);
      if (r.code === 141) expect(replayed, `attempt ${i + 1}: exit 141\n${r.stderr}`).toBe(true);
      else if (r.code !== null)
        expect([0, 1, 130], `attempt ${i + 1}: exit ${r.code}\n${r.stderr}`).toContain(r.code);
      over = r.code === 0 || r.code === 1 || replayed;
    }
    await sandbox.faults({ mode: 'none' });
    const out = join(dir.path, 'results.csv');
    let last: Piped | undefined;
    for (let i = 0; i < FINAL_RESUMES; i++) {
      const resume = runStarted(dir.path);
      last = await pipedRun([...base, '--out', out, ...(resume ? ['--resume'] : [])], env, Infinity);
      if (isOver({ ...last, stdout: '', ms: 0, killed: false }, out, planned.length)) break;
    }
    expect(last?.code, last?.stderr).toBeLessThanOrEqual(1);
    const outcomes = checkExactlyOnce(planned, out, await sandbox.ledger());
    writeSummary('payops-chaos-closed-stdout.json', {
      seed: SEED,
      rows: ROWS,
      attempts,
      outcomes,
      seconds: Math.round((performance.now() - started) / 1000),
    });
  } finally {
    dir.remove();
  }
});
