// A journal that cannot be written mid-run (a full disk, an I/O error), through main(argv, io) in this
// process against a sandbox over loopback: the failure is injected into the journal's own file
// handle (its writes fail with ENOSPC once the first intents are on disk), so no disk has to fill up.
// The run must stop sending, say the journal could not be written (exit 4), and a resume must end
// every row exactly once — judged by the sandbox's ledger.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, failJournalWrites, runIdIn, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

describe.runIf(process.platform === 'linux')('the journal cannot be written mid-run', () => {
  it('stops sending, says so (exit 4), and a resume ends every row exactly once', async () => {
    // 20 chunks: the intents of the first 16 share one write (engine.ts STAGE_CHUNKS), the next fail.
    const orders = await createOrders(sandbox.url, 1000);
    const ids = new Set(orders.map((o) => o.transaction_id));
    const refunds = async () =>
      (await ledger(sandbox.url)).filter((e) => e.kind === 'refund' && ids.has(e.transaction_id));
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const file = writeRefunds(home, orders);

    // The first intents reach the disk; everything after them fails (outcomes, further intents).
    let intents = 0;
    const fault = await failJournalWrites(
      'ENOSPC',
      (text) => text.includes('"type":"intent"') && intents++ > 0,
    );
    let first: Awaited<ReturnType<typeof runMain>>;
    try {
      first = await runMain(
        ['refund', '--file', file, '--yes', '--concurrency', '1', '--output', 'csv'],
        io(),
      );
    } finally {
      fault.restore();
    }
    expect(fault.failed()).toBeGreaterThan(0);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/cannot write the run journal in \S+: the disk is full \(ENOSPC\)/);
    expect(first.stderr).not.toMatch(/could not be asked/);
    expect(first.stderr).not.toMatch(/unexpected/);
    // Only chunks whose intents were written were sent: money never moves without a journal record.
    const sent = await refunds();
    expect(sent.length).toBeLessThanOrEqual(16 * 50);

    const runId = runIdIn(first.stderr);
    const resumed = await runMain(['runs', 'resume', runId, '--yes', '--output', 'csv'], io());
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await refunds();
    expect(after).toHaveLength(1000);
    expect(new Set(after.map((e) => e.transaction_id)).size).toBe(1000);
  });
});
