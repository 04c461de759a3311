// Every request of a run listens to the run's two Ctrl-C signals (lifecycle/interrupt.ts). With more
// than ten in flight (--concurrency up to 64) node printed "MaxListenersExceededWarning … abort
// listeners added to [AbortSignal]" on the operator's terminal in the middle of the run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger } from '../../helpers/sandbox-admin.js';
import { writeRefunds } from './support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

it('a run with 32 requests in flight prints no process warning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const home = tempDir('payops-many-');
    const orders = await createOrders(sandbox.url, 3_000);
    const file = writeRefunds(home, orders);
    const r = await runMain(
      ['refund', '--file', file, '--yes', '--concurrency', '32', '--output', 'csv'],
      fakeIo({ home, cwd: home, env: sandbox.env }),
    );
    expect(r.code, r.stderr).toBe(0);
    const ids = new Set(orders.map((o) => o.transaction_id));
    expect(
      (await ledger(sandbox.url)).filter((e) => e.kind === 'refund' && ids.has(e.transaction_id)),
    ).toHaveLength(3_000);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings).toEqual([]);
}, 120_000);
