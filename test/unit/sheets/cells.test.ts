// Issue 26, items 1, 5 and 7: a cell read as the sheet shows it. Amounts as Excel and openpyxl store
// them (`10.199999999999999`) read as the amount typed; a formula saved without its result says so;
// and the shapes real writers produce (lower-case references, CDATA, CR LF, part names in another
// case or with backslashes, UTF-16 parts, ZIP64) read as other readers read them, while an .xlsb and
// a password-protected workbook are refused with their true cause. The workbooks are built here as
// stored (uncompressed) ZIPs, so a test can put any bytes and names in them.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { parseAmount } from '../../../src/money/amount.js';
import { plainNumber, shownNumber } from '../../../src/sheets/cell-number.js';
import { type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';
import { tempDir } from '../../helpers/run-cli.js';

const REFUND_COLUMNS = ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'];
const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A ZIP of stored entries (method 0), optionally in ZIP64 form (as streaming writers write it). */
function storedZip(entries: Array<[string, string | Uint8Array]>, zip64 = false): Buffer {
  const out: Buffer[] = [];
  const dir: Buffer[] = [];
  let offset = 0;
  for (const [nameText, content] of entries) {
    const name = Buffer.from(nameText, 'utf-8');
    const data = typeof content === 'string' ? Buffer.from(content, 'utf-8') : Buffer.from(content);
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(zip64 ? 45 : 20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(zip64 ? 45 : 20, 4);
    h.writeUInt16LE(zip64 ? 45 : 20, 6);
    h.writeUInt32LE(crc, 16);
    h.writeUInt16LE(name.length, 28);
    let extra = Buffer.alloc(0);
    if (zip64) {
      // Sizes and offset in the ZIP64 extra field, 0xffffffff in their places.
      h.writeUInt32LE(0xffffffff, 20);
      h.writeUInt32LE(0xffffffff, 24);
      h.writeUInt32LE(0xffffffff, 42);
      extra = Buffer.alloc(4 + 24);
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(data.length), 4);
      extra.writeBigUInt64LE(BigInt(data.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
      h.writeUInt16LE(extra.length, 30);
    } else {
      h.writeUInt32LE(data.length, 20);
      h.writeUInt32LE(data.length, 24);
      h.writeUInt32LE(offset, 42);
    }
    out.push(local, name, data);
    offset += 30 + name.length + data.length;
    dir.push(h, name, extra);
  }
  const directory = Buffer.concat(dir);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  if (zip64) {
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE(45, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeBigUInt64LE(BigInt(entries.length), 24);
    rec.writeBigUInt64LE(BigInt(entries.length), 32);
    rec.writeBigUInt64LE(BigInt(directory.length), 40);
    rec.writeBigUInt64LE(BigInt(offset), 48);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    loc.writeUInt32LE(1, 16);
    end.writeUInt16LE(0xffff, 8);
    end.writeUInt16LE(0xffff, 10);
    end.writeUInt32LE(0xffffffff, 12);
    end.writeUInt32LE(0xffffffff, 16);
    return Buffer.concat([...out, directory, rec, loc, end]);
  }
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, directory, end]);
}

interface BookOptions {
  /** Rows of the first sheet (its header row included). */
  rows: string;
  /** Shared strings (`<si>` bodies); a sharedStrings part is written when given. */
  strings?: string[];
  /** ZIP entry names, by the part they hold (another case, backslashes). */
  names?: Partial<Record<'rels' | 'workbook' | 'workbookRels' | 'sheet' | 'strings', string>>;
  /** The workbook part's bytes (UTF-16 …) instead of its UTF-8 text. */
  workbookBytes?: (xml: string) => Uint8Array;
  zip64?: boolean;
  /** Leave the shared strings part out while the workbook still links it. */
  dropStrings?: boolean;
}

const WORKBOOK_XML = `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS} xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`;

function book(o: BookOptions): string {
  const n = {
    rels: '_rels/.rels',
    workbook: 'xl/workbook.xml',
    workbookRels: 'xl/_rels/workbook.xml.rels',
    sheet: 'xl/worksheets/sheet1.xml',
    strings: 'xl/sharedStrings.xml',
    ...o.names,
  };
  const parts: Array<[string, string | Uint8Array]> = [
    [
      n.rels,
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [n.workbook, o.workbookBytes ? o.workbookBytes(WORKBOOK_XML.replace('UTF-8', 'UTF-16')) : WORKBOOK_XML],
    [
      n.workbookRels,
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>${o.strings ? `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : ''}</Relationships>`,
    ],
    [n.sheet, `<worksheet ${NS}><sheetData>${o.rows}</sheetData></worksheet>`],
  ];
  if (o.strings && !o.dropStrings) {
    parts.push([n.strings, `<sst ${NS}>${o.strings.map((s) => `<si>${s}</si>`).join('')}</sst>`]);
  }
  const file = join(tempDir(), 'built.xlsx');
  writeFileSync(file, storedZip(parts, o.zip64));
  return file;
}

const str = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
const num = (ref: string, v: string) => `<c r="${ref}"><v>${v}</v></c>`;
const HEADER = `<row r="1">${REFUND_COLUMNS.map((c, i) => str(`${'ABCDEF'[i]}1`, c)).join('')}</row>`;
/** Row `r` of a refund with these cells (A–F), each an XML cell or a text for an inline string. */
function refundRow(r: number, cells: Partial<Record<'A' | 'B' | 'C' | 'D' | 'E' | 'F', string>>): string {
  const base = { A: 'TX1', B: 'O1', C: 'USD', D: num(`D${r}`, '100'), E: num(`E${r}`, '10'), F: 'x' };
  const all = { ...base, ...cells };
  const xml = (['A', 'B', 'C', 'D', 'E', 'F'] as const).map((k) =>
    all[k].startsWith('<') ? all[k] : str(`${k}${r}`, all[k]),
  );
  return `<row r="${r}">${xml.join('')}</row>`;
}

async function rowsOf(file: string): Promise<CsvRow[]> {
  const r = readCsv({ file, label: 'in.xlsx', checked: REFUND_COLUMNS });
  await r.header;
  const out: CsvRow[] = [];
  for await (const row of r.rows) out.push(row);
  await r.sha256;
  return out;
}

async function failure(file: string): Promise<InputError> {
  try {
    await rowsOf(file);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

// ---------------------------------------------------------------------------------------------
// Item 1: amounts as Excel and openpyxl store them

/** Excel's form: 17 significant digits, trailing zeros dropped; openpyxl 3.0's: 16. */
function stored(cents: number, digits: 16 | 17): string {
  const s = (cents / 100).toPrecision(digits);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

describe('item 1: a number cell is the value the sheet shows (15 significant digits)', () => {
  it('rounds the stored double text to 15 significant digits, half away from zero', () => {
    expect(shownNumber('10.199999999999999')?.text).toBe('10.2');
    expect(shownNumber('2153.9299999999998')?.text).toBe('2153.93');
    expect(shownNumber('64.09999999999999')?.text).toBe('64.1');
    expect(shownNumber('-10.199999999999999')?.text).toBe('-10.2');
    expect(shownNumber('0.30000000000000004')?.text).toBe('0.3');
    expect(shownNumber('9.9999999999999999')?.text).toBe('10');
    expect(shownNumber('0.1234567890123455')?.text).toBe('0.123456789012346');
    expect(shownNumber('-0.1234567890123455')?.text).toBe('-0.123456789012346');
    expect(shownNumber('0.1234567890123454')?.text).toBe('0.123456789012345');
    expect(shownNumber('1.0199999999999999E+2')?.text).toBe('102');
    // Not a whole number of cents: left as it is, for validation to refuse.
    expect(shownNumber('0.125')?.text).toBe('0.125');
    // An integer of more than 15 digits was rounded by the spreadsheet: kept, to be refused.
    expect(shownNumber('1.23456789012346E+019')).toMatchObject({
      text: '12345678901234600000',
      integerDigits: 20,
    });
    expect(plainNumber('10.199999999999999')?.text).toBe('10.199999999999999');
  });

  // The domain is every cent from 0.01 to 100,000.00 (10,000,000 amounts); each run samples 20,000
  // of them and the edges. Why it holds for all: a typed amount of at most 15 digits is within one
  // ulp (≤ 2.3e-16 of its size) of any text of its double, far inside half a 15-digit step.
  it('every two-decimal amount 0.01 … 100,000.00 as Excel, openpyxl and JS store it reads back as typed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (cents) => {
        const want = parseAmount((cents / 100).toFixed(2), 'USD');
        expect(want).toMatchObject({ ok: true, minor: BigInt(cents) });
        for (const text of [stored(cents, 17), stored(cents, 16), String(cents / 100)]) {
          const shown = shownNumber(text);
          expect(shown, text).toBeDefined();
          expect(parseAmount(shown!.text, 'USD'), text).toEqual(want);
        }
      }),
      { numRuns: 20_000, examples: [[1020], [215393], [6410], [1], [10_000_000], [9_999_999]] },
    );
  });

  it('through the workbook reader: amounts in Excel’s form read as typed; 0.125 and rounded ids are not hidden', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(16 as const, 17 as const),
        async (amounts, digits) => {
          const rows = amounts.map((c, i) =>
            refundRow(i + 2, {
              E: num(`E${i + 2}`, stored(c, digits)),
              D: num(`D${i + 2}`, stored(c, digits)),
            }),
          );
          const back = await rowsOf(book({ rows: HEADER + rows.join('') }));
          back.forEach((r, i) => {
            expect(r.problems).toBeUndefined();
            expect(parseAmount(r.fields.refund_amount!, 'USD')).toMatchObject({
              ok: true,
              minor: BigInt(amounts[i]!),
            });
            expect(parseAmount(r.fields.amount!, 'USD')).toMatchObject({
              ok: true,
              minor: BigInt(amounts[i]!),
            });
          });
        },
      ),
      { numRuns: 15, examples: [[[1020, 215393, 6410], 17]] },
    );
    const file = book({
      rows:
        HEADER +
        refundRow(2, { E: num('E2', '0.125') }) +
        refundRow(3, { A: num('A3', '1.2345678901234567E+16') }) +
        refundRow(4, { B: num('B4', '100234.00000000001') }),
    });
    const [r2, r3, r4] = await rowsOf(file);
    expect(r2!.fields.refund_amount).toBe('0.125'); // refused by validation: not whole cents
    expect(parseAmount('0.125', 'USD').ok).toBe(false);
    expect(r3!.problems?.[0]).toMatchObject({ file: 'in.xlsx:Sheet1!A3', field: 'transaction_id' });
    expect(r3!.problems?.[0]?.message).toMatch(/rounded/);
    // An id keeps every stored digit: more than 15 significant digits stays refused.
    expect(r4!.problems?.[0]).toMatchObject({ file: 'in.xlsx:Sheet1!B4', field: 'order_no' });
  });
});

