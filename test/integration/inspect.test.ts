// `payops inspect` as a user runs it (issue 26, item 8): the real binary on workbooks LibreOffice
// wrote (test/fixtures/xlsx) and on CSV files. --cells --output json is what a corpus test runs on
// hundreds of workbooks: its shape, and a refused file's exit 2 with its cause, are checked here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers/run-cli.js';
import { hasScript, underPty } from './commands/pty.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');

describe('payops inspect (the binary)', () => {
  it('--cells --output json: every sheet of a workbook, each cell as bulk reads it', async () => {
    const r = await runCli(['inspect', join(FIXTURES, 'hidden-sheet.xlsx'), '--cells', '--output', 'json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.sheets.map((s: { name: string; hidden: boolean }) => [s.name, s.hidden])).toEqual([
      ['Old', true],
      ['Refunds', false],
    ]);
    expect(json.sheets[1].rows[1]).toEqual([
      'TX14000001',
      '100234',
      'USD',
      '100',
      '12.5',
      'customer request',
    ]);
  });

  it('--cells: a number formatted 000000 as the sheet shows it, a date as its serial number', async () => {
    const r = await runCli(['inspect', join(FIXTURES, 'formats.xlsx'), '--cells', '--output', 'json']);
    const rows = JSON.parse(r.stdout).sheets[0].rows;
    expect(rows[1]).toEqual(['TX26000001', '001234', 'USD', '100', '10.2', 'damaged in transit', '46346']);
    // F3 and F4 are covered by the merged F2:F4: as stored, empty.
    expect(rows[2][5]).toBe('');
  });

  it('--cells of a CSV file: one sheet named after it', async () => {
    const r = await runCli(['inspect', join(FIXTURES, 'refunds-de.csv'), '--cells', '--output', 'json']);
    const json = JSON.parse(r.stdout);
    expect(json.sheets[0].name).toBe('refunds-de.csv');
    expect(json.sheets[0].rows[1]).toEqual([
      'TX14000001',
      '100234',
      'USD',
      '100,00',
      '12,50',
      'customer request',
    ]);
  });

  it('a password-protected workbook and a damaged one exit 2 with their cause, nothing on stdout', async () => {
    // An OLE2 file whose directory names the stream EncryptedPackage, as Office writes one.
    const ole = Buffer.alloc(1024);
    ole.writeUInt32BE(0xd0cf11e0, 0);
    const name = Buffer.from('EncryptedPackage\u0000', 'utf16le');
    name.copy(ole, 512);
    ole.writeUInt16LE(name.length, 512 + 0x40);
    ole[512 + 0x42] = 2;
    const dir = tempDir();
    writeFileSync(join(dir, 'locked.xlsx'), ole);
    let r = await runCli(['inspect', join(dir, 'locked.xlsx'), '--cells', '--output', 'json']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('the workbook is protected by a password: save an unprotected copy');
    writeFileSync(join(dir, 'cut.xlsx'), Buffer.from('PK\u0003\u0004 cut short'));
    r = await runCli(['inspect', join(dir, 'cut.xlsx')]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('cannot be read');
  });

  it('the summary of a workbook: sheet read, header, columns, rows, first rows', async () => {
    const r = await runCli(['inspect', 'refunds-en.xlsx', '--rows', '2'], { cwd: FIXTURES });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('an .xlsx workbook, read as the refund command reads it');
    expect(r.stdout).toMatch(/header: +row 1/);
    expect(r.stdout).toMatch(/refund_amount +"refund_amount" \(E\)/);
    expect(r.stdout).toMatch(/rows: +5/);
    expect(r.stdout).toContain('the first 2 rows as read:');
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it.skipIf(!hasScript)('on an 80-column terminal every line fits, the first rows as a table', async () => {
    const r = await underPty(
      ['inspect', 'test/fixtures/xlsx/formats.xlsx', '--sheet', 'Refunds'],
      [],
      cliEnv(tempDir()),
      80,
    );
    expect(r.code, r.out).toBe(0);
    // Colour codes take no column.
    const lines = r.out.replace(/\u001b\[[0-9;]*m/g, '').split(/\r?\n/);
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    expect(
      lines.some((l) => l.startsWith('merged:') && l.includes('F2:F4 (refund_reason: carried down)')),
    ).toBe(true);
    expect(
      lines.some((l) => /^2 +TX26000001 +001234 +USD +100 +10\.2 /.test(l)),
      r.out,
    ).toBe(true);
  });
});
