// Fault campaign (issues 7 and 12): a refund file run once, then resumed while it exits 3, with the
// sandbox failing on purpose the whole time, in every fault mode; the end checked against the ledger.
// The promise (issue 12): transient faults end in "done", not in homework — one file, no follow-up
// file, no --force: payops settles each lost request at the gateway and sends again by itself the
// rows it proves not applied, so the run ends with every refundable row `succeeded`, each refunded
// exactly once, and `failed` only for the rows the gateway refuses (authorised orders, E2003).
// Also: the sandbox's clock 10 minutes behind and ahead (reconciliation must not compare clocks), and
// a gateway that commits later than payops waits (commit_late, settle time shorter than its delay),
// where exactly-once is not promised but every double must be reported `duplicated`.
// CHAOS_SCALE=full: 2,000 rows per case, rates 0.1, 0.3 and 0.5 (the documented run); the default
// (CI) 300 rows at rate 0.3. CHAOS_SEED replays the sandbox's fault pattern (printed at the end).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FAULT_MODES } from '../../src/sandbox/faults.js';
import {
  type Attempt,
  checkDoublesReported,
  checkExactlyOnce,
  countOutcomes,
  type DoublesReport,
  type FileShape,
  isOver,
  journalStats,
  type Outcomes,
  prepareRefundFile,
  refundRun,
  runStarted,
  settleArgs,
} from './campaign.js';
import {
  type FaultConfig,
  FULL,
  payopsEnv,
  runPayops,
  TestSandbox,
  tempDir,
  writeSummary,
} from './support.js';

const ROWS = Number(process.env.CHAOS_ROWS ?? (FULL ? 2000 : 300));
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
const RATES = FULL ? [0.1, 0.3, 0.5] : [0.3];
/**
 * --settle-time of every run but the doubles case, given on the command line rather than left to
 * the environment: the campaigns build the binary's environment from scratch (no PAYOPS_SETTLE_TIME,
 * so payops would wait its default 30 s after every lost request), and commit_late's cases are
 * about how the settle time compares with the sandbox's commit delay — which must be stated here.
 */
const SETTLE_MS = 1000;
/** commit_late's delay when payops waits longer than it (settle 1 s): it must never refund twice. */
const LATE_DELAY_MS = 400;
/** The doubles case: payops concludes "not applied" after 200 ms, the gateway commits after 1.5 s. */
const SHORT_SETTLE_MS = 200;
const LONG_DELAY_MS = 1500;
/** Resumes after the first run, faults still on; a run not over by then fails the case. */
const MAX_RESUMES = 12;
/** Commands given again when one ends before its run begins (see runCase). */
const MAX_STARTS = 30;
/**
 * Every fault mode the sandbox has that fails requests at a rate: rate_limit refuses by pace, not
 * at random, and has its own test (test/integration/bulk/rate-limit.test.ts).
 */
const MODES: FaultConfig['mode'][] = FAULT_MODES.filter((m) => m !== 'none' && m !== 'rate_limit');

interface CaseSummary {
  mode: string;
  rate: number;
  /** The sandbox's clock offset during the case, in minutes (0: on time). */
  clockMin: number;
  rows: number;
  /** Rows for authorised orders, which the gateway refuses (E2003): they end failed, exit 1. */
  authorised: number;
  settleMs: number;
  delayMs?: number;
  /** Commands that ended before their run began (a preflight search unreadable): given again. */
  startFailures: number;
  /** Exit code of each process of the run: the one that began it, then its resumes. */
  attempts: (number | string | null)[];
  /** Outcomes after the first run, and at the end. */
  firstRun: Outcomes;
  final: Outcomes;
  /** Rows payops proved not applied and sent again, and the requests that did (journalStats). */
  rowsResent: number;
  /** Chunks whose answer was lost (journal `unknown` records): how often the fault struck a refund. */
  lostAnswers: number;
  resends: number;
  ledgerRefunds: number;
  expectedRefunds: number;
  seed: number;
  seconds: number;
  /** The doubles case only. */
  doubles?: DoublesReport;
  /** Why the case failed (the summary is kept either way). */
  error?: string;
}
const summary: CaseSummary[] = [];

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
  const file = writeSummary('payops-chaos-faults.json', { rows: ROWS, seed: SEED, cases: summary });
  console.log(
    `fault campaign (CHAOS_SEED=${SEED}) summary (${file}):\n${summary.map((s) => JSON.stringify(s)).join('\n')}`,
  );
});

