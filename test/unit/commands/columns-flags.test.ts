// Issue 26, items 3 and 4: --columns, --header-row and the profile's columns.<command>, in process.
// A mapping is checked before anything is read (a column the command does not read, a pair without
// `=`); the profile keeps a mapping for the next file and --columns overrides it; the plan says
// which mapping was used.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger, type SandboxOrder, setFaults } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, faultsOnceSending, runIdIn } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

function desk() {
  const dir = tempDir('payops-desk-');
  return { dir, io: () => fakeIo({ home: dir, cwd: dir, env: sandbox.env }) };
}

function exportFile(dir: string, orders: readonly SandboxOrder[], title = false): string {
  const rows = orders.map((o) => `${o.transaction_id},${o.order_no},${o.currency},${o.amount},1.00,goodwill`);
  const lines = [
    ...(title ? ['Refunds November 2026', ''] : []),
    'Txn Ref,Invoice,Currency,Amount,Refund Amount,Reason',
    ...rows,
  ];
  writeFileSync(join(dir, 'export.csv'), `${lines.join('\n')}\n`);
  return 'export.csv';
}

describe('--columns, --header-row and columns.refund', () => {
  it('a mapping naming a column the command does not read, or without =, is a usage error', async () => {
    const d = desk();
    const file = exportFile(d.dir, await createOrders(sandbox.url, 1));
    const bad = await runMain(['refund', '--file', file, '--columns', 'txn=Txn Ref', '--dry-run'], d.io());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--columns: "txn" is not a column this command reads/);
    const noEq = await runMain(['refund', '--file', file, '--columns', 'Txn Ref', '--dry-run'], d.io());
    expect(noEq.code).toBe(2);
    expect(noEq.stderr).toMatch(/is not COLUMN=HEADER/);
    const zero = await runMain(['refund', '--file', file, '--header-row', '0', '--dry-run'], d.io());
    expect(zero.code).toBe(2);
  });

  it('the profile keeps a mapping for the next file; --columns overrides it; the plan says which', async () => {
    const orders = await createOrders(sandbox.url, 2);
    const d = desk();
    const set = await runMain(
      ['config', 'set', 'columns.refund', 'transaction_id=Txn Ref,order_no=Invoice'],
      d.io(),
    );
    expect(set.code, set.stderr).toBe(0);
    const file = exportFile(d.dir, orders, true);
    const r = await runMain(['refund', '--file', file, '--yes'], d.io());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(the profile's columns\.refund\)/);
    expect(r.stderr).toMatch(/header: row 3/);
    const ids = new Set(orders.map((o) => o.transaction_id));
    const moved = (await ledger(sandbox.url)).filter((e) => e.kind === 'refund' && ids.has(e.transaction_id));
    expect(moved.map((e) => e.refund_amount)).toEqual(['1.00', '1.00']);
    // --columns wins over the profile: a mapping to a header the file lacks is refused.
    const over = await runMain(
      ['refund', '--file', file, '--columns', 'order_no=Order Ref', '--dry-run'],
      d.io(),
    );
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/mapped by --columns to the header "Order Ref"/);
  });

  it('--header-row names the row; the plan says so', async () => {
    const d = desk();
    const file = exportFile(d.dir, await createOrders(sandbox.url, 1), true);
    const r = await runMain(
      [
        'refund',
        '--file',
        file,
        '--header-row',
        '3',
        '--columns',
        'transaction_id=Txn Ref,order_no=Invoice',
        '--dry-run',
      ],
      d.io(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/header: row 3 \(--header-row/);
  });

  it('a resume reads the file with the mapping and header row its run kept, whatever is given now', async () => {
    const orders = await createOrders(sandbox.url, 3);
    const ids = orders.map((o) => o.transaction_id);
    const d = desk();
    const file = exportFile(d.dir, orders, true);
    const mapped = ['--columns', 'transaction_id=Txn Ref,order_no=Invoice', '--header-row', '3'];
    let first: Awaited<ReturnType<typeof runMain>>;
    try {
      first = await runMain(
        ['refund', '--file', file, ...mapped, '--yes'],
        d.io(),
        faultsOnceSending(sandbox.url, { mode: 'drop_after_commit', rate: 1 }),
      );
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
    expect(first.code, first.stderr).toBe(3);
    // Without --columns (as the printed resume command runs it): read as the run read it.
    const resumed = await runMain(['runs', 'resume', runIdIn(first.stderr), '--yes'], d.io());
    expect(resumed.code, resumed.stderr).toBe(0);
    const refunds = (await ledger(sandbox.url)).filter(
      (e) => e.kind === 'refund' && ids.includes(e.transaction_id),
    );
    expect(refunds).toHaveLength(3);
  });
});
