// Found trying payops at a terminal: file names in the summary are printed as the user gave them,
// and the plan's decimal-mark line describes the file that was read.

import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, runIdIn, unfinishedRun, writeRefunds } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

describe('--out named relatively', () => {
  it('the run summary and runs show print the name given, not an absolute path', async () => {
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const file = writeRefunds(home, await createOrders(sandbox.url, 2));
    const run = await runMain(['refund', '--file', file, '--yes', '--out', 'res.csv'], io());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/results: res\.csv\n/);
    expect(run.stderr).not.toContain(`${home}/res.csv`);
    const shown = await runMain(['runs', 'show', runIdIn(run.stderr), '--out', 'again.csv'], io());
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(/results: again\.csv\n/);
    expect(shown.stderr).not.toContain(`${home}/again.csv`);
  });
});

describe('the plan of a workbook', () => {
  it('does not call an .xlsx "a comma-separated file"', async () => {
    const home = tempDir('payops-desk-');
    copyFileSync(join(REPO_ROOT, 'test/fixtures/xlsx/refunds-en.xlsx'), join(home, 'refunds.xlsx'));
    const r = await runMain(
      ['--sandbox', 'refund', 'refunds.xlsx', '--dry-run'],
      fakeIo({ home, cwd: home }),
    );
    expect(r.stderr).toContain('amounts read with a decimal point (12.50)');
    expect(r.stderr).not.toContain('comma-separated');
    expect(r.stderr).toMatch(/decimal point \(12\.50\): default \(a workbook/);
  });
});

describe('a payout run', () => {
  it('is listed by the name the user gave, not an absolute path', async () => {
    const home = tempDir('payops-desk-');
    copyFileSync(join(REPO_ROOT, 'samples/payouts.csv'), join(home, 'payouts.csv'));
    const io = () => fakeIo({ home, cwd: home });
    const run = await runMain(
      ['--sandbox', 'payout', '--file', 'payouts.csv', '--yes', '--output', 'csv'],
      io(),
    );
    expect(run.code, run.stderr).toBe(0);
    const list = await runMain(['runs', 'list', '--output', 'csv'], io());
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/,payout,payouts\.csv,/);
    expect(list.stdout).not.toContain(home);
  });
});

describe('runs show --only … --out fix.csv of an unfinished run', () => {
  it('does not suggest a resume that would write its results over fix.csv', async () => {
    const home = tempDir('payops-desk-');
    const io = () => fakeIo({ home, cwd: home, env: sandbox.env });
    const { runId } = await unfinishedRun(sandbox.url, io);
    const shown = await runMain(['runs', 'show', runId, '--only', 'unknown', '--out', 'fix.csv'], io());
    expect(shown.stderr).toContain('resume with: payops refund --file refunds.csv --resume --yes\n');
    expect(shown.stderr).not.toContain('--resume --yes --out fix.csv');
    expect(shown.stderr).toMatch(/3 rows unknown written to fix\.csv/);
  });
});

describe('query --all over a second with more orders than one answer', () => {
  it('says so in words about orders, fitted to the terminal', async () => {
    await createOrders(sandbox.url, 150);
    const home = tempDir('payops-desk-');
    const io = fakeIo({ home, cwd: home, env: sandbox.env });
    Object.assign(io.stderr, { columns: 80 });
    const from = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    const r = await runMain(['query', '--from', from, '--all', '--output', 'csv'], io);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/held more orders than the gateway returns/);
    expect(r.stderr).not.toContain('orders of other orders');
    expect(r.stderr).not.toContain('every order of the orders');
    for (const line of r.stderr.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

describe('help pages on an 80-column terminal', () => {
  for (const path of [
    [],
    ['refund'],
    ['query'],
    ['refunds', 'search'],
    ['runs', 'show'],
    ['status'],
    ['payout'],
  ]) {
    it(`payops ${[...path, '--help'].join(' ')}: no line wider than 80, examples whole`, async () => {
      const io = fakeIo();
      Object.assign(io.stdout, { columns: 80 });
      const r = await runMain([...path, '--help'], io);
      expect(r.code).toBe(0);
      const wide = r.stdout.split('\n').filter((l) => l.length > 80 && !/^\s*payops\b/.test(l));
      expect(wide).toEqual([]);
      if (path.length === 0)
        expect(r.stdout).toMatch(/\n {2}payops refund refunds\.csv --dry-run\n {6}check a file/);
    });
  }
});

describe('the plan with every setting from the environment', () => {
  it('does not name a profile that gave none of them', async () => {
    const home = tempDir('payops-desk-');
    const io = fakeIo({ home, cwd: home, env: sandbox.env });
    const file = writeRefunds(home, await createOrders(sandbox.url, 1));
    const r = await runMain(['refund', file, '--dry-run'], io);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/· profile default\n/);
    expect(r.stderr).toContain('settings from the environment');
  });
});

describe('an input error on an 80-column terminal', () => {
  it('lists each problem wrapped at spaces, no line wider than the terminal', async () => {
    const home = tempDir('payops-desk-');
    copyFileSync(join(REPO_ROOT, 'samples/refunds-with-mistakes.csv'), join(home, 'm.csv'));
    const io = fakeIo({ home, cwd: home });
    Object.assign(io.stderr, { columns: 80 });
    const r = await runMain(['--sandbox', 'refund', 'm.csv', '--dry-run'], io);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('  m.csv:4 transaction_id: "1.23457E+15"');
    const wide = r.stderr.split('\n').filter((l) => l.length > 80 && !/payops\s/.test(l));
    expect(wide).toEqual([]);
  });
});
