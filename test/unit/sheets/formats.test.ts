// Issue 26, items 2 and 6: an id read as the sheet displays it (an order number formatted 00000
// shows 01234 and is 01234, not 1234), a format whose display cannot be read exactly refused with
// its cell and the reason; and a merged range's value applies to every row it covers, the plan
// saying so. The workbooks are built here from XML (styles.xml with the formats Excel and
// LibreOffice write), deflated by the project's own ZIP writer.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { formatOf, idAsShown, parseStyles, styleFormats } from '../../../src/sheets/number-format.js';
import { openWorkbook, sheetRows } from '../../../src/sheets/workbook.js';
import { ZipWriter } from '../../../src/sheets/zip.js';
import { type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';
import { hiddenLines } from '../../../src/tabular/hidden.js';
import type { SheetFacts } from '../../../src/tabular/xlsx-reader.js';
import { tempDir } from '../../helpers/run-cli.js';

const REFUND_COLUMNS = ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'];
const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * Styles as Excel writes them: cellXfs 0 General, 1 `00000` (own format 164), 2 Text (49),
 * 3 `0` (1), 4 a date (14), 5 `#,##0` (3), 6 `"INV-"0000` (165), 7 a locale date (30).
 */
const STYLES = `<styleSheet ${NS}><numFmts count="2"><numFmt numFmtId="164" formatCode="00000"/><numFmt numFmtId="165" formatCode="&quot;INV-&quot;0000"/></numFmts><cellXfs count="8"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="49"/><xf numFmtId="1"/><xf numFmtId="14"/><xf numFmtId="3"/><xf numFmtId="165"/><xf numFmtId="30"/></cellXfs></styleSheet>`;

async function workbook(rowsXml: string, after = ''): Promise<string> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  const parts: Array<[string, string]> = [
    [
      '_rels/.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<workbook ${NS} xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/styles.xml', STYLES],
    ['xl/worksheets/sheet1.xml', `<worksheet ${NS}><sheetData>${rowsXml}</sheetData>${after}</worksheet>`],
  ];
  for (const [name, xml] of parts) {
    const e = await zip.entry(name);
    await e.write(xml);
    await e.end();
  }
  await zip.finish();
  const path = join(tempDir(), 'built.xlsx');
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

const str = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
const num = (ref: string, v: string, s?: number) =>
  `<c r="${ref}"${s === undefined ? '' : ` s="${s}"`}><v>${v}</v></c>`;
const HEADER = `<row r="1">${REFUND_COLUMNS.map((c, i) => str(`${'ABCDEF'[i]}1`, c)).join('')}</row>`;
/** A refund row; `b`: the order number cell's XML. */
function row(r: number, b: string, reason = 'x'): string {
  return `<row r="${r}">${str(`A${r}`, `TX${r}`)}${b}${str(`C${r}`, 'USD')}${num(`D${r}`, '100')}${num(`E${r}`, '10')}${reason === '' ? '' : str(`F${r}`, reason)}</row>`;
}

async function read(file: string): Promise<{ rows: CsvRow[]; sheet: SheetFacts }> {
  const r = readCsv({ file, label: 'in.xlsx', checked: REFUND_COLUMNS });
  await r.header;
  const rows: CsvRow[] = [];
  for await (const x of r.rows) rows.push(x);
  const sheet = await (r as unknown as { sheet: Promise<SheetFacts> }).sheet;
  return { rows, sheet };
}

async function failure(file: string): Promise<InputError> {
  try {
    await read(file);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

function problemsOf(rows: CsvRow[]) {
  return rows.flatMap((r) => r.problems ?? []);
}

describe('item 2: an id is read as the sheet displays it', () => {
  it('reads the formats of styles.xml: own codes, built-in ones, locale-dependent ones unknown', () => {
    const f = parseStyles(STYLES);
    expect(f.map((x) => x.code)).toEqual([
      'General',
      '00000',
      '@',
      '0',
      'mm-dd-yy',
      '#,##0',
      '"INV-"0000',
      undefined,
    ]);
  });

  it('pads a whole number to the zeros of 00000; General, Text and 0 show the stored digits', () => {
    expect(idAsShown('1234', { id: 164, code: '00000' })).toEqual({ text: '01234' });
    expect(idAsShown('123456', { id: 164, code: '00000' })).toEqual({ text: '123456' });
    expect(idAsShown('1234', { id: 164, code: '#00000' })).toEqual({ text: '01234' });
    expect(idAsShown('-12', { id: 164, code: '0000' })).toEqual({ text: '-0012' });
    expect(idAsShown('1234', { id: 0, code: 'General' })).toEqual({ text: '1234' });
    expect(idAsShown('1234', { id: 49, code: '@' })).toEqual({ text: '1234' });
    expect(idAsShown('1234', { id: 1, code: '0' })).toEqual({ text: '1234' });
    expect(idAsShown('12.5', { id: 164, code: '00000' })).toHaveProperty('problem');
    expect(idAsShown('46346', { id: 14, code: 'mm-dd-yy' })).toHaveProperty('problem');
    expect(idAsShown('1234', { id: 30, code: undefined })).toHaveProperty('problem');
  });

  it('an order number formatted 00000 that shows 01234 is read as 01234 (was 1234)', async () => {
    const file = await workbook(
      HEADER + row(2, num('B2', '1234', 1)) + row(3, num('B3', '1234', 2)) + row(4, num('B4', '1234', 3)),
    );
    const { rows } = await read(file);
    expect(rows.map((r) => r.fields.order_no)).toEqual(['01234', '1234', '1234']);
    expect(problemsOf(rows)).toEqual([]);
  });

  it('refuses an id whose format shows it otherwise (a date, thousands, literal text, a locale format), naming the cell', async () => {
    const file = await workbook(
      HEADER +
        row(2, num('B2', '46346', 4)) +
        row(3, num('B3', '1234', 5)) +
        row(4, num('B4', '1234', 6)) +
        row(5, num('B5', '1234', 7)) +
        row(6, num('B6', '1234.5', 1)),
    );
    const { rows } = await read(file);
    const p = problemsOf(rows);
    expect(p.map((x) => x.file)).toEqual([
      'in.xlsx:Sheet1!B2',
      'in.xlsx:Sheet1!B3',
      'in.xlsx:Sheet1!B4',
      'in.xlsx:Sheet1!B5',
      'in.xlsx:Sheet1!B6',
    ]);
    expect(p[0]!.message).toMatch(/mm-dd-yy\) shows it as a date/);
    expect(p[1]!.message).toMatch(/groups its thousands/);
    expect(p[2]!.message).toMatch(/adds text of its own/);
    expect(p[3]!.message).toMatch(/language settings/);
    expect(p[4]!.message).toMatch(/holds 1234.5 .*rounded to a whole number/);
    expect(p.every((x) => x.field === 'order_no')).toBe(true);
  });

  it('amounts keep their reading (15 significant digits), whatever their format', async () => {
    const file = await workbook(
      `${HEADER}<row r="2">${str('A2', 'TX2')}${str('B2', 'O2')}${str('C2', 'USD')}${num('D2', '100', 5)}${num('E2', '10.199999999999999', 1)}${str('F2', 'x')}</row>`,
    );
    const { rows } = await read(file);
    expect(rows[0]!.fields.refund_amount).toBe('10.2');
    expect(problemsOf(rows)).toEqual([]);
  });
});

describe('item 6: a merged range applies its value to every row it covers', () => {
  it('a reason merged over three rows is the reason of all three, and the plan says so', async () => {
    const file = await workbook(
      HEADER + row(2, str('B2', 'O2'), 'damaged') + row(3, str('B3', 'O3'), '') + row(4, str('B4', 'O4'), ''),
      '<mergeCells count="1"><mergeCell ref="F2:F4"/></mergeCells>',
    );
    const { rows, sheet } = await read(file);
    expect(rows.map((r) => r.fields.refund_reason)).toEqual(['damaged', 'damaged', 'damaged']);
    expect(problemsOf(rows)).toEqual([]);
    expect(sheet.looks.merged).toEqual([{ range: 'F2:F4', column: 'refund_reason' }]);
    expect(hiddenLines({ sheet }).join('\n')).toMatch(
      /merged cells: F2:F4 \(refund_reason\): the value of its first cell applies to every row it covers/,
    );
  });

  it('a covered cell that still stores a value (LibreOffice keeps hidden contents) reads the value shown', async () => {
    const file = await workbook(
      HEADER + row(2, str('B2', 'O2'), 'damaged') + row(3, str('B3', 'O3'), 'old'),
      '<mergeCells><mergeCell ref="F2:F3"/></mergeCells>',
    );
    const { rows } = await read(file);
    expect(rows.map((r) => r.fields.refund_reason)).toEqual(['damaged', 'damaged']);
  });

  it('refuses a read cell covered by a range across columns or one that starts in the header', async () => {
    const across = await workbook(
      `${HEADER}<row r="2">${str('A2', 'TX2')}${str('B2', 'O2')}${str('C2', 'USD')}${num('D2', '100')}${num('E2', '10')}</row>${row(3, str('B3', 'O3'))}`,
      '<mergeCells><mergeCell ref="D2:E2"/></mergeCells>',
    );
    const p = problemsOf((await read(across)).rows);
    expect(p.map((x) => x.file)).toEqual(['in.xlsx:Sheet1!E2']);
    expect(p[0]!.message).toMatch(/merged range D2:E2.*spans several columns/);

    const fromHeader = await workbook(
      HEADER + row(2, str('B2', 'O2'), ''),
      '<mergeCells><mergeCell ref="F1:F2"/></mergeCells>',
    );
    const q = problemsOf((await read(fromHeader)).rows);
    expect(q.map((x) => x.file)).toEqual(['in.xlsx:Sheet1!F2']);
    expect(q[0]!.message).toMatch(/starts in the header/);
  });

  it('finds merges after a long sheet (inflated in many pieces), wherever a piece ends', async () => {
    for (const pad of [0, 17, 4093]) {
      let rows = HEADER;
      for (let r = 2; r <= 3000; r++)
        rows += row(r, str(`B${r}`, `O${r}`), r === 1500 ? 'damaged' : r > 1500 && r <= 1502 ? '' : 'x');
      const merges = `<mergeCells count="40">${'<mergeCell ref="Z9000:Z9000"/>'.repeat(39)}<mergeCell ref="F1500:F1502"/></mergeCells>`;
      const file = await workbook(rows, `<!--${'.'.repeat(pad)}-->${merges}`);
      const { rows: read1, sheet } = await read(file);
      expect(read1.slice(1498, 1501).map((r) => r.fields.refund_reason)).toEqual([
        'damaged',
        'damaged',
        'damaged',
      ]);
      expect(sheet.looks.merged?.map((m) => m.range)).toEqual(['F1500:F1502']);
    }
  });

  it('a damaged merge reference is refused, not ignored; a one-cell merge merges nothing', async () => {
    const file = await workbook(
      HEADER + row(2, str('B2', 'O2')),
      '<mergeCells><mergeCell ref="F2:"/></mergeCells>',
    );
    expect((await failure(file)).message).toMatch(/merged range/);
    const one = await workbook(
      HEADER + row(2, str('B2', 'O2')),
      '<mergeCells><mergeCell ref="F2"/></mergeCells>',
    );
    expect((await read(one)).rows[0]!.fields.refund_reason).toBe('x');
  });
});

describe('item 2: extra columns keep their meaning in results.xlsx', () => {
  it("the reader notes each column's own number format; the writer writes its numbers in it", async () => {
    const extra = [...REFUND_COLUMNS, 'requested_on', 'share', 'note'];
    const head = `<row r="1">${extra.map((c, i) => str(`${'ABCDEFGHI'[i]}1`, c)).join('')}</row>`;
    const line = (r: number, h: string) =>
      `<row r="${r}">${str(`A${r}`, `TX${r}`)}${str(`B${r}`, 'O')}${str(`C${r}`, 'USD')}${num(`D${r}`, '100')}${num(`E${r}`, '10')}${str(`F${r}`, 'x')}${num(`G${r}`, '46346', 4)}${h}${num(`I${r}`, '7')}</row>`;
    const file = await workbook(head + line(2, num('H2', '0.5', 7)) + line(3, num('H3', '0.25', 5)));
    const r = readCsv({ file, label: 'in.xlsx', checked: REFUND_COLUMNS });
    await r.header;
    const rows: CsvRow[] = [];
    for await (const x of r.rows) rows.push(x);
    const sheet = await r.sheet;
    // G: one date format; H: two formats (mixed: written as text); I: General.
    expect(sheet?.looks.formats?.slice(6)).toEqual([{ id: 14, code: 'mm-dd-yy' }, 'mixed', 'plain']);
    expect(rows[0]!.fields.requested_on).toBe('46346');

    const out = join(tempDir(), 'results.xlsx');
    const w = createXlsxWriter(out, [...extra, 'outcome'], { formats: sheet!.looks.formats });
    await w.ready;
    for (const x of rows) await w.writeCells([...x.cells, 'succeeded']);
    await w.end();
    const wb = await openWorkbook(readFileSync(out));
    const formats = await styleFormats(wb);
    const cells: string[] = [];
    for await (const batch of sheetRows(wb, wb.sheets[0]!))
      for (const x of batch)
        if (x.row === 2)
          for (const c of x.cells.filter((c) => c.col >= 6 && c.col <= 8))
            cells.push(`${c.type}:${c.value}:${formatOf(formats, c.style).code}`);
    expect(cells).toEqual(['n:46346:mm-dd-yy', 'inlineStr:0.5:@', 'inlineStr:7:@']);
  });
});
