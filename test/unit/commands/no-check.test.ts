// Issue 24, item 5: capture, cancel and review check the gateway first with order query, which the
// spec restricts to registered IP addresses. From a machine not registered, even --force exited 4
// and the message did not say why. Now the refusal names the cause (the check uses query; register
// this IP; `payops status` shows it), and --no-check runs without the check — the plan says what
// that gives up; the gateway's state machine still refuses a second capture or cancel, as the
// sandbox's ledger shows. Refunds keep their check (refund search is not IP-restricted).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger, type SandboxOrder } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

async function registeredIps(ips: string[]): Promise<void> {
  const res = await fetch(`${sandbox.url}/_sandbox/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registered_ips: ips }),
  });
  expect(res.ok).toBe(true);
}
/** This machine is not registered for query: only another address is. */
const unregistered = () => registeredIps(['203.0.113.7']);
afterEach(() => registeredIps(['127.0.0.1', '::1']));

function desk() {
  const dir = tempDir('payops-desk-');
  return { dir, io: () => fakeIo({ home: dir, cwd: dir, env: sandbox.env }) };
}

function writeOrders(dir: string, name: string, orders: readonly SandboxOrder[]): string {
  const rows = orders.map((o) => `${o.transaction_id},${o.order_no},${o.currency},${o.amount}`);
  writeFileSync(join(dir, name), `${['transaction_id,order_no,currency,amount', ...rows].join('\n')}\n`);
  return name;
}

async function movesOf(kind: string, orders: readonly SandboxOrder[]) {
  const ids = new Set(orders.map((o) => o.transaction_id));
  return (await ledger(sandbox.url)).filter((e) => e.kind === kind && ids.has(e.transaction_id));
}

describe('capture, cancel and review from a machine not registered for order query', () => {
  it('is refused naming the cause — the check uses order query, register this IP, payops status — even with --force', async () => {
    const orders = await createOrders(sandbox.url, 3, '2000');
    const d = desk();
    const file = writeOrders(d.dir, 'capture.csv', orders);
    await unregistered();
    for (const extra of [[], ['--force']]) {
      const r = await runMain(['capture', '--file', file, '--yes', ...extra], d.io());
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/order query/);
      expect(r.stderr).toMatch(/regist/);
      expect(r.stderr).toContain('payops status');
      expect(r.stderr).toContain('--no-check');
      expect(r.stderr).toMatch(/nothing was sent/);
    }
    expect(await movesOf('capture', orders)).toHaveLength(0);
  });

  it('--no-check captures without the check and says what it gives up; the gateway refuses a second capture', async () => {
    const orders = await createOrders(sandbox.url, 3, '2000');
    const d = desk();
    const file = writeOrders(d.dir, 'capture.csv', orders);
    await unregistered();
    const r = await runMain(['capture', '--file', file, '--yes', '--no-check'], d.io());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not checked at the gateway \(--no-check\)/);
    expect(r.stderr).toMatch(/refuses a second capture/);
    expect(await movesOf('capture', orders)).toHaveLength(3);

    // The same file sent again on purpose: the gateway's state machine refuses each row.
    const again = await runMain(['capture', '--file', file, '--yes', '--no-check', '--force'], d.io());
    expect(again.code, again.stderr).toBe(1);
    expect(await movesOf('capture', orders)).toHaveLength(3);
  });

  it('--no-check cancels and reviews too', async () => {
    const d = desk();
    await unregistered();
    const toCancel = await createOrders(sandbox.url, 2, '2000');
    const cancel = await runMain(
      ['cancel', '--file', writeOrders(d.dir, 'cancel.csv', toCancel), '--yes', '--no-check'],
      d.io(),
    );
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(await movesOf('cancel', toCancel)).toHaveLength(2);
    const toReview = await createOrders(sandbox.url, 1, '1000');
    const o = toReview[0]!;
    const review = await runMain(
      [
        'review',
        '--transaction-id',
        o.transaction_id,
        '--order-no',
        o.order_no,
        '--currency',
        o.currency,
        '--amount',
        o.amount,
        '--review-flag',
        '1',
        '--yes',
        '--no-check',
      ],
      d.io(),
    );
    expect(review.code, review.stderr).not.toBe(4);
    expect(review.code, review.stderr).not.toBe(2);
  });

  it('refunds keep their check: --no-check is refused (refund search is not IP-restricted)', async () => {
    const orders = await createOrders(sandbox.url, 2);
    const d = desk();
    const file = writeRefunds(d.dir, orders);
    await unregistered();
    const refused = await runMain(['refund', '--file', file, '--yes', '--no-check'], d.io());
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/refund search/);
    expect(await movesOf('refund', orders)).toHaveLength(0);
    const r = await runMain(['refund', '--file', file, '--yes'], d.io());
    expect(r.code, r.stderr).toBe(0);
    expect(await movesOf('refund', orders)).toHaveLength(2);
  });
});
