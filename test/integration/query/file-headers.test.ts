// Issue 26, item 4 ("the same for query --file and payout files"), through the real binary against a
// sandbox on loopback: `query --file` reads a workbook's sheet, a header under a title, headers named
// otherwise by --columns or the profile's columns.query, and says what it did with rows a person
// cannot see (looked up too, or left out by --skip-hidden); payout files take the profile's
// columns.payout. The workbooks were saved by LibreOffice (test/fixtures/xlsx/README.md).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { ledger } from '../../helpers/sandbox-admin.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ seedFiles: [join(FIXTURES, 'orders.csv')] });
});
afterAll(async () => {
  await sandbox?.close();
});

function workdir(...names: string[]): string {
  const dir = tempDir();
  for (const n of names) copyFileSync(join(FIXTURES, n), join(dir, n));
  return dir;
}

/** The order numbers the JSON answer shows found. */
function found(stdout: string): string[] {
  return (JSON.parse(stdout) as Array<{ found: boolean; transaction_id: string }>)
    .filter((r) => r.found)
    .map((r) => r.transaction_id)
    .sort();
}

describe('query --file as the person sees it (issue 26, item 4)', { timeout: 120_000 }, () => {
  it("a workbook's hidden rows are looked up too and said so; --skip-hidden leaves them out", async () => {
    const dir = workdir('hidden-rows.xlsx');
    const all = await runCli(['query', '--file', 'hidden-rows.xlsx', '--output', 'json'], {
      env: sandbox.env,
      cwd: dir,
    });
    expect(all.code, all.stderr).toBe(0);
    expect(found(all.stdout)).toEqual(['TX14000001', 'TX14000002', 'TX14000004', 'TX14000006']);
    expect(all.stderr).toMatch(/2 hidden or filtered-out rows looked up too \(Refunds!A3, Refunds!A5\)/);

    const seen = await runCli(['query', '--file', 'hidden-rows.xlsx', '--skip-hidden', '--output', 'json'], {
      env: sandbox.env,
      cwd: dir,
    });
    expect(seen.code, seen.stderr).toBe(0);
    expect(found(seen.stdout)).toEqual(['TX14000001', 'TX14000004']);
    expect(seen.stderr).toMatch(
      /2 hidden or filtered-out rows left out \(--skip-hidden\): Refunds!A3, Refunds!A5/,
    );
  });

  it('a hidden first sheet needs a choice, and the flags the hint names exist; --sheet picks one', async () => {
    const dir = workdir('hidden-sheet.xlsx');
    const refused = await runCli(['query', '--file', 'hidden-sheet.xlsx', '--output', 'json'], {
      env: sandbox.env,
      cwd: dir,
    });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('--skip-hidden');
    for (const args of [['--skip-hidden'], ['--sheet', 'Refunds']]) {
      const r = await runCli(['query', '--file', 'hidden-sheet.xlsx', ...args, '--output', 'json'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(found(r.stdout)).toEqual(['TX14000001']);
    }
  });

  it('a title above the header and a header named otherwise: --columns, --header-row, the profile', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'export.csv'), 'Orders to check\n\nInvoice,Note\n100234,a\n100237,b\n');
    const refused = await runCli(['query', '--file', 'export.csv'], { env: sandbox.env, cwd: dir });
    expect(refused.code).toBe(2);
    // The way forward is named, as refund's refusal names it.
    expect(refused.stderr.replace(/\s+/g, ' ')).toContain("--columns 'order_no=HEADER'");

    const byFlag = await runCli(
      ['query', '--file', 'export.csv', '--columns', 'order_no=Invoice', '--output', 'json'],
      { env: sandbox.env, cwd: dir },
    );
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(found(byFlag.stdout)).toEqual(['TX14000001', 'TX14000004']);
    expect(byFlag.stderr).toMatch(/header: row 3 \(the rows above it are left out\)/);
    expect(byFlag.stderr).toMatch(/order_no ← "Invoice" \(--columns\)/);

    const byRow = await runCli(
      [
        'query',
        '--file',
        'export.csv',
        '--columns',
        'order_no=Invoice',
        '--header-row',
        '3',
        '--output',
        'json',
      ],
      { env: sandbox.env, cwd: dir },
    );
    expect(byRow.code, byRow.stderr).toBe(0);
    expect(byRow.stderr).toMatch(/header: row 3 \(--header-row\)/);

    const home = tempDir();
    const set = await runCli(['config', 'set', 'columns.query', 'order_no=Invoice'], { home });
    expect(set.code, set.stderr).toBe(0);
    const byProfile = await runCli(['query', '--file', 'export.csv', '--output', 'json'], {
      env: sandbox.env,
      cwd: dir,
      home,
    });
    expect(byProfile.code, byProfile.stderr).toBe(0);
    expect(found(byProfile.stdout)).toEqual(['TX14000001', 'TX14000004']);
    expect(byProfile.stderr).toMatch(/order_no ← "Invoice" \(the profile's columns\.query\)/);
  });
});

describe("payout files and the profile's columns.payout (issue 26, item 4)", { timeout: 120_000 }, () => {
  it('a mapping kept in the profile pays the file whose header names the reference otherwise', async () => {
    const sample = readFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    const dir = tempDir();
    writeFileSync(
      join(dir, 'payouts.csv'),
      `${[sample[0]!.replace(/^reference/, 'Invoice'), ...sample.slice(1)].join('\n')}\n`,
    );
    const home = tempDir();
    const refused = await runCli(['--yes', 'payout', '--file', 'payouts.csv'], {
      env: sandbox.env,
      cwd: dir,
      home,
    });
    expect(refused.code).toBe(2);
    const before = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout').length;
    expect((await runCli(['config', 'set', 'columns.payout', 'reference=Invoice'], { home })).code).toBe(0);
    const r = await runCli(['--yes', 'payout', '--file', 'payouts.csv'], {
      env: sandbox.env,
      cwd: dir,
      home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/reference ← "Invoice" \(the profile's columns\.payout\)/);
    const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout').length - before;
    expect(paid).toBe(sample.length - 1);
  });
});
