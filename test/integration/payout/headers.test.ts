// Issue 26, items 3 and 4, for payout files, through the real binary against a sandbox on loopback,
// judged by its ledger: the sample payouts exported with a title above the header, dashboard names
// ("Payment Amount", "Payment Currency") and a column mapped by --columns ("Invoice" for reference)
// pay exactly the sample's payouts; without the mapping the file is refused and nothing is paid.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin, ledger } from '../pay/support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const SAMPLE_CSV = readFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), 'utf8');

describe('payout files as exported (issue 26, items 3 and 4)', { timeout: 120_000 }, () => {
  it('a title, dashboard names and --columns: the ledger holds the sample payouts', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const [header, ...rows] = SAMPLE_CSV.trimEnd().split('\n');
    const renamed = header!
      .replace('payment_amount', 'Payment Amount')
      .replace('payment_currency', 'Payment Currency')
      .replace(/^reference/, 'Invoice');
    const dir = tempDir();
    const file = join(dir, 'payouts-export.csv');
    writeFileSync(file, `Payouts November 2026\n\n${[renamed, ...rows].join('\n')}\n`);
    const home = tempDir();
    const refused = await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env, home });
    expect(refused.code).toBe(2);
    expect((await ledger(sandbox.url)).filter((e) => e.kind === 'payout')).toHaveLength(0);
    const r = await runCli(['--yes', 'payout', '--file', file, '--columns', 'reference=Invoice'], {
      env: sandbox.env,
      home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/header: row 3/);
    expect(r.stderr).toMatch(/payment_amount ← "Payment Amount"/);
    const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
    const amountAt = header!.split(',').indexOf('payment_amount');
    expect(paid.map((e) => e.payment_amount).sort()).toEqual(rows.map((l) => l.split(',')[amountAt]).sort());
  });
});
