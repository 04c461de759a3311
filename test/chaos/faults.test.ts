// Fault campaign (issue 7): every sandbox fault mode at rates 0.1 and 0.5, a refund file run and
// resumed until every row has a definite outcome, then the ledger checked against the results.
// CHAOS_SCALE=full refunds 2,000 orders per case (the documented run); the default (CI) 200.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Attempt, checkInvariants, finished, prepareRefundFile, refundRun } from './campaign.js';
import { type FaultConfig, FULL, TestSandbox, tempDir } from './support.js';

const ROWS = Number(process.env.CHAOS_ROWS ?? (FULL ? 2000 : 200));
/** Resumes with the faults still on; after that they are cleared and a few more are allowed. */
const MAX_ATTEMPTS_UNDER_FAULTS = 12;
const MAX_ATTEMPTS_AFTER = 3;
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
  attemptsUnderFaults: number;
  attemptsAfterFaultsCleared: number;
  exitCodes: (number | null)[];
  succeeded: number;
  failed: number;
  refundableFailed: number;
  ledgerRefunds: number;
  seconds: number;
}
const summary: CaseSummary[] = [];

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await TestSandbox.start();
});
afterAll(async () => {
  await sandbox?.close();
  const file = join(tmpdir(), 'payops-chaos-faults.json');
  writeFileSync(file, `${JSON.stringify({ rows: ROWS, cases: summary }, null, 2)}\n`);
  console.log(`fault campaign summary (${file}):\n${summary.map((s) => JSON.stringify(s)).join('\n')}`);
});

describe.each(MODES)('fault mode %s', (mode) => {
  test.each(RATES)(
    'rate %s: resumed to the end, nothing refunded twice, results match the ledger',
    async (rate) => {
      const dir = tempDir(`chaos-${mode}`);
      const started = performance.now();
      try {
        await sandbox.reset();
        const { file, planned } = await prepareRefundFile(sandbox, dir.path, ROWS);
        const out = join(dir.path, 'results.csv');
        // A hung request costs a full timeout: keep it short so the campaign stays bounded.
        const extraArgs = mode === 'hang' ? ['--timeout', '1000'] : [];
        await sandbox.faults({ mode, rate });

        const attempts: Attempt[] = [];
        let last = await refundRun(sandbox, dir.path, file, out, { resume: false, extraArgs });
        attempts.push({ resume: false, code: last.code, signal: last.signal, ms: last.ms, faults: true });
        while (!finished(last) && attempts.length < MAX_ATTEMPTS_UNDER_FAULTS) {
          last = await refundRun(sandbox, dir.path, file, out, { resume: true, extraArgs });
          attempts.push({ resume: true, code: last.code, signal: last.signal, ms: last.ms, faults: true });
        }
        const underFaults = attempts.length;
        await sandbox.faults({ mode: 'none' });
        while (!finished(last) && attempts.length < underFaults + MAX_ATTEMPTS_AFTER) {
          last = await refundRun(sandbox, dir.path, file, out, { resume: true, extraArgs });
          attempts.push({ resume: true, code: last.code, signal: last.signal, ms: last.ms, faults: false });
        }
        expect(
          finished(last),
          `not finished after ${attempts.length} attempts; last stderr:\n${last.stderr}`,
        ).toBe(true);

        const ledger = await sandbox.ledger();
        const counts = checkInvariants(planned, out, ledger);
        // Authorised orders cannot be refunded: each must be reported failed, never succeeded.
        expect(counts.failed).toBeGreaterThanOrEqual(planned.filter((p) => !p.refundable).length);
        summary.push({
          mode,
          rate,
          rows: planned.length,
          attemptsUnderFaults: underFaults,
          attemptsAfterFaultsCleared: attempts.length - underFaults,
          exitCodes: attempts.map((a) => a.code),
          succeeded: counts.succeeded,
          failed: counts.failed,
          refundableFailed: counts.refundableFailed,
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
