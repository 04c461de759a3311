// Fault campaign (issue 7): every sandbox fault mode at rates 0.1 and 0.5, a refund file run and
// resumed until every row has a definite outcome, then the ledger checked against the results.
// payops never re-sends a refund whose answer was lost: it reconciles it by refund search, and a
// refund the gateway has no record of is reported failed ("not refunded … safe to refund it in a
// new file"). So each case then refunds those rows in follow-up files until none is left, and
// checks that every order was refunded exactly once over all of them.
// CHAOS_SCALE=full refunds 2,000 orders per case (the documented run); the default (CI) 200.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Attempt,
  checkInvariants,
  finished,
  type Outcomes,
  prepareRefundFile,
  type RunFiles,
  refundRun,
  writeRefundFile,
} from './campaign.js';
import { type FaultConfig, FULL, readCsv, TestSandbox, tempDir, writeSummary } from './support.js';

const ROWS = Number(process.env.CHAOS_ROWS ?? (FULL ? 2000 : 200));
/** Resumes with the faults still on; after that they are cleared and a few more are allowed. */
const MAX_ATTEMPTS_UNDER_FAULTS = 12;
const MAX_ATTEMPTS_AFTER = 3;
/** Files per case: the input and follow-ups of the rows reported "not refunded"; the last one fault-free. */
const MAX_ROUNDS = 12;
const MODES: FaultConfig['mode'][] = [
  'error500',
  'drop_before_commit',
  'drop_after_commit',
  'hang',
  'garbage',
  'bad_signature',
];
const RATES = [0.1, 0.5];

interface CaseSummary {
  mode: string;
  rate: number;
  rows: number;
  /** Outcomes of the first file's run (resumed to its end). */
  firstRun: Outcomes;
  /** Per file: rows, exit code of each attempt, rows reported failed. */
  rounds: Array<{ rows: number; attempts: (number | null)[]; failed: number }>;
  ledgerRefunds: number;
  seconds: number;
}
const summary: CaseSummary[] = [];

/** Runs begun under PAYOPS_HOME `home` (a run folder with its input copy). */
function runsStarted(home: string): number {
  const runs = join(home, 'state', 'runs');
  if (!existsSync(runs)) return 0;
  return readdirSync(runs).filter((id) => existsSync(join(runs, id, 'input.csv'))).length;
}

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
  const file = writeSummary('payops-chaos-faults.json', { rows: ROWS, cases: summary });
  console.log(`fault campaign summary (${file}):\n${summary.map((s) => JSON.stringify(s)).join('\n')}`);
});

/**
 * One run of a file, resumed while it has rows of unknown outcome (exit 3) or was stopped; faults
 * stay on for MAX_ATTEMPTS_UNDER_FAULTS attempts, then are cleared for a few more.
 */
async function runToTheEnd(
  dir: string,
  file: string,
  out: string,
  extraArgs: string[],
  mode: FaultConfig['mode'],
  rate: number,
  force: boolean,
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  // --force: a follow-up file can be byte for byte the previous one (the same rows failed again),
  // which payops otherwise refuses as already processed.
  const first = force ? [...extraArgs, '--force'] : extraArgs;
  // --resume once this file's run has begun (with none it is refused); until then, the first command
  // again (the gateway check before a run can fail under faults too).
  const before = runsStarted(dir);
  const next = () =>
    runsStarted(dir) > before ? { resume: true, extraArgs } : { resume: false, extraArgs: first };
  let last = await refundRun(sandbox, dir, file, out, { resume: false, extraArgs: first });
  attempts.push({ resume: false, code: last.code, signal: last.signal, ms: last.ms, faults: true });
  while (!finished(last) && attempts.length < MAX_ATTEMPTS_UNDER_FAULTS) {
    const how = next();
    last = await refundRun(sandbox, dir, file, out, how);
    attempts.push({ resume: how.resume, code: last.code, signal: last.signal, ms: last.ms, faults: true });
  }
  if (!finished(last)) {
    await sandbox.faults({ mode: 'none' });
    while (!finished(last) && attempts.length < MAX_ATTEMPTS_UNDER_FAULTS + MAX_ATTEMPTS_AFTER) {
      const how = next();
      last = await refundRun(sandbox, dir, file, out, how);
      attempts.push({ resume: how.resume, code: last.code, signal: last.signal, ms: last.ms, faults: false });
    }
    await sandbox.faults({ mode, rate });
  }
  expect(finished(last), `not finished after ${attempts.length} attempts; last stderr:\n${last.stderr}`).toBe(
    true,
  );
  return attempts;
}

describe.each(MODES)('fault mode %s', (mode) => {
  test.each(RATES)(
    'rate %s: every row ends succeeded or failed, nothing refunded twice, results match the ledger; follow-up files of the rows reported "not refunded" refund every order exactly once',
    async (rate) => {
      const dir = tempDir(`chaos-${mode}`);
      const started = performance.now();
      try {
        await sandbox.reset();
        const { file, planned } = await prepareRefundFile(sandbox, dir.path, ROWS);
        // A hung request costs a full timeout: keep it short so the campaign stays bounded.
        const extraArgs = mode === 'hang' ? ['--timeout', '1000'] : [];
        await sandbox.faults({ mode, rate });

        // Round 0 is the file; each next round is a new file of the refundable rows the previous
        // one reported failed ("not refunded … safe to refund it in a new file"), as an operator
        // would do. The last round runs with the faults cleared.
        const runs: RunFiles[] = [];
        const rounds: Array<{ rows: number; attempts: (number | null)[]; failed: number }> = [];
        let pending = planned;
        let firstRound: Outcomes | undefined;
        for (let round = 0; pending.length > 0 && round < MAX_ROUNDS; round++) {
          if (round === MAX_ROUNDS - 1) await sandbox.faults({ mode: 'none' });
          const input = round === 0 ? file : join(dir.path, `retry-${round}.csv`);
          if (round > 0) writeRefundFile(input, pending);
          const out = join(dir.path, `results-${round}.csv`);
          const attempts = await runToTheEnd(dir.path, input, out, extraArgs, mode, rate, round > 0);
          runs.push({ planned: pending, resultsFile: out });
          // Checked after every round: a wrong "failed" would show up as a ledger mismatch here,
          // before the next round could refund the order a second time.
          const counts = checkInvariants(runs, await sandbox.ledger());
          firstRound ??= counts;
          rounds.push({ rows: pending.length, attempts: attempts.map((a) => a.code), failed: counts.failed });
          const results = readCsv(out);
          pending = pending.filter((p, i) => p.refundable && results[i]!.outcome === 'failed');
        }
        expect(pending, 'refundable rows still not refunded after the last round').toEqual([]);

        // Exactly once, over all rounds: every refundable row's amount is in the ledger once.
        const ledger = await sandbox.ledger();
        expect(ledger.length).toBe(planned.filter((p) => p.refundable).length);
        summary.push({
          mode,
          rate,
          rows: planned.length,
          firstRun: firstRound!,
          rounds,
          ledgerRefunds: ledger.length,
          seconds: Math.round((performance.now() - started) / 100) / 10,
        });
      } finally {
        await sandbox.faults({ mode: 'none' }).catch(() => {});
        dir.remove();
      }
    },
  );
});