interface Case {
  mode: FaultConfig['mode'];
  rate: number;
  clockMin?: number;
  shape: FileShape;
  settleMs: number;
  delayMs?: number;
  /** A fixed fault seed instead of one drawn from CHAOS_SEED. */
  seed?: number;
  /** Only these paths are hit (default all). */
  paths?: string[];
  /** The fault must strike at least one refund request, or the case proved nothing. */
  mustStrike?: boolean;
}

/** Each case its own fault seed, from CHAOS_SEED and its name: one case replays alone (-t) the same. */
function caseSeed(c: Case): number {
  if (c.seed !== undefined) return c.seed;
  let h = SEED >>> 0;
  for (const ch of `${c.mode}/${c.rate}/${c.clockMin ?? 0}`) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h;
}

/**
 * Runs the file once, then `--resume` while the run is not over (exit 3 with rows still open), up
 * to MAX_RESUMES times, faults on throughout; then checks exactly-once, or, for the doubles case,
 * waits until every late commit has landed, resumes once more and checks that each double is
 * reported. The case's summary is kept whether it passes or not, so the tables show a failure too.
 */
async function runCase(c: Case, check: 'exactly-once' | 'doubles-reported'): Promise<void> {
  const dir = tempDir(`chaos-${c.mode}`);
  const started = performance.now();
  const seed = caseSeed(c);
  const attempts: Attempt[] = [];
  let starts = 0;
  const entry: Partial<CaseSummary> = {
    mode: c.mode,
    rate: c.rate,
    clockMin: c.clockMin ?? 0,
    settleMs: c.settleMs,
    ...(c.delayMs !== undefined ? { delayMs: c.delayMs } : {}),
    seed,
  };
  try {
    await sandbox.reset();
    const { file, planned } = await prepareRefundFile(sandbox, dir.path, ROWS, c.shape);
    entry.rows = planned.length;
    entry.authorised = planned.filter((p) => !p.refundable).length;
    entry.expectedRefunds = planned.filter((p) => p.refundable).length;
    const out = join(dir.path, 'results.csv');
    // A hung or trickled request costs a full timeout: keep it short so the campaign stays bounded.
    // (A trickle's bytes come every 250 ms, well within it: only a deadline on the whole exchange ends it.)
    const slow = c.mode === 'hang' || c.mode === 'trickle';
    const extraArgs = [...settleArgs(c.settleMs), ...(slow ? ['--timeout', '1000'] : [])];
    await sandbox.faults({
      mode: c.mode,
      rate: c.rate,
      seed,
      ...(c.delayMs !== undefined ? { delay_ms: c.delayMs } : {}),
      ...(c.paths ? { paths: c.paths } : {}),
    });
    if (c.clockMin) await sandbox.clock(c.clockMin * 60_000);

    const run = async () => {
      // The first run of a file is given without --resume, as an operator would (and as payops
      // will require); --resume once payops has a run of it.
      const resume = runStarted(dir.path);
      const r = await refundRun(sandbox, dir.path, file, out, { resume, extraArgs });
      attempts.push({ resume, code: r.code, signal: r.signal, ms: r.ms, faults: true });
      return r;
    };
    // A command can end before its run begins: the searches made before anything is sent
    // (preflight) are not all answered readably — no run, nothing sent, exit 3. It is given again,
    // as a first run, up to MAX_STARTS times; those commands are counted apart from the resumes.
    let last = await run();
    while (!runStarted(dir.path) && starts < MAX_STARTS) {
      starts++;
      last = await run();
    }
    entry.startFailures = starts;
    expect(runStarted(dir.path), `no run began in ${starts + 1} commands; last stderr:\n${last.stderr}`).toBe(
      true,
    );
    entry.firstRun = countOutcomes(out);
    let resumes = 0;
    while (!isOver(last, out, planned.length) && resumes++ < MAX_RESUMES) last = await run();
    entry.attempts = attempts.slice(starts).map((a) => a.code ?? a.signal);
    expect(
      isOver(last, out, planned.length),
      `not over after ${resumes} resumes; last stderr:\n${last.stderr}`,
    ).toBe(true);

    let problems: string[] = [];
    if (check === 'doubles-reported') {
      // Every late commit lands, and then some: the last resume must see every double there is.
      const deadline = Date.now() + 10 * (c.delayMs ?? 0) + 5000;
      while ((await sandbox.lateCommits()) > 0 && Date.now() < deadline) await sleep(100);
      await sleep((c.delayMs ?? 0) + 100);
      expect(await sandbox.lateCommits(), 'late commits still pending').toBe(0);
      // A run cannot see a request applied after it ended; its summary says to verify later, and
      // `payops runs verify` (read-only) must then report every double there is.
      const runs = readdirSync(join(dir.path, 'state', 'runs'));
      expect(runs, 'one run of the file').toHaveLength(1);
      const verified = join(dir.path, 'verified.csv');
      const v = await runPayops(['runs', 'verify', runs[0]!, '--out', verified], {
        env: payopsEnv(sandbox.url, dir.path),
      });
      expect([0, 3], `runs verify exit code; stderr:\n${v.stderr}`).toContain(v.code);
      entry.attempts = attempts.slice(starts).map((a) => a.code ?? a.signal);
      const checked = checkDoublesReported(planned, verified, await sandbox.ledger());
      entry.doubles = checked.report;
      problems = checked.problems;
      // The case is only worth its name if the gateway did refund some order twice.
      expect(checked.report.doubled, 'no order was refunded twice: the case proved nothing').toBeGreaterThan(
        0,
      );
      expect(v.code).toBe(3);
    } else {
      // A commit still pending now would be a refund landing after the run said it was not applied.
      const deadline = Date.now() + 5000;
      while ((await sandbox.lateCommits()) > 0 && Date.now() < deadline) await sleep(100);
      expect(await sandbox.lateCommits(), 'late commits still pending after the run').toBe(0);
      // Exit 1 only because of the authorised orders the gateway refuses; without them, exit 0.
      expect(last.code, `exit code of the last run; stderr:\n${last.stderr}`).toBe(entry.authorised ? 1 : 0);
      checkExactlyOnce(planned, out, await sandbox.ledger());
    }
    entry.final = countOutcomes(out);
    if (c.mustStrike) {
      const lost = journalStats(dir.path).records.unknown ?? 0;
      expect(lost, 'no refund answer was lost: the case proved nothing').toBeGreaterThan(0);
    }
    expect(
      problems.slice(0, 20),
      `${problems.length} problems (doubles not reported, or false alarms)`,
    ).toEqual([]);
  } catch (err) {
    entry.error = String((err as Error)?.message ?? err).split('\n')[0];
    console.log(
      `fault case ${c.mode} rate ${c.rate} clock ${c.clockMin ?? 0} min failed: CHAOS_SEED=${SEED}, fault seed ${seed}; exit codes ${JSON.stringify(attempts.map((a) => a.code ?? a.signal))}`,
    );
    throw err;
  } finally {
    const stats = journalStats(dir.path);
    entry.rowsResent = stats.rowsResent;
    entry.lostAnswers = stats.records.unknown ?? 0;
    entry.resends = stats.resends;
    entry.ledgerRefunds = (await sandbox.ledger().catch(() => [])).length;
    entry.seconds = Math.round((performance.now() - started) / 100) / 10;
    summary.push(entry as CaseSummary);
    await sandbox.faults({ mode: 'none' }).catch(() => {});
    await sandbox.clock(0).catch(() => {});
    dir.remove();
  }
}

