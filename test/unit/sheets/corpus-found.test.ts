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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { findEntry, openWorkbook, WorkbookError } from '../../../src/sheets/workbook.js';
import { entryString, ZipWriter } from '../../../src/sheets/zip.js';
import { type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';
import { tempDir } from '../../helpers/run-cli.js';

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const PKG = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';
const T = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

async function zip(parts: Array<[string, string]>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const z = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  for (const [name, xml] of parts) {
    const e = await z.entry(name);
    await e.write(xml);
    await e.end();
  }
  await z.finish();
  return Buffer.concat(chunks);
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
