// Reader differences found by the corpus of real workbooks (issue 26 item 9,
// test/integration/tabular/corpus.test.ts), each as its smallest workbook:
// - tealeg/xlsx's badfile_noWorkbookRels.xlsx names three sheets in workbook.xml but has no
//   xl/_rels/workbook.xml.rels: payops dropped every sheet it could not place and then said the
//   file "has no sheet with cells" (or, with one link missing, silently read the next sheet as the
//   first). A sheet the workbook names but whose part it does not link is now refused, naming it.
// - exceljs's test-row-styles.xlsx writes `state="show"`, no value of ST_SheetState: payops took it
//   for hidden (a visible sheet refused as "hidden"); LibreOffice shows it, as the schema's default
//   `visible` says. Only `hidden` and `veryHidden` hide a sheet.
// - roo's 1904_base.xlsx and calamine's date_1904.xlsx count dates from 1904 (`<workbookPr
//   date1904="1">`, Excel for Mac's old default): a date column kept in --out results.xlsx kept
//   its serial and format but not the date system, so 2009-06-15 came out as 2005-06-14. The
//   results workbook now counts from 1904 when the dates it keeps did.
// - PhpSpreadsheet's utf16be.xlsx stores workbook.xml in UTF-16 without a byte-order mark, which
//   XML tells by its first bytes (`00 3C 00 3F`, XML 1.0 appendix F): payops decoded it as UTF-8,
//   found no sheet and said the file "has no sheet with cells"; openpyxl reads it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { findEntry, openWorkbook, WorkbookError } from '../../../src/sheets/workbook.js';
import { entryString } from '../../../src/sheets/zip.js';
import { type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';
import { tempDir } from '../../helpers/run-cli.js';

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const PKG = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';
const T = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A ZIP of stored (uncompressed) entries, so a part can be any bytes (UTF-16 without a mark). */
async function zip(parts: Array<[string, string | Uint8Array]>): Promise<Uint8Array> {
  const out: Buffer[] = [];
  const dir: Buffer[] = [];
  let offset = 0;
  for (const [nameText, content] of parts) {
    const name = Buffer.from(nameText, 'utf-8');
    const data = typeof content === 'string' ? Buffer.from(content, 'utf-8') : Buffer.from(content);
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(20, 6);
    h.writeUInt32LE(crc, 16);
    h.writeUInt32LE(data.length, 20);
    h.writeUInt32LE(data.length, 24);
    h.writeUInt16LE(name.length, 28);
    h.writeUInt32LE(offset, 42);
    dir.push(h, name);
    out.push(local, name, data);
    offset += 30 + name.length + data.length;
  }
  const size = dir.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, ...dir, end]);
}

const root: [string, string] = [
  '_rels/.rels',
  `<Relationships ${PKG}><Relationship Id="rId1" Type="${T}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
];
const sheetXml = `<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`;

describe('sheets the workbook names', () => {
  it('refuses a named sheet whose part the workbook does not link, naming it (no workbook.xml.rels)', async () => {
    const bytes = await zip([
      root,
      [
        'xl/workbook.xml',
        `<workbook ${NS} ${R}><sheets><sheet name="Tabelle1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ],
      ['xl/worksheets/sheet1.xml', sheetXml],
    ]);
    const err = await openWorkbook(bytes).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkbookError);
    expect((err as Error).message).toBe(
      'the workbook names the sheet Tabelle1, but does not say where its cells are (no relationship rId1 in xl/_rels/workbook.xml.rels)',
    );
  });

  it('never skips a sheet whose link is missing to read the next one as the first', async () => {
    const bytes = await zip([
      root,
      [
        'xl/workbook.xml',
        `<workbook ${NS} ${R}><sheets><sheet name="Refunds" sheetId="1" r:id="rId9"/><sheet name="Old" sheetId="2" r:id="rId2"/></sheets></workbook>`,
      ],
      [
        'xl/_rels/workbook.xml.rels',
        `<Relationships ${PKG}><Relationship Id="rId2" Type="${T}/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`,
      ],
      ['xl/worksheets/sheet2.xml', sheetXml],
    ]);
    await expect(openWorkbook(bytes)).rejects.toThrow(
      /names the sheet Refunds, but does not say where its cells are/,
    );
  });

  it('still passes over chart sheets, which have no cells', async () => {
    const bytes = await zip([
      root,
      [
        'xl/workbook.xml',
        `<workbook ${NS} ${R}><sheets><sheet name="Chart1" sheetId="1" r:id="rId1"/><sheet name="Data" sheetId="2" r:id="rId2"/></sheets></workbook>`,
      ],
      [
        'xl/_rels/workbook.xml.rels',
        `<Relationships ${PKG}><Relationship Id="rId1" Type="${T}/chartsheet" Target="chartsheets/sheet1.xml"/><Relationship Id="rId2" Type="${T}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      ],
      ['xl/worksheets/sheet1.xml', sheetXml],
    ]);
    expect((await openWorkbook(bytes)).sheets.map((s) => s.name)).toEqual(['Data']);
  });
});

describe('sheet states', () => {
  const book = async (state: string) =>
    openWorkbook(
      await zip([
        root,
        [
          'xl/workbook.xml',
          `<workbook ${NS} ${R}><sheets><sheet name="S" sheetId="1" state="${state}" r:id="rId1"/></sheets></workbook>`,
        ],
        [
          'xl/_rels/workbook.xml.rels',
          `<Relationships ${PKG}><Relationship Id="rId1" Type="${T}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
        ],
        ['xl/worksheets/sheet1.xml', sheetXml],
      ]),
    );

  it('reads a state that is no value of ST_SheetState (exceljs writes "show") as visible, as LibreOffice does', async () => {
    expect((await book('show')).sheets[0]!.state).toBe('visible');
  });

  it('keeps hidden and veryHidden hidden', async () => {
    expect((await book('hidden')).sheets[0]!.state).toBe('hidden');
    expect((await book('veryHidden')).sheets[0]!.state).toBe('veryHidden');
  });
});

