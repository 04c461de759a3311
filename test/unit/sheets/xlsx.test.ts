// .xlsx in and out (issue 14, item 8): the workbook reader gives the CSV reader's rows (same header
// checks, cells as the exact decimal a number cell stores), refuses what a sheet can hold and a CSV
// cannot, naming the cell; the results writer keeps ids as text and amounts as numbers. Fixtures
// are workbooks LibreOffice wrote (test/fixtures/xlsx/README.md); Excel-only shapes are built here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { parseAmount } from '../../../src/money/amount.js';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { plainNumber } from '../../../src/sheets/cell-number.js';
import { ZipWriter } from '../../../src/sheets/zip.js';
import { type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');
const REFUND_COLUMNS = ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'];

async function rowsOf(file: string, opts: { sheet?: string; checked?: string[] } = {}): Promise<CsvRow[]> {
  const r = readCsv({ file, label: 'in.xlsx', ...opts });
  await r.header;
  const out: CsvRow[] = [];
  for await (const row of r.rows) out.push(row);
  await r.sha256;
  return out;
}

async function failure(file: string, opts: { sheet?: string } = {}): Promise<InputError> {
  try {
    await rowsOf(file, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

/** A one-sheet workbook of our own sheet XML rows (what Excel would store), no shared strings. */
async function workbook(rowsXml: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  const parts: Array<[string, string]> = [
    [
      '_rels/.rels',
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    ],
    [
      'xl/workbook.xml',
      '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ],
    [
      'xl/_rels/workbook.xml.rels',
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ],
    [
      'xl/worksheets/sheet1.xml',
      `<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>${rowsXml}</x:sheetData></x:worksheet>`,
    ],
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

const str = (ref: string, s: string) => `<x:c r="${ref}" t="inlineStr"><x:is><x:t>${s}</x:t></x:is></x:c>`;
const num = (ref: string, v: string) => `<x:c r="${ref}"><x:v>${v}</x:v></x:c>`;
const headerXml = `<x:row r="1">${REFUND_COLUMNS.map((c, i) => str(`${'ABCDEF'[i]}1`, c)).join('')}</x:row>`;

describe('number cells as exact decimal text', () => {
  it('converts the stored shortest decimal without a float', () => {
    expect(plainNumber('12.5')?.text).toBe('12.5');
    expect(plainNumber('1234567890.12')?.text).toBe('1234567890.12');
    expect(plainNumber('1E-3')?.text).toBe('0.001');
    expect(plainNumber('-0.10')?.text).toBe('-0.1');
    expect(plainNumber('1.23456789012346E+019')).toMatchObject({
      text: '12345678901234600000',
      integerDigits: 20,
    });
    expect(plainNumber('0.30000000000000004')).toMatchObject({ significant: 17 });
    expect(plainNumber('abc')).toBeUndefined();
  });
});

describe('reading workbooks LibreOffice wrote', () => {
  it('the en-US and de-DE workbooks hold the same rows as the CSV they were made from', async () => {
    const csv = await rowsOf(join(FIXTURES, 'refunds-en.csv'));
    for (const name of ['refunds-en.xlsx', 'refunds-de.xlsx']) {
      const rows = await rowsOf(join(FIXTURES, name));
      expect(rows.map((r) => r.line)).toEqual(csv.map((r) => r.line));
      // Same minor units; the text may differ only in trailing zeros (100.00 is stored as 100).
      rows.forEach((r, i) => {
        const c = csv[i]!;
        expect(r.fields.transaction_id).toBe(c.fields.transaction_id);
        expect(r.fields.order_no, name).toBe(c.fields.order_no);
        for (const k of ['amount', 'refund_amount']) {
          expect(parseAmount(r.fields[k]!, r.fields.currency!), `${name} ${k} line ${r.line}`).toEqual(
            parseAmount(c.fields[k]!, c.fields.currency!),
          );
        }
      });
    }
  });

  it('refuses an error cell and an id the spreadsheet rounded, naming each cell', async () => {
    const rows = await rowsOf(join(FIXTURES, 'problems.xlsx'), { checked: REFUND_COLUMNS });
    const problems = rows.flatMap((r) => r.problems ?? []);
    expect(problems.map((p) => p.file)).toEqual(['in.xlsx:Sheet1!B3', 'in.xlsx:Sheet1!E4']);
    expect(problems[0]!.message).toMatch(/12345678901234600000.*rounded/);
    expect(problems[1]!.message).toMatch(/#N\/A/);
    // The formula =0.1+0.2, which LibreOffice saves as 0.3 (15 digits), reads as 0.3.
    expect(rows[0]!.fields.refund_amount).toBe('0.3');
  });

  it('--sheet picks a sheet by name (any case); an unknown one lists the sheets', async () => {
    const rows = await rowsOf(join(FIXTURES, 'two-sheets.xlsx'), { sheet: 'refunds' });
    expect(rows.map((r) => r.fields.transaction_id)).toEqual(['TX14000005', 'TX14000002']);
    const e = await failure(join(FIXTURES, 'two-sheets.xlsx'), { sheet: 'Nope' });
    expect(e.message).toMatch(/no sheet named "Nope"/);
    expect(e.problems[0]!.message).toContain('"Notes", "Refunds"');
    const csv = await failure(join(FIXTURES, 'refunds-en.csv'), { sheet: 'Refunds' });
    expect(csv.message).toMatch(/--sheet applies to an \.xlsx workbook/);
  });
});

describe('shapes only Excel writes (built here: no Excel on this machine)', () => {
  // Issue 26 item 1: an amount is what the sheet shows (15 significant digits), as Excel shows
  // 0.1+0.2 as 0.3; an id keeps every stored digit and a 17-digit one stays refused.
  it('a 17-digit result (0.1+0.2 as Excel stores it) is 0.3 in an amount, refused in an id', async () => {
    const file = await workbook(
      `${headerXml}<x:row r="2">${str('A2', 'T1')}${num('B2', '0.30000000000000004')}${str('C2', 'USD')}${num('D2', '1')}${num('E2', '0.30000000000000004')}${str('F2', 'x')}</x:row>`,
    );
    const rows = await rowsOf(file, { checked: REFUND_COLUMNS });
    expect(rows[0]!.fields.refund_amount).toBe('0.3');
    expect(rows[0]!.problems).toHaveLength(1);
    expect(rows[0]!.problems?.[0]).toMatchObject({ file: 'in.xlsx:Sheet1!B2', field: 'order_no' });
    expect(rows[0]!.problems?.[0]?.message).toMatch(/0\.30000000000000004.*not exact/);
  });

  it('a formula saved without its result is refused; a column outside the header too', async () => {
    const file = await workbook(
      `${headerXml}<x:row r="2">${str('A2', 'T1')}${str('B2', 'O1')}${str('C2', 'USD')}${num('D2', '1')}<x:c r="E2"><x:f>D2/2</x:f></x:c>${str('F2', 'x')}${str('H2', 'stray')}</x:row>`,
    );
    const problems = (await rowsOf(file, { checked: REFUND_COLUMNS }))[0]!.problems ?? [];
    expect(problems.map((p) => p.file)).toEqual(['in.xlsx:Sheet1!E2', 'in.xlsx:Sheet1!H2']);
  });

  it('an old .xls is refused with what to do; a damaged .xlsx is named as a workbook', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'old.xls'),
      Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), Buffer.alloc(64)]),
    );
    const xls = await failure(join(dir, 'old.xls'));
    expect(xls.message).toMatch(/Excel 97-2003 workbook \(\.xls\)/);
    expect(xls.hint).toMatch(/Excel Workbook \(\*\.xlsx\)/);
    writeFileSync(join(dir, 'cut.xlsx'), Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(64)]));
    expect((await failure(join(dir, 'cut.xlsx'))).message).toMatch(
      /Excel workbook \(\.xlsx\) but cannot be read/,
    );
  });
});

