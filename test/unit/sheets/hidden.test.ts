// Rows and sheets a person does not see (issue 23, item 7), read from workbooks: each spelling of a
// hidden row (Excel's hidden="1", LibreOffice's hidden="true", a zero height, a sheet whose rows are
// hidden by default), an autofilter's range, and hidden / very hidden sheets. The workbooks
// LibreOffice saved (test/fixtures/xlsx/README.md) and shapes only Excel writes, built here from XML.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { rowHidden } from '../../../src/sheets/workbook.js';
import { ZipWriter } from '../../../src/sheets/zip.js';
import { type CsvRow, type HiddenMode, readCsv, type SheetFacts } from '../../../src/tabular/csv-reader.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');

async function read(
  file: string,
  opts: { sheet?: string; hidden?: HiddenMode } = {},
): Promise<{ rows: CsvRow[]; sheet: SheetFacts | undefined }> {
  const r = readCsv({ file, label: 'in.xlsx', ...opts });
  await r.header;
  const rows: CsvRow[] = [];
  for await (const row of r.rows) rows.push(row);
  return { rows, sheet: await r.sheet };
}

/** A workbook of our own XML: sheets as [name, state, sheet XML body]. */
async function workbook(
  sheets: Array<[name: string, state: string | undefined, body: string]>,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const parts: Array<[string, string]> = [
    [
      '_rels/.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets>${sheets
        .map(
          ([n, state], i) =>
            `<sheet name="${n}" sheetId="${i + 1}"${state ? ` state="${state}"` : ''} r:id="rId${i + 1}"/>`,
        )
        .join('')}</sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
        .map(
          (_, i) =>
            `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
        )
        .join('')}</Relationships>`,
    ],
    ...sheets.map(
      ([, , body], i) =>
        [
          `xl/worksheets/sheet${i + 1}.xml`,
          `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${body}</worksheet>`,
        ] as [string, string],
    ),
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

const cell = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
const row = (n: number, attrs = '') =>
  `<row r="${n}"${attrs}>${cell(`A${n}`, n === 1 ? 'id' : `row${n}`)}</row>`;

describe('hidden rows as each program writes them', () => {
  it('LibreOffice: rows hidden by hand (hidden="true") are marked with their cell', async () => {
    const { rows, sheet } = await read(join(FIXTURES, 'hidden-rows.xlsx'));
    expect(rows.map((r) => [r.line, r.hidden])).toEqual([
      [2, undefined],
      [3, 'Refunds!A3'],
      [4, undefined],
      [5, 'Refunds!A5'],
    ]);
    expect(sheet).toMatchObject({ name: 'Refunds', state: 'visible', of: 1, named: false });
    expect(sheet?.looks.autoFilter).toBeUndefined();
  });

  it('LibreOffice: rows an autofilter filters out are hidden rows, and the filter range is known', async () => {
    const { rows, sheet } = await read(join(FIXTURES, 'filtered.xlsx'));
    expect(rows.filter((r) => r.hidden).map((r) => r.hidden)).toEqual(['Refunds!A3', 'Refunds!A5']);
    expect(rows.filter((r) => r.hidden).every((r) => r.fields.approved === 'no')).toBe(true);
    expect(sheet?.looks.autoFilter).toBe('A1:H5');
  });

  it('Excel spellings: hidden="1", hidden="true", ht="0" with or without customHeight; hidden="0" and ht="15" show', async () => {
    const file = await workbook([
      [
        'Sheet1',
        undefined,
        `<sheetData>${row(1)}${row(2, ' hidden="1"')}${row(3, ' hidden="true"')}${row(4, ' ht="0" customHeight="1"')}${row(5, ' ht="0"')}${row(6, ' hidden="0" ht="15"')}${row(7, ' ht="0.5" customHeight="1"')}${row(8)}</sheetData><autoFilter ref="A1:A8"/>`,
      ],
    ]);
    const { rows, sheet } = await read(file);
    expect(rows.filter((r) => r.hidden).map((r) => r.line)).toEqual([2, 3, 4, 5]);
    expect(sheet?.looks.autoFilter).toBe('A1:A8');
  });

  it('a sheet whose rows are hidden by default (zeroHeight): only rows that say they show are visible', async () => {
    const file = await workbook([
      [
        'Sheet1',
        undefined,
        `<sheetFormatPr defaultRowHeight="15" zeroHeight="1"/><sheetData>${row(1, ' hidden="0"')}${row(2)}${row(3, ' ht="15" customHeight="1"')}${row(4, ' hidden="false"')}</sheetData>`,
      ],
    ]);
    const { rows } = await read(file);
    expect(rows.map((r) => [r.line, r.hidden !== undefined])).toEqual([
      [2, true],
      [3, false],
      [4, false],
    ]);
  });

  it('rowHidden reads the start tag alone', () => {
    expect(rowHidden('<row r="3" hidden="1">', false)).toBe(true);
    expect(rowHidden('<x:row r="3" hidden="true" ht="12.8">', false)).toBe(true);
    expect(rowHidden('<row r="3" hidden="false" ht="12.8">', false)).toBe(false);
    expect(rowHidden('<row r="3" ht="0" customHeight="1">', false)).toBe(true);
    expect(rowHidden('<row r="3">', true)).toBe(true);
    expect(rowHidden('<row r="3" ht="20" customHeight="1">', true)).toBe(false);
  });
});

describe('hidden sheets', () => {
  it('a hidden first sheet picked by default is refused, naming the visible sheets (LibreOffice file)', async () => {
    const err = await read(join(FIXTURES, 'hidden-sheet.xlsx')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/first sheet, "?Old"?, is hidden/);
    expect((err as InputError).hint).toContain('--sheet Refunds');
  });

  it('--include-hidden reads it; --skip-hidden reads the first visible sheet; --sheet reads the one named', async () => {
    const file = join(FIXTURES, 'hidden-sheet.xlsx');
    const inc = await read(file, { hidden: 'include' });
    expect(inc.sheet).toMatchObject({ name: 'Old', state: 'hidden' });
    expect(inc.rows.map((r) => r.fields.transaction_id)).toEqual(['TX14000002', 'TX14000006']);
    const skip = await read(file, { hidden: 'skip' });
    expect(skip.sheet).toMatchObject({ name: 'Refunds', passedOver: ['Old'] });
    expect(skip.rows.map((r) => r.fields.transaction_id)).toEqual(['TX14000001']);
    const named = await read(file, { sheet: 'Old' });
    expect(named.sheet).toMatchObject({ name: 'Old', state: 'hidden', named: true });
  });

  it('a very hidden first sheet (Excel, from VBA) is refused the same way', async () => {
    const body = `<sheetData>${row(1)}${row(2)}</sheetData>`;
    const file = await workbook([
      ['Secret', 'veryHidden', body],
      ['Visible', 'visible', body],
    ]);
    const err = await read(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as InputError).message).toMatch(/very hidden/);
    expect((await read(file, { hidden: 'skip' })).sheet?.name).toBe('Visible');
  });

  it('every sheet hidden: --skip-hidden has no visible sheet to read and refuses', async () => {
    const file = await workbook([['Only', 'hidden', `<sheetData>${row(1)}${row(2)}</sheetData>`]]);
    const err = await read(file, { hidden: 'skip' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as InputError).hint).toMatch(/every sheet is hidden/);
  });

  it('a CSV file has no sheet and no hidden rows', async () => {
    const { rows, sheet } = await read(join(FIXTURES, 'refunds-en.csv'));
    expect(sheet).toBeUndefined();
    expect(rows.some((r) => r.hidden !== undefined)).toBe(false);
  });
});