/**
 * At rate 0.3 (issue 12's "done when") the file holds only refundable rows, so the promise is
 * literally exit 0; at the other rates it also holds authorised orders, which must end failed
 * (E2003) — the only reason for exit 1 — while sharing chunks with the good rows.
 */
const shapeFor = (rate: number): FileShape => (rate === 0.3 ? { authorisedShare: 0 } : {});

describe.each(MODES)('fault mode %s', (mode) => {
  test.each(RATES)(
    'rate %s: run once and resumed while it exits 3 — every refundable row succeeded and refunded exactly once, only the authorised orders failed',
    async (rate) => {
      await runCase(
        {
          mode,
          rate,
          shape: shapeFor(rate),
          settleMs: SETTLE_MS,
          ...(mode === 'commit_late' ? { delayMs: LATE_DELAY_MS } : {}),
        },
        'exactly-once',
      );
    },
  );
});

describe.each([-10, 10])('sandbox clock %s min off', (clockMin) => {
  test.each(['drop_after_commit', 'error500'] as const)(
    '%s at 0.3: every refundable row succeeded exactly once, only the authorised orders failed',
    async (mode) => {
      await runCase({ mode, rate: 0.3, clockMin, shape: {}, settleMs: SETTLE_MS }, 'exactly-once');
    },
  );
});

