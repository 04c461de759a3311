// Crash campaign (issues 7 and 12): SIGKILL payops at random moments of one refund run, resume each
// time, and check that every order was refunded exactly once. The first run of the file is given
// without --resume, the later ones with it (once payops has a run of the file to resume). The
// moments come from a seeded PRNG (CHAOS_SEED), printed with the summary so a failure can be replayed.
// CHAOS_SCALE=full: 20 kills of a 5,000-row run; default (CI): 3 kills of 500 rows. The same with
// SIGINT (Ctrl-C), which must stop cleanly with exit 130: 10 times full, 2 in CI. And SIGKILL with
// the gateway failing too (error500 at 0.3 on refunds): the resumed runs then also settle the lost
// requests and send again what was not applied; 10 kills full, 3 in CI.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { chainLines, checkChain } from '../../src/lifecycle/chain.js';
import {
  type Attempt,
  checkExactlyOnce,
  isOver,
  journalStats,
  prepareRefundFile,
  refundRun,
  runStarted,
  settleArgs,
} from './campaign.js';
import { type FaultConfig, FULL, prng, TestSandbox, tempDir, writeSummary } from './support.js';

const ROWS = Number(process.env.CHAOS_CRASH_ROWS ?? (FULL ? 5000 : 500));
const KILLS = Number(process.env.CHAOS_KILLS ?? (FULL ? 20 : 3));
const INTERRUPTS = Number(process.env.CHAOS_INTERRUPTS ?? (FULL ? 10 : 2));
const FAULT_KILLS = Number(process.env.CHAOS_FAULT_KILLS ?? (FULL ? 10 : 3));
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
/**
 * Added to every refund response so the run lasts long enough to be killed KILLS times at varied
 * points (starting, validating, sending, journaling, reconciling); the answers themselves are real.
 */
const LATENCY_MS = Number(process.env.CHAOS_LATENCY_MS ?? (FULL ? 500 : 300));
/**
 * --settle-time, given explicitly: the binary's environment is built from scratch (no
 * PAYOPS_SETTLE_TIME), and payops's default 30 s would make every resume that finds a request in
 * flight wait half a minute before it may send those rows again. The sandbox here never commits
 * late, so any settle time is safe; 1 s keeps the campaign short.
 */
const SETTLE_MS = 1000;
/** Resumes with nothing killed after the interruptions, until the run is over. */
const FINAL_RESUMES = 12;

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
});

/** The gateway failing during a campaign: its fault mode and rate, on refund requests only. */
interface GatewayFaults {
  mode: FaultConfig['mode'];
  rate: number;
}

/**
 * Interrupts one refund run `count` times with `signal` at random moments, resuming each time, then
 * resumes it to the end; checks exactly-once against the ledger and writes a summary. With
 * `faults`, the gateway fails on refund requests throughout, the final resumes included.
 */
