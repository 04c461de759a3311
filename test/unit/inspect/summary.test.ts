// `payops inspect FILE` without --cells (issue 26, item 8), in process: the sheet and header a
// command reads, the column each header was matched to (--for, --columns, --header-row), hidden and
// filtered rows, merged ranges and the first rows as read; a file the command refuses exits 2 with
// the refusal and the rows it holds. The text fits 80 columns.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { buildBook } from './book.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/xlsx');

function csv(text: string, name = 'export.csv'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

async function inspectJson(...argv: string[]) {
  const r = await runMain(['inspect', ...argv, '--output', 'json']);
  return { ...r, json: JSON.parse(r.stdout) };
}

function fits80(text: string): void {
  for (const line of text.split('\n')) expect([line.length <= 80, line]).toEqual([true, line]);
}

const DASHBOARD =
  'Refunds November 2026\n\nTxn Ref,Order No.,Currency,Amount,Refund Amount,Reason\nT1,O1,USD,10.00,1.00,goodwill\n';

describe('inspect FILE', () => {
  it('finds the header below a title, as refund does by default, and says which header each column is', async () => {
    const file = csv(DASHBOARD);
    const { code, json } = await inspectJson(file, '--columns', 'transaction_id=Txn Ref');
    expect(code).toBe(0);
    expect(json).toMatchObject({ kind: 'csv', for: 'refund', forWhy: 'default' });
    expect(json.csv).toMatchObject({ encoding: 'utf-8', delimiter: ',', bom: false });
    expect(json.header.line).toBe(3);
    expect(json.header.columns).toEqual([
      { column: 'transaction_id', required: true, header: 'Txn Ref', at: 'column 1', how: 'mapped' },
      { column: 'order_no', required: true, header: 'Order No.', at: 'column 2', how: 'name' },
      { column: 'currency', required: true, header: 'Currency', at: 'column 3', how: 'name' },
      { column: 'amount', required: true, header: 'Amount', at: 'column 4', how: 'name' },
      { column: 'refund_amount', required: true, header: 'Refund Amount', at: 'column 5', how: 'name' },
      { column: 'refund_reason', required: true, header: 'Reason', at: 'column 6', how: 'alias' },
    ]);
    expect(json.rows).toEqual({ count: 1, hidden: [], withProblems: 0, problems: [] });
    expect(json.first).toEqual([{ line: 4, cells: ['T1', 'O1', 'USD', '10.00', '1.00', 'goodwill'] }]);
  });

  it("reads the file as the command would with the profile's columns.refund (not refused), and says whose mapping", async () => {
    const file = csv(DASHBOARD);
    const home = tempDir('payops-home-');
    const set = await runMain(
      ['config', 'set', 'columns.refund', 'transaction_id=Txn Ref'],
      fakeIo({ home }),
    );
    expect(set.code, set.stderr).toBe(0);
    const r = await runMain(['inspect', file, '--output', 'json'], fakeIo({ home }));
    expect(r.code, r.stdout).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.header.mappedBy).toBe("the profile's columns.refund");
    expect(json.header.columns[0]).toMatchObject({
      column: 'transaction_id',
      header: 'Txn Ref',
      how: 'mapped',
    });
    // --columns given replaces the profile's, as for the command.
    const flag = await runMain(
      ['inspect', file, '--output', 'json', '--columns', 'transaction_id=Txn Ref'],
      fakeIo({ home }),
    );
    expect(JSON.parse(flag.stdout).header.mappedBy).toBe('--columns');
  });

  it('without the mapping refund refuses the file: exit 2, the refusal and the rows as they are', async () => {
    const file = csv(DASHBOARD);
    const r = await runMain(['inspect', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('refused:');
    expect(r.stdout).toContain("--columns 'transaction_id=Txn Ref'");
    expect(r.stdout).toContain('line 1: "Refunds November 2026"');
    fits80(r.stdout);
  });

  it('--for query reads the ids query reads; --header-row sets the header', async () => {
    const file = csv(DASHBOARD);
    const { code, json } = await inspectJson(file, '--for', 'query', '--header-row', '3');
    expect(code).toBe(0);
    expect(json).toMatchObject({ for: 'query', forWhy: 'given', header: { line: 3, byFlag: true } });
    expect(json.header.columns.map((c: { column: string; header?: string }) => [c.column, c.header])).toEqual(
      [
        ['order_no', 'Order No.'],
        ['transaction_id', undefined],
      ],
    );
  });

  it('--for payout lists the payout fields the header names', async () => {
    const { code, json } = await inspectJson(join(FIXTURES, 'payouts.xlsx'), '--for', 'payout');
    expect(code).toBe(0);
    expect(json.header.columns.length).toBeGreaterThan(0);
    expect(json.header.columns.every((c: { header?: string }) => c.header !== undefined)).toBe(true);
    expect(json.rows.count).toBe(3);
  });

  it('a semicolon file: its separator and the decimal mark its amounts use', async () => {
    const { json } = await inspectJson(join(FIXTURES, 'refunds-de.csv'));
    expect(json.csv).toMatchObject({ delimiter: ';', decimalMark: ',' });
    expect(json.csv.why).toContain('detected');
  });

  it('hidden and filtered rows are counted and named, and what refund does with them said', async () => {
    const r = await runMain(['inspect', join(FIXTURES, 'filtered.xlsx')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('hidden (by hand, or by the filter on A1:H5): Refunds!A3,');
    expect(r.stdout).toContain('refuses hidden rows unless --include-hidden');
    fits80(r.stdout);
    const { json } = await inspectJson(join(FIXTURES, 'filtered.xlsx'), '--skip-hidden');
    expect(json.rows).toMatchObject({ count: 4, hidden: ['Refunds!A3', 'Refunds!A5'], filter: 'A1:H5' });
    expect(json.notes).toBeUndefined();
  });

  it('the sheets, hidden ones marked, and the sheet refund reads', async () => {
    const { json } = await inspectJson(join(FIXTURES, 'hidden-sheet.xlsx'), '--skip-hidden');
    expect(json.sheets).toEqual([
      { name: 'Old', state: 'hidden' },
      { name: 'Refunds', state: 'visible' },
    ]);
    expect(json.sheet.name).toBe('Refunds');
    expect(json.sheet.words).toContain('--skip-hidden passed over');
    const r = await runMain(['inspect', join(FIXTURES, 'hidden-sheet.xlsx')]);
    expect(r.stdout).toContain('sheets:       Old (hidden), Refunds');
    expect(r.stdout).toContain('note: its first sheet, "Old", is hidden');
  });

  it('merged ranges, the one carrying a reason down said so; ids as the sheet shows them', async () => {
    const { json } = await inspectJson(join(FIXTURES, 'formats.xlsx'), '--rows', '2');
    expect(json.merged).toEqual([{ range: 'F2:F4', carries: 'refund_reason' }]);
    expect(json.first.map((r: { cells: string[] }) => r.cells.slice(0, 2))).toEqual([
      ['TX26000001', '001234'],
      ['TX26000002', '001235'],
    ]);
    // The merged reason is every covered row's, as refund reads it.
    expect(json.first[1].cells[5]).toBe('damaged in transit');
  });

  it("a cell the command refuses is named with the reader's words", async () => {
    const file = buildBook({
      strings: [
        '<t>transaction_id</t>',
        '<t>order_no</t>',
        '<t>currency</t>',
        '<t>amount</t>',
        '<t>refund_amount</t>',
        '<t>refund_reason</t>',
      ],
      sheets: [
        {
          name: 'S',
          rows: `<row r="1">${[0, 1, 2, 3, 4, 5].map((i) => `<c r="${'ABCDEF'[i]}1" t="s"><v>${i}</v></c>`).join('')}</row><row r="2"><c r="A2" t="inlineStr"><is><t>T1</t></is></c><c r="B2"><v>1</v></c><c r="C2" t="inlineStr"><is><t>USD</t></is></c><c r="D2"><v>5</v></c><c r="E2" t="e"><v>#N/A</v></c></row>`,
        },
      ],
    });
    const { json } = await inspectJson(file);
    expect(json.rows.withProblems).toBe(1);
    expect(json.rows.problems[0]).toContain('S!E2: the cell holds the error #N/A');
  });

  it('an .xls exits 2 with its cause; --sheet of a CSV file is refused', async () => {
    const ole = Buffer.alloc(1024);
    ole.writeUInt32BE(0xd0cf11e0, 0);
    const xls = join(tempDir(), 'old.xls');
    writeFileSync(xls, ole);
    let r = await runMain(['inspect', xls]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is an Excel 97-2003 workbook (.xls)');
    r = await runMain(['inspect', csv(DASHBOARD), '--sheet', 'x']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('refused: --sheet applies to an .xlsx workbook');
  });

  it('flags: --for takes a command it knows; --rows a positive number', async () => {
    let r = await runMain(['inspect', csv(DASHBOARD), '--for', 'pay']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Allowed choices are refund, capture, cancel, review, payout, query');
    r = await runMain(['inspect', csv(DASHBOARD), '--rows', '0']);
    expect(r.code).toBe(2);
  });

  it('--columns naming a column the command does not read is a usage error, as for the command', async () => {
    const r = await runMain(['inspect', csv(DASHBOARD), '--columns', 'iban=Txn Ref']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--columns');
    expect(r.stdout).toBe('');
  });

  it('--out FILE.json: the --cells document as a whole file; a refused file leaves none', async () => {
    const dir = tempDir();
    const out = join(dir, 'cells.json');
    let r = await runMain(['inspect', join(FIXTURES, 'two-sheets.xlsx'), '--cells', '--out', out]);
    expect([r.code, r.stdout]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    expect(json.sheets.map((x: { name: string }) => x.name)).toEqual(['Notes', 'Refunds']);
    const lost = buildBook({
      strings: ['<t>a</t>'],
      sheets: [{ name: 'S', rows: '<row r="1"><c r="A1" t="s"><v>7</v></c></row>' }],
    });
    const other = join(dir, 'lost.json');
    r = await runMain(['inspect', lost, '--cells', '--out', other]);
    expect(r.code).toBe(2);
    expect(existsSync(other)).toBe(false);
  });
});
