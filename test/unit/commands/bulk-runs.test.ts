// The bulk run-selection decisions (new, refuse, resume, force) driven through main(argv, io) in
// this process. One sandbox started here serves every invocation of a test, so the gateway identity
// a run is keyed by stays the same from one invocation to the next (an in-process sandbox started
// by --sandbox is a new gateway every time); its ledger says what was actually sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeIo, fakeIo, runMain } from '../../helpers/in-process.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger, type SandboxLedgerEntry } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, runIdIn, runIds, unfinishedRun, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** One user at one desk: the same PAYOPS_HOME and folder for every invocation of a test. */
function desk(): () => FakeIo {
  const home = tempDir('payops-desk-');
  return () => fakeIo({ home, cwd: home, env: sandbox.env });
}

/** Refunds the sandbox committed for these transactions. */
async function refundsOf(ids: readonly string[]): Promise<SandboxLedgerEntry[]> {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'refund' && ids.includes(e.transaction_id));
}

/** A file of `n` new orders, refunded once to the end by a first run; returns that run's id. */
async function finishedRun(io: () => FakeIo, n = 2) {
  const orders = await createOrders(sandbox.url, n);
  const ids = orders.map((o) => o.transaction_id);
  const file = writeRefunds(io().cwd, orders);
  const first = await runMain(['refund', '--file', file, '--yes', '--output', 'csv'], io());
  expect(first.code, first.stderr).toBe(0);
  expect(await refundsOf(ids)).toHaveLength(n);
  return { file, ids, runId: runIdIn(first.stderr), results: first.stdout };
}

describe('a file an earlier run finished', () => {
  it('is refused without --force: exit 2, "already processed", the run named, nothing sent', async () => {
    const io = desk();
    const { file, ids, runId } = await finishedRun(io);
    const again = await runMain(['refund', '--file', file, '--yes'], io());
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/refunds\.csv was already processed by run \S+ of \d{4}-\d\d-\d\d/);
    expect(again.stderr).toContain(`payops runs show ${runId}`);
    expect(again.stderr).toContain('nothing was sent');
    expect(await refundsOf(ids)).toHaveLength(2);
    expect(runIds(io().home)).toEqual([runId]);
  });

  it('--resume shows its results from the journal: exit 0, nothing sent', async () => {
    const io = desk();
    const { file, ids, runId, results } = await finishedRun(io);
    const resumed = await runMain(['refund', '--file', file, '--yes', '--resume', '--output', 'csv'], io());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`was already processed to the end by run ${runId}`);
    expect(resumed.stderr).toContain('its results follow');
    expect(resumed.stdout).toBe(results);
    expect(await refundsOf(ids)).toHaveLength(2);
    expect(runIds(io().home)).toEqual([runId]);
  });

  it('--force starts a new run that sends everything again', async () => {
    const io = desk();
    const { file, ids, runId } = await finishedRun(io);
    const forced = await runMain(['refund', '--file', file, '--yes', '--force', '--output', 'csv'], io());
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`--force: earlier runs of refunds.csv are ignored (latest: run ${runId}`);
    const newRun = runIdIn(forced.stderr);
    expect(newRun).not.toBe(runId);
    expect(runIds(io().home).sort()).toEqual([runId, newRun].sort());
    expect(await refundsOf(ids)).toHaveLength(4);
  });

  it('--dry-run says so and sends nothing (exit 0)', async () => {
    const io = desk();
    const { file, ids, runId } = await finishedRun(io);
    const dry = await runMain(['refund', '--file', file, '--dry-run'], io());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`already processed by run ${runId}`);
    expect(await refundsOf(ids)).toHaveLength(2);
  });

  it('`runs show` and `runs resume` of it show the same results and send nothing', async () => {
    const io = desk();
    const { ids, runId, results } = await finishedRun(io);
    const shown = await runMain(['runs', 'show', runId, '--output', 'csv'], io());
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(results);
    const resumed = await runMain(['runs', 'resume', runId, '--yes', '--output', 'csv'], io());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`run ${runId} is already finished: its results follow.`);
    expect(resumed.stdout).toBe(results);
    expect(await refundsOf(ids)).toHaveLength(2);
  });
});

describe('a file with an unfinished run', () => {
  const unfinished = (io: () => FakeIo) => unfinishedRun(sandbox.url, io);

  it('is refused without --resume: exit 2, nothing sent, --resume and --force suggested', async () => {
    const io = desk();
    const { file, ids, runId } = await unfinished(io);
    const again = await runMain(['refund', '--file', file, '--yes'], io());
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`refunds.csv has an unfinished run ${runId}`);
    expect(again.stderr).toMatch(/add --resume to continue it .* or --force/);
    expect(await refundsOf(ids)).toHaveLength(3);
    expect(runIds(io().home)).toEqual([runId]);
  });

  it('--resume continues the same run: reconciled, nothing sent twice, exit 0', async () => {
    const io = desk();
    const { file, ids, runId } = await unfinished(io);
    const resumed = await runMain(['refund', '--file', file, '--yes', '--resume', '--output', 'csv'], io());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^resuming run: refund 3 orders/);
    expect(runIdIn(resumed.stderr)).toBe(runId);
    expect(runIds(io().home)).toEqual([runId]);
    expect(await refundsOf(ids)).toHaveLength(3);
    // Finished now: a plain run is refused as already processed.
    const after = await runMain(['refund', '--file', file, '--yes'], io());
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('already processed');
  });
});

describe('no earlier run', () => {
  // Issue 12: --resume asks to continue a run; with none of this input it is refused (it used to
  // start a new run), naming the closest runs and the ways on.
  it('--resume is refused: exit 2, nothing sent, the closest runs named', async () => {
    const io = desk();
    const { runId } = await finishedRun(io);
    const orders = await createOrders(sandbox.url, 1);
    const file = writeRefunds(io().cwd, orders, 'new.csv');
    const r = await runMain(['refund', '--file', file, '--yes', '--resume', '--output', 'csv'], io());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      'there is no earlier run of new.csv to resume (the same rows, operation and gateway); nothing was sent',
    );
    expect(r.stderr).toMatch(
      new RegExp(
        `the latest refund runs at this gateway:\\n {4}${runId} .* refunds\\.csv {2}\\(finished, 2 rows\\)`,
      ),
    );
    expect(r.stderr).toMatch(/run without --resume to start a new run, or `payops runs resume RUN-ID`/);
    expect(r.stdout).toBe('');
    expect(await refundsOf([orders[0]!.transaction_id])).toHaveLength(0);
    expect(runIds(io().home)).toEqual([runId]);
    // Without --resume it is a new run.
    const plain = await runMain(['refund', '--file', file, '--yes', '--output', 'csv'], io());
    expect(plain.code, plain.stderr).toBe(0);
    expect(await refundsOf([orders[0]!.transaction_id])).toHaveLength(1);
  });

  it('the in-process sandbox (--sandbox) is a new gateway each time: the same file is not refused', async () => {
    const io = desk();
    const samples = `${REPO_ROOT}/samples/refunds.csv`;
    for (let i = 0; i < 2; i++) {
      const r = await runMain(['--sandbox', 'refund', '--file', samples, '--yes', '--output', 'csv'], io());
      expect(r.code, r.stderr).toBe(0);
    }
    expect(runIds(io().home)).toHaveLength(2);
  });
});