async function interruptCampaign(
  signal: NodeJS.Signals,
  count: number,
  rows: number,
  summaryName: string,
  faults?: GatewayFaults,
) {
  const dir = tempDir(`chaos-${signal.toLowerCase()}`);
  // Another sequence of moments for the campaign with faults than for the one without.
  const random = prng(faults ? SEED + 1 : SEED);
  const started = performance.now();
  const attempts: Attempt[] = [];
  const extraArgs = settleArgs(SETTLE_MS);
  try {
    await sandbox.reset();
    const { file, planned } = await prepareRefundFile(sandbox, dir.path, rows);
    const out = join(dir.path, 'results.csv');
    const failing = faults ? { mode: faults.mode, rate: faults.rate, seed: SEED } : { mode: 'none' as const };
    await sandbox.faults({ ...failing, latency_ms: LATENCY_MS, paths: ['/v1/refund'] });

    // Moments spread over the whole run: a quarter by time, in the first 400 ms of a process
    // (start-up, parsing, validation, journal creation, reconciling what the last one left), the rest
    // by progress — as soon as the gateway has committed the next of a sorted list of random refund
    // counts (plus up to 30 ms), i.e. with requests in flight, anywhere from the first to the last.
    const refundable = planned.filter((p) => p.refundable).length;
    // Below the last five chunks: a Ctrl-C while the final chunks are in flight lets them finish,
    // and the run then ends normally (exit 0/1), leaving nothing to interrupt.
    const lastTarget = Math.max(1, refundable * 0.95 - 250);
    const targets = Array.from({ length: count * 2 }, () => Math.floor(random() * lastTarget)).sort(
      (a, b) => a - b,
    );
    const ledgerCount = async () => JSON.parse(await sandbox.admin('health')).ledger as number;
    let kills = 0;
    const ledgerAtKill: number[] = [];
    const moments: string[] = [];
    let last: Awaited<ReturnType<typeof refundRun>> | undefined;
    // The first run of the file without --resume (payops will refuse --resume with no run to
    // continue); --resume once it has one — a process killed before its run began leaves none.
    const run = (opts: Parameters<typeof refundRun>[4]) => refundRun(sandbox, dir.path, file, out, opts);
    while (kills < count && attempts.length < count * 3) {
      // A target the previous process already passed would fire at once, i.e. at start-up.
      const now = await ledgerCount();
      while (targets.length > 0 && targets[0]! <= now) targets.shift();
      const byTime = random() < 0.25 || targets.length === 0;
      const killAfterMs = byTime ? Math.round(20 + random() * 380) : undefined;
      const target = byTime ? undefined : targets.shift()!;
      const jitter = Math.round(random() * 30);
      const killWhen =
        target === undefined
          ? undefined
          : async (exited: () => boolean) => {
              while (!exited() && (await ledgerCount()) < target) await sleep(5);
              await sleep(jitter);
            };
      const resume = runStarted(dir.path);
      last = await run({ resume, extraArgs, killAfterMs, killWhen, killSignal: signal });
      moments.push(byTime ? `${killAfterMs} ms` : `at ${target} refunds +${jitter} ms`);
      attempts.push({
        resume,
        code: last.code,
        signal: last.signal,
        ms: last.ms,
        killed: last.killed,
        killAfterMs,
        faults: faults !== undefined,
      });
      if (last.killed) {
        kills++;
        // How far the run had got when it was killed: refunds the gateway had committed by then.
        ledgerAtKill.push(await ledgerCount());
        if (signal === 'SIGINT') {
          // Ctrl-C: before payops has installed its handler node dies of the signal (nothing was
          // sent yet); after, payops stops cleanly, exits 130 and says how to resume.
          // Or 0/1 when the chunks it let finish were the last ones: the run is then complete.
          expect([130, null, 0, 1], `SIGINT exit; stderr:\n${last.stderr}`).toContain(last.code);
          if (last.code === 130) expect(last.stderr).toMatch(/--resume|runs resume/);
        }
      }
      if (isOver(last, out, planned.length) || (last.killed && (last.code === 0 || last.code === 1))) break;
    }

    // Then resumed until the run is over: without the latency, and with the faults still on when
    // the campaign has them (those resumes settle lost requests and send again too).
    await sandbox.faults(
      faults ? { mode: faults.mode, rate: faults.rate, paths: ['/v1/refund'] } : { mode: 'none' },
    );
    for (let i = 0; i < FINAL_RESUMES && !(last && isOver(last, out, planned.length)); i++) {
      const resume = runStarted(dir.path);
      last = await run({ resume, extraArgs });
      attempts.push({
        resume,
        code: last.code,
        signal: last.signal,
        ms: last.ms,
        faults: faults !== undefined,
      });
    }
    expect(last && isOver(last, out, planned.length), `not over; last stderr:\n${last?.stderr}`).toBe(true);
    // The file has authorised orders, which the gateway refuses (E2003): exit 1 for them alone.
    expect(last?.code, `exit of the last run; stderr:\n${last?.stderr}`).toBe(1);

    const ledger = await sandbox.ledger();
    // Exactly once: every refundable row succeeded with one ledger refund, only the authorised failed.
    checkExactlyOnce(planned, out, ledger);
    // ... and the interruptions really happened (the run was long enough for all of them).
    expect(kills, `only ${kills} of ${count} interruptions landed before the run finished`).toBe(count);
    // Every kill and resume left each journal's hash chain whole (issue 28): a crash is never an edit.
    const runs = join(dir.path, 'state', 'runs');
    const ids = readdirSync(runs).filter((d) => /^\d{8}-/.test(d));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const { lines, torn } = chainLines(readFileSync(join(runs, id, 'journal.jsonl')));
      const chain = checkChain(lines, torn);
      expect(chain.broken, `run ${id}`).toBeUndefined();
      expect(chain.legacy).toBe(false);
    }

    const stats = journalStats(dir.path);
    const summary = {
      signal,
      faults: faults ? `${faults.mode} ${faults.rate}` : null,
      seed: SEED,
      rows: planned.length,
      kills,
      attempts: attempts.length,
      latencyMs: LATENCY_MS,
      settleMs: SETTLE_MS,
      killMoments: moments.filter((_, i) => attempts[i]?.killed),
      killExits: attempts.filter((a) => a.killed).map((a) => a.code ?? a.signal),
      ledgerAtKill,
      journalRecords: stats.records,
      resends: stats.resends,
      rowsResent: stats.rowsResent,
      exitCodes: attempts.map((a) => a.code ?? a.signal),
      ledgerRefunds: ledger.length,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
    const file2 = writeSummary(summaryName, summary);
    console.log(`${signal} campaign summary (${file2}): ${JSON.stringify(summary)}`);
  } catch (err) {
    console.log(`${signal} campaign failed with CHAOS_SEED=${SEED}; attempts: ${JSON.stringify(attempts)}`);
    throw err;
  } finally {
    await sandbox.faults({ mode: 'none' }).catch(() => {});
    dir.remove();
  }
}

test(`SIGKILL at ${KILLS} random moments of a ${ROWS}-row refund run, resumed each time: each order refunded exactly once`, async () => {
  await interruptCampaign('SIGKILL', KILLS, ROWS, 'payops-chaos-crash.json');
});

test(`SIGINT (Ctrl-C) at ${INTERRUPTS} random moments of a ${ROWS}-row refund run: exit 130 with the resume command, resumed each time: each order refunded exactly once`, async () => {
  await interruptCampaign('SIGINT', INTERRUPTS, ROWS, 'payops-chaos-sigint.json');
});

test(`SIGKILL at ${FAULT_KILLS} random moments of a ${ROWS}-row refund run with error500 at 0.3 on refunds, resumed each time with the faults on: each order refunded exactly once`, async () => {
  await interruptCampaign('SIGKILL', FAULT_KILLS, ROWS, 'payops-chaos-crash-faults.json', {
    mode: 'error500',
    rate: 0.3,
  });
});
