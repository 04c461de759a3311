// Hostile workbooks: a small file must never inflate into gigabytes or take minutes. A ZIP entry
// that inflates past the size its directory declares (or past the reader's cap) is refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { ZipWriter } from '../../../src/sheets/zip.js';
import { readCsv } from '../../../src/tabular/csv-reader.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';

const MB = 1 << 20;

/** A workbook whose shared strings or sheet holds `fillMb` MB of one unclosed text. */
async function bomb(where: 'sst' | 'sheet', fillMb: number, sheetXml?: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  const parts: Array<[string, string]> = [
    [
      '_rels/.rels',
      '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    ],
    [
      'xl/workbook.xml',
      '<workbook xmlns:r="r"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ],
    [
      'xl/_rels/workbook.xml.rels',
      '<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="x/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
    ],
  ];
  for (const [n, t] of parts) {
    const e = await zip.entry(n);
    await e.write(t);
    await e.end();
  }
  const filler = 'A'.repeat(MB);
  let e = await zip.entry('xl/sharedStrings.xml');
  await e.write(where === 'sst' ? '<sst><si><t>' : '<sst><si><t>transaction_id</t></si></sst>');
  if (where === 'sst') for (let i = 0; i < fillMb; i++) await e.write(filler);
  await e.end();
  e = await zip.entry('xl/worksheets/sheet1.xml');
  await e.write(sheetXml ?? '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2">');
  if (where === 'sheet') for (let i = 0; i < fillMb; i++) await e.write(filler);
  await e.end();
  await zip.finish();
  const file = join(tempDir(), `${where}.xlsx`);
  writeFileSync(file, Buffer.concat(chunks));
  return file;
}

async function readAll(file: string): Promise<number> {
  const r = readCsv({ file, label: 'in.xlsx' });
  await r.header;
  let n = 0;
  for await (const _ of r.rows) n++;
  return n;
}

describe('ZIP bombs', () => {
  it('an unclosed shared string is refused once it passes the cap, not held and scanned again per chunk', async () => {
    const file = await bomb('sst', 12);
    const t0 = Date.now();
    const err = await readAll(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(String((err as InputError).problems[0]?.message ?? (err as Error).message)).toMatch(
      /shared string/,
    );
    expect(Date.now() - t0).toBeLessThan(30_000);
  }, 60_000);

  it('an unclosed row is refused once it passes the cap', async () => {
    const file = await bomb('sheet', 12);
    const err = await readAll(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
  }, 60_000);

  it('an entry that inflates past the size its directory declares is refused', async () => {
    const file = await bomb('sheet', 0);
    const bytes = readFileSync(file);
    // Declare the sheet's inflated size as 10 bytes in the central directory.
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    let at = bytes.lastIndexOf(name);
    at -= 46;
    expect(bytes.readUInt32LE(at)).toBe(0x02014b50);
    bytes.writeUInt32LE(10, at + 24);
    writeFileSync(file, bytes);
    const err = await readAll(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(JSON.stringify((err as InputError).problems)).toMatch(/declares/);
  });
});

describe('character references', () => {
  it('one that is no character is refused as a damaged workbook, not an unexpected error', async () => {
    for (const ref of ['&#x110000;', '&#99999999999;', '&#0;', '&#xD800;']) {
      const file = await bomb(
        'sheet',
        0,
        `<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>T${ref}</t></is></c></row></sheetData></worksheet>`,
      );
      const err = await readAll(file).catch((e: unknown) => e);
      expect(err, ref).toBeInstanceOf(InputError);
    }
  });
});

describe('cell references', () => {
  it('a column past XFD (the last a spreadsheet has) is refused, not made into millions of columns', async () => {
    const file = await bomb(
      'sheet',
      0,
      '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="ZZZZZZ1" t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>',
    );
    const t0 = Date.now();
    const err = await readAll(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(Date.now() - t0).toBeLessThan(20_000);
  }, 60_000);
});

describe('number cells in a decimal-comma run', () => {
  it('a stored 1.234 is one point two three four, never 1234 (--decimal-comma or the profile)', async () => {
    const is = (r: string, t: string) => `<c r="${r}" t="inlineStr"><is><t>${t}</t></is></c>`;
    const head = ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason']
      .map((h, i) => is(`${'ABCDEF'[i]}1`, h))
      .join('');
    const file = await bomb(
      'sheet',
      0,
      `<worksheet><sheetData><row r="1">${head}</row><row r="2">${is('A2', 'T1')}${is('B2', 'O1')}${is('C2', 'KWD')}<c r="D2"><v>1.234</v></c><c r="E2"><v>1.234</v></c>${is('F2', 'x')}</row></sheetData></worksheet>`,
    );
    const io = fakeIo({
      env: {
        PAYOPS_BASE_URL: 'http://127.0.0.1:1',
        PAYOPS_MERCHANT_ID: '800001',
        PAYOPS_ACCOUNT_ID: '800001001',
        PAYOPS_SIGN_KEY: 'sandbox-sign-key',
      },
    });
    const r = await runMain(['refund', '--file', file, '--dry-run', '--decimal-comma'], io);
    expect(r.stdout + r.stderr).toContain('to refund: KWD 1.234');
    expect(r.stdout + r.stderr).not.toContain('1,234.000');
  }, 60_000);
});