/**
 * A settle time shorter than the gateway's commit delay: a chunk is answered 500 and applied 1.5 s
 * later; 200 ms on, refund search finds nothing, so payops sends the rows again, that answer comes
 * back and the run ends `succeeded`. The first request then lands: those orders are refunded twice,
 * after the run ended, where no run can see it. What is promised: the run's summary says rows were
 * sent again and to verify; `payops runs verify` afterwards reports each such order `duplicated`,
 * naming both refunds, and nothing else. The fault seed is fixed (1): with it the double happens
 * at any size, where a random seed at CI size could miss every fault.
 */
const doublesTest = test;

doublesTest(
  `commit_late at 0.3 with --settle-time ${SHORT_SETTLE_MS}ms shorter than the ${LONG_DELAY_MS} ms commit delay: every order refunded twice is reported duplicated, never succeeded`,
  async () => {
    // One row per order, 40 % of it: a second refund fits in the order's balance, so a request the
    // gateway applies after payops sent it again really lands twice (a full refund would be refused).
    await runCase(
      {
        mode: 'commit_late',
        rate: 0.3,
        shape: { authorisedShare: 0, splitShare: 0, refundShare: 0.4 },
        settleMs: SHORT_SETTLE_MS,
        delayMs: LONG_DELAY_MS,
        seed: 1,
      },
      'doubles-reported',
    );
  },
);

/**
 * Issue 13: a hostile server during a bulk refund — half the refund answers trickled a byte every
 * 250 ms (each byte within --timeout 1000, the whole never), or followed by 32 MiB of spaces. Each
 * such answer is lost (the deadline, the 4 MiB cap) after the refund was applied: settled at the
 * gateway, never sent again — every row ends exactly once. The reads are left alone here (the
 * campaign above hits them too); the fault seed is fixed so the faults surely strike at any size.
 */
describe('a hostile server during a bulk refund', () => {
  test.each(['trickle', 'oversize'] as const)(
    '%s on half the refund answers: every refundable row succeeded and refunded exactly once',
    async (mode) => {
      await runCase(
        {
          mode,
          rate: 0.5,
          shape: {},
          settleMs: SETTLE_MS,
          seed: 13,
          paths: ['/v1/refund'],
          mustStrike: true,
        },
        'exactly-once',
      );
    },
  );
});
