// Payout workbooks follow the rules of bulk files for what a person cannot see (issue 23, item 7),
// through the real binary against a sandbox on loopback, judged by its ledger: a hidden first sheet
// (EUR 5,000 to an old supplier, which a dry run used to show as the payout) is refused, and a
// hidden row is refused unless --skip-hidden or --include-hidden. The workbooks were saved by
// LibreOffice (test/fixtures/xlsx/README.md).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../../helpers/sandbox.js';
import { ledger } from '../../helpers/sandbox-admin.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');

function workdir(...names: string[]): string {
  const dir = tempDir();
  for (const n of names) copyFileSync(join(FIXTURES, n), join(dir, n));
  return dir;
}

/** `EUR 1250.00` per payout the sandbox paid. */
async function paid(sandbox: TestSandbox): Promise<string[]> {
  return (await ledger(sandbox.url))
    .filter((e) => e.kind === 'payout')
    .map((e) => `${(e as { currency?: string }).currency} ${e.amount}`);
}

describe('payout workbooks follow the same rules', { timeout: 120_000 }, () => {
  it('a hidden first sheet (EUR 5,000 to an old supplier) is refused, even in a dry run; nothing is paid', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('payouts-hidden-sheet.xlsx');
      const dry = await runCli(['payout', '--file', 'payouts-hidden-sheet.xlsx', '--dry-run'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(dry.code, dry.stderr).toBe(2);
      expect(dry.stderr).not.toMatch(/5,?000/);
      const r = await runCli(['payout', '--file', 'payouts-hidden-sheet.xlsx', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('2024');
      expect(await paid(sandbox)).toEqual([]);
      const ok = await runCli(
        ['payout', '--file', 'payouts-hidden-sheet.xlsx', '--sheet', 'Payouts', '--yes'],
        {
          env: sandbox.env,
          cwd: dir,
        },
      );
      expect(ok.code, ok.stderr).toBe(0);
      expect((await paid(sandbox)).sort()).toEqual(['EUR 1250.00', 'GBP 320.50']);
    });
  });

  it('a hidden row is refused; --skip-hidden pays the visible rows only; --include-hidden pays it too', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('payouts-hidden-row.xlsx');
      const r = await runCli(['payout', '--file', 'payouts-hidden-row.xlsx', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('payouts-hidden-row.xlsx:Payouts!A3');
      expect(await paid(sandbox)).toEqual([]);
      const skip = await runCli(['payout', '--file', 'payouts-hidden-row.xlsx', '--skip-hidden', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(skip.code, skip.stderr).toBe(0);
      expect(skip.stderr).toContain('Payouts!A3');
      expect((await paid(sandbox)).sort()).toEqual(['EUR 1250.00', 'GBP 320.50']);
    });
    await withSandbox(async (sandbox) => {
      const dir = workdir('payouts-hidden-row.xlsx');
      const all = await runCli(['payout', '--file', 'payouts-hidden-row.xlsx', '--include-hidden', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(all.code, all.stderr).toBe(0);
      expect((await paid(sandbox)).sort()).toEqual(['EUR 1250.00', 'EUR 5000.00', 'GBP 320.50']);
    });
  });
});
