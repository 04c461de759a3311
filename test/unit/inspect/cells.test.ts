// `payops inspect --cells --output json` (issue 26, item 8), in process: every cell of every sheet
// as the bulk reader turns it into a field, in the JSON shape a corpus test relies on (pinned
// here), and a file payops refuses exits 2 with the reader's own cause.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../src/tabular/csv-reader.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { buildBook } from './book.js';

async function cellsJson(file: string, ...more: string[]) {
  const r = await runMain(['inspect', file, '--cells', '--output', 'json', ...more]);
  return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : undefined };
}

/** Every kind of cell, with the text --cells gives for it. */
const KINDS: Array<[cell: string, field: string, what: string]> = [
  ['<c r="A1" t="s"><v>0</v></c>', 'Order No.', 'a shared string'],
  ['<c r="B1" t="inlineStr"><is><t>in line</t></is></c>', 'in line', 'an inline string'],
  ['<c r="C1" t="str"><f>A1&amp;""</f><v>Order No.</v></c>', 'Order No.', "a formula's saved text"],
  ['<c r="D1" t="b"><v>1</v></c>', 'TRUE', 'a boolean'],
  ['<c r="E1" t="e"><f>NA()</f><v>#N/A</v></c>', '#N/A', 'an error cell: its text'],
  ['<c r="F1"><f>1+1</f></c>', '', 'a formula saved without its result'],
  ['<c r="G1"><v>10.199999999999999</v></c>', '10.199999999999999', 'a number: the exact stored decimal'],
  ['<c r="H1" s="1"><v>1234</v></c>', '01234', 'a number formatted 00000: as shown'],
  ['<c r="I1" s="2"><v>46346</v></c>', '46346', 'a date: the stored serial number'],
  ['<c r="J1" s="3"><v>0.5</v></c>', '0.5', 'a percentage: the stored number'],
  ['<c r="K1"><v>1.2345E+10</v></c>', '12345000000', 'an exponent: plain decimal'],
  ['<c r="L1" t="s"><v/></c>', '', 'an empty shared-string cell (not string 0)'],
  ['<c r="M1" s="4"><v>42</v></c>', '42', 'a number formatted as text (@)'],
  ['<c r="N1" t="d"><v>2026-11-20T00:00:00Z</v></c>', '2026-11-20T00:00:00Z', 'an ISO date cell: as stored'],
];

