// The gateway check of a new run starts while pass 1 reads the file (bulk/check/look-ahead.ts), which is
// before this process holds the input lock. Another process of the same file may still be sending
// then: what the look-ups saw before the lock must not decide which rows are done. Driven through
// main(argv, io) against the real sandbox; its ledger says what was sent.
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ContextOverrides } from '../../../src/context.js';
import { clientFromConfig } from '../../../src/factory.js';
import type { GatewayClient } from '../../../src/gateway/client.js';
import { type FakeIo, fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, runIdIn, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** Whether some process holds an input lock under PAYOPS_HOME `home` (lifecycle/steps.ts lockInput). */
function inputLocked(home: string): boolean {
  try {
    return readdirSync(join(home, 'state', 'runs')).some((n) => n.startsWith('.input-'));
  } catch {
    return false;
  }
}

/**
 * The real client, but a refund search made while no process holds the input lock answers as the
 * gateway did while the other run was still sending: its refunds not there yet. `early` counts them.
 */
function othersStillSending(
  home: string,
  early: { n: number },
  onEarly: () => void = () => {},
): ContextOverrides {
  return sendThrough(async (real, op, body, opts) => {
    const res = await real.send(op, body, opts);
    if (op !== 'refundSearch' || inputLocked(home)) return res;
    early.n++;
    onEarly();
    return { ...res, data: { ...(res.data as object), refund_orders: [] } } as unknown as typeof res;
  });
}

/** The real client from the configuration, its `send` replaced by `send` (given the real client). */
function sendThrough(
  send: (
    real: GatewayClient,
    ...args: Parameters<GatewayClient['send']>
  ) => ReturnType<GatewayClient['send']>,
): ContextOverrides {
  return {
    clientFactory: async (ctx, config) => {
      const real = await clientFromConfig(ctx, config);
      return { ...real, send: ((...args) => send(real, ...args)) as GatewayClient['send'] };
    },
  };
}

/** How many refunds of `ids` the sandbox's ledger holds. */
async function refundsOf(ids: ReadonlySet<string>): Promise<number> {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'refund' && ids.has(e.transaction_id)).length;
}

it('--skip-done after a run that finished while this file was read: its rows are not sent again', async () => {
  const home = tempDir('payops-desk-');
  const io = (): FakeIo => fakeIo({ home, cwd: home, env: sandbox.env });
  // Enough rows that look-ups go out while pass 1 still reads the file.
  const orders = await createOrders(sandbox.url, 12_000);
  const ids = new Set(orders.map((o) => o.transaction_id));
  const file = writeRefunds(home, orders);
  const first = await runMain(['refund', '--file', file, '--yes', '--output', 'csv'], io());
  expect(first.code, first.stderr).toBe(0);
  const refunds = () => refundsOf(ids);
  expect(await refunds()).toBe(12_000);

  // The first run ended (lock released) while this one read the file: its look-ups, made before
  // the lock, saw the gateway as it was then.
  const early = { n: 0 };
  const again = await runMain(
    ['refund', '--file', file, '--yes', '--skip-done', '--output', 'csv'],
    io(),
    othersStillSending(home, early),
  );
  expect(early.n).toBeGreaterThan(0);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/12,000 rows already refunded at the gateway: skipped/);
  expect(await refunds()).toBe(12_000);
}, 120_000);

it('another file of the same orders, its run still writing while this file was read: its rows are not sent again', async () => {
  const home = tempDir('payops-desk-');
  const io = (): FakeIo => fakeIo({ home, cwd: home, env: sandbox.env });
  const orders = await createOrders(sandbox.url, 12_000);
  const ids = new Set(orders.map((o) => o.transaction_id));
  const first = await runMain(
    ['refund', '--file', writeRefunds(home, orders, 'a.csv'), '--yes', '--output', 'csv'],
    io(),
  );
  expect(first.code, first.stderr).toBe(0);
  const journal = join(home, 'state', 'runs', runIdIn(first.stderr), 'journal.jsonl');
  // b.csv: the same orders and one more; another file, so another input lock than a.csv's.
  const more = await createOrders(sandbox.url, 1);
  const b = writeRefunds(home, [...orders, ...more], 'b.csv');
  const refunds = () => refundsOf(ids);

  // a.csv's run was still writing its journal when this file's look-ups went out.
  const early = { n: 0 };
  const again = await runMain(
    ['refund', '--file', b, '--yes', '--skip-done', '--output', 'csv'],
    io(),
    othersStillSending(home, early, () => utimesSync(journal, new Date(), new Date())),
  );
  expect(early.n).toBeGreaterThan(0);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/12,000 rows already refunded at the gateway: skipped/);
  expect(await refunds()).toBe(12_000);
}, 120_000);

it('a home whose earlier runs were not written to meanwhile: the look-ups made while reading stand, none is made again', async () => {
  const home = tempDir('payops-desk-');
  const io = (): FakeIo => fakeIo({ home, cwd: home, env: sandbox.env });
  const older = await createOrders(sandbox.url, 500);
  const first = await runMain(
    ['refund', '--file', writeRefunds(home, older, 'a.csv'), '--yes', '--output', 'csv'],
    io(),
  );
  expect(first.code, first.stderr).toBe(0);
  // Another file, other orders: a new run, and a finished run of the operation in the home.
  const orders = await createOrders(sandbox.url, 12_000);
  const counts = { early: 0, late: 0 };
  const counting = sendThrough((real, op, body, opts) => {
    if (op === 'refundSearch') counts[inputLocked(home) ? 'late' : 'early']++;
    return real.send(op, body, opts);
  });
  const run = await runMain(
    ['refund', '--file', writeRefunds(home, orders, 'c.csv'), '--yes', '--output', 'csv'],
    io(),
    counting,
  );
  expect(run.code, run.stderr).toBe(0);
  // 12,000 transactions, 100 a look-up: begun while the file was read (the last ones may go once
  // the lock is held), and none asked again: a check made again would be 120 more.
  expect(counts.early).toBeGreaterThan(0);
  expect(counts.early + counts.late).toBe(120);
}, 120_000);
