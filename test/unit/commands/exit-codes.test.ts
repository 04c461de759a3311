// Exit codes per kind of outcome, through main(argv, io) in this process, against a sandbox started
// here (real loopback HTTP): 4 for configuration, 2 for input, 1 for some failed, 3 for outcomes
// the gateway never confirmed, 0 for a dry run — and the sandbox's ledger shows what was sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { jsonRows } from '../../helpers/json-rows.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger, setFaults } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, faultsOnceSending, runIds, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** An Io whose PAYOPS_HOME holds a read-only profile, pointed at the test sandbox. */
function readOnlyIo() {
  const home = tempDir('payops-ro-');
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ current: 'support', profiles: { support: { read_only: true } } }),
    { mode: 0o600 },
  );
  return fakeIo({ home, cwd: home, env: sandbox.env });
}

/** The outcome column of CSV results. */
function outcomes(csv: string): string[] {
  return (parse(csv, { columns: true }) as Array<{ outcome: string }>).map((r) => r.outcome);
}

const PAYOUT_REQUEST = join(REPO_ROOT, 'samples', 'payout-request.json');

describe('configuration errors: exit 4', () => {
  it('a read-only profile refuses every money-moving command, and nothing is sent', async () => {
    const [order] = await createOrders(sandbox.url, 1);
    const before = (await ledger(sandbox.url)).length;
    const oneOrder = ['--transaction-id', order!.transaction_id, '--order-no', order!.order_no];
    const money = ['--currency', 'USD', '--amount', order!.amount];
    const commands = [
      ['refund', ...oneOrder, ...money, '--refund-amount', '1.00', '--refund-reason', 'x', '--yes'],
      ['capture', ...oneOrder, ...money, '--yes'],
      ['payout', '--request', PAYOUT_REQUEST, '--yes'],
      ['call', '/v1/refund', '--data', `transaction_id=${order!.transaction_id}`],
    ];
    for (const argv of commands) {
      const io = readOnlyIo();
      const r = await runMain(argv, io);
      expect(r.code, `${argv[0]}: ${r.stderr}`).toBe(4);
      expect(r.stderr, argv[0]).toMatch(/read.only/i);
      expect(r.stderr, argv[0]).toContain('support');
      expect(runIds(io.home), argv[0]).toEqual([]);
    }
    expect((await ledger(sandbox.url)).length).toBe(before);
  });

  it('a read-only profile still answers queries (exit 0)', async () => {
    const [order] = await createOrders(sandbox.url, 1);
    const r = await runMain(['query', '--order-no', order!.order_no, '--output', 'json'], readOnlyIo());
    expect(r.code, r.stderr).toBe(0);
    expect(jsonRows(r.stdout)[0].order_no).toBe(order!.order_no);
  });

  it('a gateway without a sign key: exit 4, named', async () => {
    const io = fakeIo({ env: { ...sandbox.env, PAYOPS_SIGN_KEY: undefined } });
    const r = await runMain(['query', '--order-no', 'ORD-1'], io);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/sign.key/i);
  });
});

describe('dry run: exit 0, nothing sent, no journal', () => {
  it('refund, payout and query print their plan and send nothing', async () => {
    const orders = await createOrders(sandbox.url, 3);
    const before = (await ledger(sandbox.url)).length;
    const io = fakeIo({ env: sandbox.env });
    const file = writeRefunds(io.cwd, orders);

    const refund = await runMain(['refund', '--file', file, '--dry-run'], io);
    expect(refund.code, refund.stderr).toBe(0);
    expect(refund.stderr).toMatch(/dry run — nothing will be sent: refund 3 orders from refunds\.csv/);

    const payout = await runMain(
      ['payout', '--request', PAYOUT_REQUEST, '--dry-run'],
      fakeIo({ env: sandbox.env }),
    );
    expect(payout.code, payout.stderr).toBe(0);

    const query = await runMain(['query', '--order-no', 'A,B', '--dry-run'], fakeIo({ env: sandbox.env }));
    expect(query.code, query.stderr).toBe(0);
    expect(query.stderr).toContain('dry run: 1 request to /v1/retrievalTrans, nothing sent');

    expect((await ledger(sandbox.url)).length).toBe(before);
    expect(runIds(io.home)).toEqual([]);
  });

  it('--sandbox: a dry run against the in-process sandbox, which is closed afterwards', async () => {
    const r = await runMain([
      '--sandbox',
      'refund',
      '--file',
      join(REPO_ROOT, 'samples', 'refunds.csv'),
      '--dry-run',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/gateway: in-process sandbox http:\/\/127\.0\.0\.1:\d+/);
    // expectCleanProcess checks that its server is gone.
  });
});

describe('outcomes of a run', () => {
  it('invalid input: exit 2 with file:line, nothing sent', async () => {
    const io = fakeIo({ env: sandbox.env });
    writeFileSync(join(io.cwd, 'bad.csv'), 'transaction_id,order_no,currency,amount\nT1,O1,USD,ten\n');
    const before = (await ledger(sandbox.url)).length;
    const r = await runMain(['capture', '--file', 'bad.csv', '--yes'], io);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.csv:2');
    expect((await ledger(sandbox.url)).length).toBe(before);
  });

  it('all succeeded: exit 0; some declined by the gateway: exit 1', async () => {
    const captured = await createOrders(sandbox.url, 2);
    const ok = fakeIo({ env: sandbox.env });
    const good = await runMain(
      ['refund', '--file', writeRefunds(ok.cwd, captured), '--yes', '--output', 'csv'],
      ok,
    );
    expect(good.code, good.stderr).toBe(0);

    const authorised = await createOrders(sandbox.url, 1, '2000');
    const mixed = fakeIo({ env: sandbox.env });
    const more = await createOrders(sandbox.url, 1);
    const r = await runMain(
      ['refund', '--file', writeRefunds(mixed.cwd, [...more, ...authorised]), '--yes', '--output', 'csv'],
      mixed,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(outcomes(r.stdout)).toEqual(['succeeded', 'failed']);
  });

  it('answers lost and the gateway cannot be asked: exit 3, the run left to resume', async () => {
    const orders = await createOrders(sandbox.url, 2);
    const io = fakeIo({ env: sandbox.env });
    try {
      const r = await runMain(
        ['refund', '--file', writeRefunds(io.cwd, orders), '--yes', '--output', 'csv'],
        io,
        faultsOnceSending(sandbox.url, { mode: 'drop_after_commit', rate: 1 }),
      );
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/resume with: payops refund --file refunds\.csv --resume --yes/);
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
  });
});