describe('inspect --cells --output json', () => {
  it('prints each kind of cell as the reader turns it into a field, in the pinned shape', async () => {
    const file = buildBook({
      strings: ['<t>Order No.</t>', '<t>Notes</t>'],
      styles: ['00000', 14, 9, 49],
      sheets: [
        {
          name: 'Refunds',
          // Row 2 absent, row 3 of styled empty cells only, row 4 with a lower-case reference.
          rows: `<row r="1">${KINDS.map(([c]) => c).join('')}</row><row r="3"><c r="A3" s="1"/><c r="B3" t="s"><v/></c></row><row r="4"><c r="c4" t="s"><v>1</v></c><c r="E4" s="1"/></row><row r="6"><c r="A6" s="1"/></row>`,
        },
        { name: 'Old', state: 'hidden', rows: '<row r="2"><c r="B2"><v>7</v></c></row>' },
        { name: 'Empty', rows: '' },
      ],
    });
    const { code, json, stdout } = await cellsJson(file);
    expect(code).toBe(0);
    // The shape: exactly these keys, in this order.
    expect(Object.keys(json)).toEqual(['file', 'sheets']);
    expect(json.file).toBe(file);
    for (const s of json.sheets) expect(Object.keys(s)).toEqual(['name', 'hidden', 'rows']);
    expect(json.sheets.map((s: { name: string; hidden: boolean }) => [s.name, s.hidden])).toEqual([
      ['Refunds', false],
      ['Old', true],
      ['Empty', false],
    ]);
    const [first, old, empty] = json.sheets;
    for (const [i, [, field, what]] of KINDS.entries())
      expect([what, first.rows[0][i]]).toEqual([what, field]);
    // Rows line up with the sheet (index = row - 1): an empty row is [], a row ends at its last
    // non-empty cell, and the rows end at the last non-empty row.
    expect(first.rows.slice(1)).toEqual([[], [], ['', '', 'Notes']]);
    expect(old.rows).toEqual([[], ['', '7']]);
    expect(empty.rows).toEqual([]);
    // One row a line: a reader can stream it.
    expect(stdout.split('\n')[0]).toBe(`{"file":${JSON.stringify(file)},"sheets":[`);
  });

  it('gives the same text as the bulk reader for every column but an amount column', async () => {
    const header = KINDS.map(
      (_, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>col${i}</t></is></c>`,
    );
    const file = buildBook({
      strings: ['<t>Order No.</t>', '<t>Notes</t>'],
      styles: ['00000', 14, 9, 49],
      sheets: [
        {
          name: 'S',
          rows: `<row r="1">${header.join('')}</row><row r="2">${KINDS.map(([c]) => c.replace(/r="([A-Z])1"/, 'r="$12"')).join('')}</row>`,
        },
      ],
    });
    const bulk = readCsv({ file, checked: [], hidden: 'include' });
    const rows = [];
    for await (const r of bulk.rows) rows.push(r.cells);
    const { json } = await cellsJson(file);
    expect(json.sheets[0].rows[1]).toEqual(rows[0]!.slice(0, json.sheets[0].rows[1].length));
  });

  it('--sheet shows one sheet, found as bulk finds it', async () => {
    const file = buildBook({
      sheets: [
        { name: 'A', rows: '<row r="1"><c r="A1"><v>1</v></c></row>' },
        { name: 'Refunds', rows: '<row r="1"><c r="A1"><v>2</v></c></row>' },
      ],
    });
    const { json } = await cellsJson(file, '--sheet', 'refunds');
    expect(json.sheets).toEqual([{ name: 'Refunds', hidden: false, rows: [['2']] }]);
    const none = await cellsJson(file, '--sheet', 'Nope');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('has no sheet named "Nope"');
  });

  it('a CSV file is one sheet named after the file, each record at its line', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'refunds.csv'), 'sep=;\nOrder No.;Amount;\n"A\nB";1,50\n\n  x ;;\n');
    const { code, json } = await cellsJson(join(dir, 'refunds.csv'));
    expect(code).toBe(0);
    expect(json.sheets).toEqual([
      {
        name: 'refunds.csv',
        hidden: false,
        rows: [[], ['Order No.', 'Amount'], ['A\nB', '1,50'], [], [], ['  x ']],
      },
    ]);
  });

  it('a file it refuses exits 2 with the cause bulk gives', async () => {
    const dir = tempDir();
    const xls = join(dir, 'old.xls');
    const ole = Buffer.alloc(1024);
    ole.writeUInt32BE(0xd0cf11e0, 0);
    writeFileSync(xls, ole);
    let r = await cellsJson(xls);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('is an Excel 97-2003 workbook (.xls)');

    const lost = buildBook({
      strings: ['<t>a</t>'],
      sheets: [{ name: 'S', rows: '<row r="1"><c r="B1" t="s"><v>5</v></c></row>' }],
    });
    r = await cellsJson(lost);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(':S!B1: the cell names shared string "5"');

    const zip = join(dir, 'cut.xlsx');
    writeFileSync(zip, Buffer.from('PK\u0003\u0004cut short'));
    r = await cellsJson(zip);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('cannot be read');
  });

  it('a row number past the sheet, or rows out of order, are refused as damaged, never looped on', async () => {
    const far = buildBook({ sheets: [{ name: 'S', rows: '<row r="99999999999"><c><v>1</v></c></row>' }] });
    let r = await cellsJson(far);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("past a sheet's last row");
    const back = buildBook({
      sheets: [{ name: 'S', rows: '<row r="3"><c><v>1</v></c></row><row r="2"><c><v>1</v></c></row>' }],
    });
    r = await cellsJson(back);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('row 2 written after row 3');
  });

  it('--cells with a flag of the summary is a usage error', async () => {
    const file = buildBook({ sheets: [{ name: 'S', rows: '' }] });
    const r = await runMain(['inspect', file, '--cells', '--for', 'payout'], fakeIo());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--for does not apply to --cells');
  });
});
