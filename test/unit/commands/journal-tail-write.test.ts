// (review of issue 13) A journal whose LAST writes fail — the outcomes and the terminal record, after
// every intent is on disk — through main(argv, io) in this process against a sandbox over loopback,
// the failure injected into the journal's own file handle (support.ts failJournalWrites). The run
// must show its results, then say the journal could not be written (exit 4, not a clean exit 0), and
// a resume must end every row exactly once — judged by the sandbox's ledger.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { jsonRows } from '../../helpers/json-rows.js';
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

const PAYOUT_HEADER =
  'reference,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,payer.entity_type';

describe.runIf(process.platform === 'linux')('the journal fails only after the last intent', () => {
  it('says the journal could not be written (exit 4), not a clean exit 0', async () => {
    const orders = await createOrders(sandbox.url, 50);
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const file = writeRefunds(home, orders);
    // One chunk: its intent reaches the disk; its outcome and the terminal record do not.
    const fault = await failJournalWrites('ENOSPC', (text) => text.includes('"type":"outcome"'));
    let first: Awaited<ReturnType<typeof runMain>>;
    try {
      first = await runMain(['refund', '--file', file, '--yes', '--output', 'csv'], io());
    } finally {
      fault.restore();
    }
    expect(fault.failed()).toBeGreaterThan(0);
    expect(first.stderr).toMatch(/cannot write the run journal/);
    expect(first.code, first.stderr).toBe(4);
    // The user sees both: what the run did, then that its journal does not say it all.
    expect(first.stderr).toMatch(
      /succeeded\s+50[\s\S]*cannot write the run journal in \S+: the disk is full \(ENOSPC\)/,
    );
    expect(first.stderr).toMatch(/payops runs resume \d{8}-\d{6}-[0-9a-f]{4}/);

    // A resume asks the gateway about the rows without a journaled result and sends none twice.
    const runId = runIdIn(first.stderr);
    const resumed = await runMain(['runs', 'resume', runId, '--yes', '--output', 'csv'], io());
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = new Set(orders.map((o) => o.transaction_id));
    const refunds = (await ledger(sandbox.url)).filter(
      (e) => e.kind === 'refund' && ids.has(e.transaction_id),
    );
    expect(refunds).toHaveLength(50);
    expect(new Set(refunds.map((e) => e.transaction_id)).size).toBe(50);
  });
});

describe.runIf(process.platform === 'linux')('a payout run whose terminal record cannot be written', () => {
  it('shows the results, then says the journal could not be written (exit 4); a resume pays none twice', async () => {
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const file = join(home, 'payouts.csv');
    const rows = Array.from(
      { length: 3 },
      (_, i) => `T-${i},${i + 1}.00,EUR,SWIFT,COMPANY,Supplier ${i},DE89370400440532013000,COMPANY`,
    );
    writeFileSync(file, [PAYOUT_HEADER, ...rows].join('\n'));
    const fault = await failJournalWrites('ENOSPC', (text) => text.includes('"type":"finished"'));
    let first: Awaited<ReturnType<typeof runMain>>;
    try {
      first = await runMain(['--yes', '--output', 'json', 'payout', '--file', file], io());
    } finally {
      fault.restore();
    }
    expect(fault.failed()).toBeGreaterThan(0);
    expect(first.code, first.stderr).toBe(4);
    const shown = jsonRows(first.stdout) as Array<{ outcome: string; request_id: string }>;
    expect(shown.map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(first.stderr).toMatch(
      /payouts: 3 completed[\s\S]*cannot write the run journal in \S+: the disk is full \(ENOSPC\)/,
    );

    const resumed = await runMain(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], io());
    expect(resumed.code, resumed.stderr).toBe(0);
    const paid = (await ledger(sandbox.url)).filter(
      (e) => e.kind === 'payout' && shown.some((r) => r.request_id === e.request_id),
    );
    expect(paid).toHaveLength(3);
  });
});