describe('the 1904 date system', () => {
  const book = async (workbookPr: string) => {
    const path = join(tempDir(), 'dates.xlsx');
    const bytes = await zip([
      root,
      [
        'xl/workbook.xml',
        `<workbook ${NS} ${R}>${workbookPr}<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ],
      [
        'xl/_rels/workbook.xml.rels',
        `<Relationships ${PKG}><Relationship Id="rId1" Type="${T}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${T}/styles" Target="styles.xml"/></Relationships>`,
      ],
      [
        'xl/styles.xml',
        `<styleSheet ${NS}><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
      ],
      [
        'xl/worksheets/sheet1.xml',
        `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>order_no</t></is></c><c r="B1" t="inlineStr"><is><t>ordered_on</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>O1</t></is></c><c r="B2" s="1"><v>38517</v></c></row></sheetData></worksheet>`,
      ],
    ]);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, bytes);
    return path;
  };

  /** The results workbook's workbook.xml, for a file read and its rows written to --out results.xlsx. */
  const results = async (file: string): Promise<string> => {
    const r = readCsv({ file, label: 'in.xlsx', checked: ['order_no'] });
    await r.header;
    const rows: CsvRow[] = [];
    for await (const x of r.rows) rows.push(x);
    const sheet = await r.sheet;
    const out = join(tempDir(), 'results.xlsx');
    const w = createXlsxWriter(out, ['order_no', 'ordered_on', 'outcome'], { formats: sheet!.looks.formats });
    await w.ready;
    for (const x of rows) await w.writeCells([...x.cells, 'succeeded']);
    await w.end();
    const wb = await openWorkbook(readFileSync(out));
    return entryString(wb.bytes, findEntry(wb.entries, 'xl/workbook.xml')!);
  };

  it('a date kept from a 1904 workbook is written in a results workbook that counts from 1904', async () => {
    expect(await results(await book('<workbookPr date1904="1"/>'))).toMatch(/<workbookPr date1904="1"\/>/);
    expect(await results(await book('<workbookPr date1904="true"/>'))).toMatch(/date1904="1"/);
  });

  it("a 1900 workbook's results count from 1900, as before", async () => {
    expect(await results(await book('<workbookPr/>'))).not.toMatch(/date1904/);
    expect(await results(await book(''))).not.toMatch(/date1904/);
  });
});

describe('a part in UTF-16 without a byte-order mark', () => {
  const workbookXml = `<?xml version="1.0" encoding="UTF-16"?><workbook ${NS} ${R}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`;
  const book = async (encoded: Uint8Array) =>
    openWorkbook(
      await zip([
        root,
        ['xl/workbook.xml', encoded],
        [
          'xl/_rels/workbook.xml.rels',
          `<Relationships ${PKG}><Relationship Id="rId1" Type="${T}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
        ],
        ['xl/worksheets/sheet1.xml', sheetXml],
      ]),
    );

  it('reads UTF-16BE told by its first bytes (00 3C 00 3F)', async () => {
    const be = Buffer.from(workbookXml, 'utf16le').swap16();
    expect((await book(be)).sheets.map((s) => s.name)).toEqual(['Sheet1']);
  });

  it('reads UTF-16LE told by its first bytes (3C 00 3F 00)', async () => {
    expect((await book(Buffer.from(workbookXml, 'utf16le'))).sheets.map((s) => s.name)).toEqual(['Sheet1']);
  });
});
