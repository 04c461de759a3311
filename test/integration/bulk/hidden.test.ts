// Rows and sheets a person cannot see never move money silently (issue 23, item 7), through the
// real binary against a sandbox on loopback, judged by its ledger. The workbooks were saved by
// LibreOffice (test/fixtures/xlsx/README.md): rows hidden by hand, rows an autofilter hides, a
// hidden first sheet. Without --include-hidden or --skip-hidden a run refuses them (exit 2, nothing
// sent) and names each by its cell; --skip-hidden leaves them out (outcome `skipped`),
// --include-hidden sends them. Payout workbooks: test/integration/payout/hidden.test.ts.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../../helpers/sandbox.js';
import { ledger } from '../../helpers/sandbox-admin.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');
const seeded = { seedFiles: [join(FIXTURES, 'orders.csv')] };

function workdir(...names: string[]): string {
  const dir = tempDir();
  for (const n of names) copyFileSync(join(FIXTURES, n), join(dir, n));
  return dir;
}

async function refunded(sandbox: TestSandbox): Promise<string[]> {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'refund').map((e) => e.transaction_id);
}

describe('hidden and filtered-out rows of a refund workbook', { timeout: 120_000 }, () => {
  for (const [name, why] of [
    ['hidden-rows.xlsx', 'hidden'],
    ['filtered.xlsx', 'filter'],
  ] as const) {
    it(`${name}: refused without a flag (exit 2, nothing sent), each row named by its cell`, async () => {
      await withSandbox(async (sandbox) => {
        const dir = workdir(name);
        const r = await runCli(['refund', '--file', name, '--yes'], { env: sandbox.env, cwd: dir });
        expect(r.code, r.stderr).toBe(2);
        expect(await refunded(sandbox)).toEqual([]);
        expect(r.stderr).toContain(`${name}:Refunds!A3`);
        expect(r.stderr).toContain(`${name}:Refunds!A5`);
        expect(r.stderr).toMatch(why === 'filter' ? /filter/ : /hidden/);
        expect(r.stderr).toContain('--include-hidden');
        expect(r.stderr).toContain('--skip-hidden');
      }, seeded);
    });
  }

  it('a dry run lists the hidden rows and names the sheet it read', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('filtered.xlsx');
      const r = await runCli(['refund', '--file', 'filtered.xlsx', '--dry-run'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.stderr).toMatch(/sheet read: Refunds/);
      expect(r.stderr).toMatch(/2 rows hidden/);
      expect(r.stderr).toContain('Refunds!A3');
      expect(r.stderr).toContain('Refunds!A5');
      expect(r.stderr).toMatch(/a run refuses them unless --include-hidden or --skip-hidden/);
      expect(await refunded(sandbox)).toEqual([]);
    }, seeded);
  });

  it('--skip-hidden refunds only the rows a person sees; the others are `skipped` in the results', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('filtered.xlsx');
      const r = await runCli(
        ['refund', '--file', 'filtered.xlsx', '--skip-hidden', '--yes', '--out', 'out.csv'],
        {
          env: sandbox.env,
          cwd: dir,
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect((await refunded(sandbox)).sort()).toEqual(['TX14000001', 'TX14000004']);
      const lines = readFileSync(join(dir, 'out.csv'), 'utf8').trim().split(/\r?\n/);
      const skipped = lines.filter((l) => /,skipped,/.test(l));
      expect(skipped.map((l) => l.split(',')[0])).toEqual(['TX14000002', 'TX14000006']);
      expect(skipped[0]).toContain('Refunds!A3');
      expect(lines.filter((l) => /,succeeded,/.test(l))).toHaveLength(2);
      expect(r.stderr).toMatch(/skipped\s+2/);
      // `runs show` reports them as the run did (they are in no chunk of its journal).
      const shown = await runCli(['runs', 'show', '--out', 'shown.csv'], {
        env: sandbox.env,
        cwd: dir,
        home: r.home,
      });
      expect(shown.code, shown.stderr).toBe(0);
      const again = readFileSync(join(dir, 'shown.csv'), 'utf8').trim().split(/\r?\n/);
      expect(again.filter((l) => /,skipped,/.test(l)).map((l) => l.split(',')[0])).toEqual([
        'TX14000002',
        'TX14000006',
      ]);
      expect(shown.stderr).toMatch(/skipped\s+2/);
    }, seeded);
  });

  it('--include-hidden refunds every row, hidden ones too', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('hidden-rows.xlsx');
      const r = await runCli(['refund', '--file', 'hidden-rows.xlsx', '--include-hidden', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      expect((await refunded(sandbox)).sort()).toEqual([
        'TX14000001',
        'TX14000002',
        'TX14000004',
        'TX14000006',
      ]);
    }, seeded);
  });

  it('--include-hidden and --skip-hidden together are a usage error', async () => {
    const dir = workdir('hidden-rows.xlsx');
    const r = await runCli(
      ['refund', '--file', 'hidden-rows.xlsx', '--include-hidden', '--skip-hidden', '--dry-run'],
      {
        cwd: dir,
      },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/give one of them/);
  });
});

describe('a hidden first sheet', { timeout: 120_000 }, () => {
  it('is refused when picked by default (exit 2, nothing sent); --sheet reads the visible one and the plan names it', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('hidden-sheet.xlsx');
      const r = await runCli(['refund', '--file', 'hidden-sheet.xlsx', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/hidden/);
      expect(r.stderr).toContain('Old');
      expect(r.stderr).toContain('--sheet Refunds');
      expect(await refunded(sandbox)).toEqual([]);

      const ok = await runCli(['refund', '--file', 'hidden-sheet.xlsx', '--sheet', 'Refunds', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stderr).toMatch(/sheet read: Refunds/);
      expect(await refunded(sandbox)).toEqual(['TX14000001']);
    }, seeded);
  });

  it('--include-hidden reads it', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('hidden-sheet.xlsx');
      const r = await runCli(['refund', '--file', 'hidden-sheet.xlsx', '--include-hidden', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/sheet read: Old \(hidden/);
      expect((await refunded(sandbox)).sort()).toEqual(['TX14000002', 'TX14000006']);
    }, seeded);
  });
});
