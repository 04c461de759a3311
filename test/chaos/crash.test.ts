// Crash campaign (issue 7): SIGKILL payops at random moments of one refund run, resume each time,
// and check that every order was refunded exactly once. The moments come from a seeded PRNG
// (CHAOS_SEED), printed with the summary so a failure can be replayed.
// CHAOS_SCALE=full: 20 kills of a 5,000-row run; default (CI): 3 kills of 500 rows. The same with
// SIGINT (Ctrl-C), which must stop cleanly with exit 130: 10 times full, 2 in CI.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Attempt, checkInvariants, finished, prepareRefundFile, refundRun } from './campaign.js';
import { FULL, prng, TestSandbox, tempDir, writeSummary } from './support.js';

const ROWS = Number(process.env.CHAOS_CRASH_ROWS ?? (FULL ? 5000 : 500));
const KILLS = Number(process.env.CHAOS_KILLS ?? (FULL ? 20 : 3));
const INTERRUPTS = Number(process.env.CHAOS_INTERRUPTS ?? (FULL ? 10 : 2));
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
/**
 * Added to every refund response so the run lasts long enough to be killed KILLS times at varied
 * points (starting, validating, sending, journaling, reconciling); the answers themselves are real.
 */
const LATENCY_MS = Number(process.env.CHAOS_LATENCY_MS ?? (FULL ? 500 : 300));

/** Record types over every run journal under PAYOPS_HOME: how many chunks had to be reconciled. */
function journalRecordTypes(home: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'journal.jsonl') {
        for (const line of readFileSync(p, 'utf8').split('\n')) {
          try {
            const type = (JSON.parse(line) as { type?: string }).type ?? '?';
            counts[type] = (counts[type] ?? 0) + 1;
          } catch {
            if (line.trim() !== '') counts.torn = (counts.torn ?? 0) + 1;
          }
        }
      }
    }
  };
  walk(home);
  return counts;
}

/** A run to resume exists (a run folder with its input copy): `--resume` with none is refused. */
function runStarted(home: string): boolean {
  const runs = join(home, 'state', 'runs');
  return existsSync(runs) && readdirSync(runs).some((id) => existsSync(join(runs, id, 'input.csv')));
}

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
});

/**
 * Interrupts one refund run `count` times with `signal` at random moments, resuming each time, then
 * resumes it to the end; checks exactly-once against the ledger and writes a summary.
 */
async function interruptCampaign(signal: NodeJS.Signals, count: number, rows: number, summaryName: string) {
  const dir = tempDir(`chaos-${signal.toLowerCase()}`);
  const random = prng(SEED);
  const started = performance.now();
  const attempts: Attempt[] = [];
  try {
    await sandbox.reset();
    const { file, planned } = await prepareRefundFile(sandbox, dir.path, rows);
    const out = join(dir.path, 'results.csv');
    await sandbox.faults({ mode: 'none', latency_ms: LATENCY_MS, paths: ['/v1/refund'] });

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
      last = await refundRun(sandbox, dir.path, file, out, {
        resume,
        killAfterMs,
        killWhen,
        killSignal: signal,
      });
      moments.push(byTime ? `${killAfterMs} ms` : `at ${target} refunds +${jitter} ms`);
      attempts.push({
        resume,
        code: last.code,
        signal: last.signal,
        ms: last.ms,
        killed: last.killed,
        killAfterMs,
        faults: false,
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
        if (finished(last)) break;
      } else if (finished(last)) break;
    }

    await sandbox.faults({ mode: 'none' });
    for (let i = 0; i < 5 && !(last && finished(last) && !last.killed); i++) {
      last = await refundRun(sandbox, dir.path, file, out, { resume: runStarted(dir.path) });
      attempts.push({ resume: true, code: last.code, signal: last.signal, ms: last.ms, faults: false });
    }
    expect(last && finished(last), `not finished; last stderr:\n${last?.stderr}`).toBe(true);

    const ledger = await sandbox.ledger();
    const counts = checkInvariants([{ planned, resultsFile: out }], ledger);
    // Exactly once: every refundable row succeeded (one ledger entry each, by the invariants) ...
    expect(counts.refundableFailed, 'refundable rows not refunded').toBe(0);
    expect(ledger.length).toBe(planned.filter((p) => p.refundable).length);
    // ... and the interruptions really happened (the run was long enough for all of them).
    expect(kills, `only ${kills} of ${count} interruptions landed before the run finished`).toBe(count);

    const summary = {
      signal,
      seed: SEED,
      rows: planned.length,
      kills,
      attempts: attempts.length,
      latencyMs: LATENCY_MS,
      killMoments: moments.filter((_, i) => attempts[i]?.killed),
      ledgerAtKill,
      journalRecords: journalRecordTypes(dir.path),
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