// Currencies with 0, 2 and 3 decimals; amounts up to 10 integer digits.
const CURRENCIES = [
  ['JPY', 0],
  ['USD', 2],
  ['EUR', 2],
  ['KWD', 3],
] as const;
const amountArb = fc
  .tuple(fc.constantFrom(...CURRENCIES), fc.bigInt({ min: 0n, max: 9_999_999_999n }), fc.nat(999))
  .map(([[code, digits], whole, frac]) => {
    const f = String(frac).padStart(3, '0').slice(0, digits);
    return { currency: code, text: digits === 0 ? String(whole) : `${whole}.${f}` };
  });
// Ids a spreadsheet would mangle: long digit strings, leading zeros, formula starts, XML specials.
const idArb = fc.oneof(
  fc.stringMatching(/^[0-9]{1,25}$/),
  fc.stringMatching(/^0[0-9]{3,12}$/),
  fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && s.trim() !== ''),
  fc.constantFrom('=1+1', '1E5', '_x0041_', '<a&b>', '12,000.00', 'TRUE'),
);

describe('results.xlsx round trip', () => {
  it('writing then reading gives the same ids and the same minor units', async () => {
    const dir = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: idArb, order: idArb, amount: amountArb }), { minLength: 1, maxLength: 30 }),
        async (rows) => {
          const file = join(dir, `r${n++}.xlsx`);
          const w = createXlsxWriter(file, [
            'transaction_id',
            'order_no',
            'currency',
            'refund_amount',
            'outcome',
          ]);
          await w.ready;
          for (const r of rows)
            await w.writeCells([r.id, r.order, r.amount.currency, r.amount.text, 'succeeded']);
          await w.end();
          const back = await rowsOf(file, { checked: [] });
          expect(back.length).toBe(rows.length);
          back.forEach((b, i) => {
            const r = rows[i]!;
            expect(b.cells[0]).toBe(r.id);
            expect(b.cells[1]).toBe(r.order);
            const want = parseAmount(r.amount.text, r.amount.currency);
            expect(want.ok).toBe(true);
            expect(parseAmount(b.cells[3]!, r.amount.currency)).toEqual(want);
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('ids are text cells and amounts numbers in their currency’s format', async () => {
    const file = join(tempDir(), 'r.xlsx');
    const w = createXlsxWriter(file, ['transaction_id', 'currency', 'refund_amount']);
    await w.ready;
    await w.writeCells(['00012345678901234567', 'KWD', '1.5']);
    await w.end();
    const { zipEntries, entryString } = await import('../../../src/sheets/zip.js');
    const bytes = (await import('node:fs')).readFileSync(file);
    const xml = await entryString(bytes, zipEntries(bytes).get('xl/worksheets/sheet1.xml')!);
    expect(xml).toContain(
      '<c r="A2" s="1" t="inlineStr"><is><t xml:space="preserve">00012345678901234567</t>',
    );
    expect(xml).toContain('<c r="C2" s="5"><v>1.5</v></c>'); // style 5: format 0.000
  });

  // issue 24: text cells neutralised as the CSV's are (src/quote.ts cellSafe), not stored as _x001B_.
  it('writes control characters in text cells as terminal-safe escapes', async () => {
    const file = join(tempDir(), 'r.xlsx');
    const w = createXlsxWriter(file, ['note']);
    await w.ready;
    await w.writeCells(['a\x1b[2Jb\u009bc']);
    await w.end();
    const { zipEntries, entryString } = await import('../../../src/sheets/zip.js');
    const bytes = (await import('node:fs')).readFileSync(file);
    const xml = await entryString(bytes, zipEntries(bytes).get('xl/worksheets/sheet1.xml')!);
    expect(xml).toContain('<t xml:space="preserve">a\\x1b[2Jb\\x9bc</t>');
    expect(xml).not.toContain('_x001B_');
  });
});