// ---------------------------------------------------------------------------------------------
// Item 5: formulas saved without their result

describe('item 5: a formula saved without its result', () => {
  for (const [how, cell] of [
    ['openpyxl (<v/>)', '<c r="E2"><f>D2/2</f><v/></c>'],
    ['<v></v>', '<c r="E2"><f>D2/2</f><v></v></c>'],
    ['no <v>', '<c r="E2"><f>D2/2</f></c>'],
  ] as const) {
    it(`says so and how to compute it: ${how}`, async () => {
      const [row] = await rowsOf(book({ rows: HEADER + refundRow(2, { E: cell }) }));
      expect(row!.problems).toHaveLength(1);
      expect(row!.problems![0]).toMatchObject({ file: 'in.xlsx:Sheet1!E2', field: 'refund_amount' });
      expect(row!.problems![0]!.message).toMatch(/holds a formula \(=D2\/2\) with no saved result/);
      expect(row!.problems![0]!.expected).toMatch(
        /opening and saving the file in a spreadsheet program computes it/,
      );
    });
  }

  it('a formula whose saved result is empty text is an empty cell, not a missing result', async () => {
    const [row] = await rowsOf(
      book({ rows: HEADER + refundRow(2, { F: '<c r="F2" t="str"><f>""</f><v></v></c>' }) }),
    );
    expect(row!.problems).toBeUndefined();
    expect(row!.fields.refund_reason).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// Item 7: reader fidelity

function utf16le(xml: string): Uint8Array {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
}

function utf16be(xml: string): Uint8Array {
  const le = Buffer.from(xml, 'utf16le');
  return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(le).swap16()]);
}

describe('item 7: cells as other readers read them', () => {
  it('lower-case cell references (r="d1") put values in their own columns', async () => {
    const row = `<row r="2"><c r="a2" t="inlineStr"><is><t>TX1</t></is></c><c r="c2" t="inlineStr"><is><t>USD</t></is></c><c r="e2"><v>5</v></c></row>`;
    const [r] = await rowsOf(book({ rows: HEADER + row }));
    expect(r!.cells).toEqual(['TX1', '', 'USD', '', '5', '']);
  });

  it('an empty <v/> in a shared-string cell is empty, not shared string 0', async () => {
    const rows = `${HEADER}${refundRow(2, { F: '<c r="F2" t="s"><v/></c>', B: '<c r="B2" t="s"><v>1</v></c>' })}`;
    const [r] = await rowsOf(book({ rows, strings: ['<t>Name</t>', '<t>O-7</t>'] }));
    expect(r!.fields.refund_reason).toBe('');
    expect(r!.fields.order_no).toBe('O-7');
  });

  it('CDATA in an inline string is its text; CR LF in a string is a line feed', async () => {
    const rows = `${HEADER}${refundRow(2, {
      B: '<c r="B2" t="inlineStr"><is><t><![CDATA[12345]]></t></is></c>',
      F: '<c r="F2" t="inlineStr"><is><t>a<![CDATA[ & <b>]]>&amp;c\r\nd\re&#13;f</t></is></c>',
    })}`;
    const [r] = await rowsOf(book({ rows }));
    expect(r!.fields.order_no).toBe('12345');
    expect(r!.fields.refund_reason).toBe('a & <b>&c\nd\ne\rf');
  });

  it('CR LF and CDATA in a shared string too', async () => {
    const rows = `${HEADER}${refundRow(2, { F: '<c r="F2" t="s"><v>0</v></c>' })}`;
    const [r] = await rowsOf(book({ rows, strings: ['<t>one\r\ntwo <![CDATA[<3]]></t>'] }));
    expect(r!.fields.refund_reason).toBe('one\ntwo <3');
  });

  it('a shared-string index the table does not hold is refused, not read as empty', async () => {
    const rows = `${HEADER}${refundRow(2, { B: '<c r="B2" t="s"><v>5</v></c>' })}`;
    const [r] = await rowsOf(book({ rows, strings: ['<t>O-9</t>'] }));
    expect(r!.problems?.[0]).toMatchObject({ file: 'in.xlsx:Sheet1!B2', field: 'order_no' });
    expect(r!.problems?.[0]?.message).toMatch(/shared string "5".*hold 1 string\b/);
  });

  it('a shared-strings part named in another case than its link is found', async () => {
    const rows = `${HEADER}${refundRow(2, { B: '<c r="B2" t="s"><v>0</v></c>' })}`;
    const [r] = await rowsOf(
      book({ rows, strings: ['<t>O-9</t>'], names: { strings: 'xl/SharedStrings.xml' } }),
    );
    expect(r!.fields.order_no).toBe('O-9');
  });

  it('a shared-strings part linked but missing is refused, never read as empty text', async () => {
    const rows = `${HEADER}${refundRow(2, { B: '<c r="B2" t="s"><v>0</v></c>' })}`;
    const e = await failure(book({ rows, strings: ['<t>O-9</t>'], dropStrings: true }));
    expect(e.message).toMatch(/shared strings.*xl\/sharedStrings\.xml.*missing/);
  });

  it('part names in another case and backslash paths are found', async () => {
    const rows = `${HEADER}${refundRow(2, {})}`;
    const upper = book({
      rows,
      names: {
        workbook: 'XL/Workbook.xml',
        workbookRels: 'xl/_rels/Workbook.xml.rels',
        sheet: 'xl/Worksheets/Sheet1.xml',
      },
    });
    expect((await rowsOf(upper))[0]!.fields.transaction_id).toBe('TX1');
    const backslash = book({
      rows,
      names: {
        rels: '_rels\\.rels',
        workbook: 'xl\\workbook.xml',
        workbookRels: 'xl\\_rels\\workbook.xml.rels',
        sheet: 'xl\\worksheets\\sheet1.xml',
      },
    });
    expect((await rowsOf(backslash))[0]!.fields.transaction_id).toBe('TX1');
  });

  it('a workbook part in UTF-16 (either byte order) is read', async () => {
    for (const enc of [utf16le, utf16be]) {
      const file = book({ rows: `${HEADER}${refundRow(2, {})}`, workbookBytes: enc });
      expect((await rowsOf(file))[0]!.fields.transaction_id).toBe('TX1');
    }
  });

  it('a ZIP64 workbook (as streaming writers write it) is read', async () => {
    const file = book({ rows: `${HEADER}${refundRow(2, {})}`, zip64: true });
    expect((await rowsOf(file))[0]!.fields.transaction_id).toBe('TX1');
  });
});

describe('item 7: refusals with their true cause', () => {
  it('an .xlsb is "not supported: save as .xlsx"', async () => {
    const file = join(tempDir(), 'book.xlsb');
    writeFileSync(
      file,
      storedZip([
        [
          '[Content_Types].xml',
          '<Types><Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>',
        ],
        [
          '_rels/.rels',
          `<Relationships><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.bin"/></Relationships>`,
        ],
        ['xl/workbook.bin', new Uint8Array([0x83, 0x01, 0x00, 0x80, 0x01, 0x00, 0x9c, 0x01])],
      ]),
    );
    const e = await failure(file);
    expect(e.message).toMatch(/\.xlsb is not supported: save as \.xlsx/);
    expect(e.message).not.toMatch(/no sheet with cells/);
  });

  it('a password-protected workbook is "protected by a password: save an unprotected copy"', async () => {
    // An OLE compound file whose directory holds EncryptionInfo and EncryptedPackage streams.
    const sector = 512;
    const ole = Buffer.alloc(sector * 3);
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(ole, 0);
    ole.writeUInt16LE(0x3e, 0x18);
    ole.writeUInt16LE(3, 0x1a);
    ole.writeUInt16LE(0xfffe, 0x1c);
    ole.writeUInt16LE(9, 0x1e);
    ole.writeUInt16LE(6, 0x20);
    ole.writeUInt32LE(0, 0x30); // first directory sector
    const entry = (i: number, name: string, type: number) => {
      const at = sector + i * 128;
      ole.write(`${name}\u0000`, at, 'utf16le');
      ole.writeUInt16LE((name.length + 1) * 2, at + 0x40);
      ole[at + 0x42] = type;
    };
    entry(0, 'Root Entry', 5);
    entry(1, 'EncryptionInfo', 2);
    entry(2, 'EncryptedPackage', 2);
    entry(3, '\u0006DataSpaces', 1);
    const file = join(tempDir(), 'locked.xlsx');
    writeFileSync(file, ole);
    const e = await failure(file);
    expect(e.message).toMatch(/the workbook is protected by a password: save an unprotected copy/);
    expect(e.message).not.toMatch(/97-2003/);
  });
});
