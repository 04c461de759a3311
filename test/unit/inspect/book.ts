// Workbooks built from XML for the inspect tests: stored (uncompressed) ZIPs, so a test puts any
// cell of any kind in them (a number as Excel stores it, a style, a formula without its result).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { tempDir } from '../../helpers/run-cli.js';

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';

function storedZip(entries: Array<[string, string]>): Buffer {
  const out: Buffer[] = [];
  const dir: Buffer[] = [];
  let offset = 0;
  for (const [nameText, content] of entries) {
    const name = Buffer.from(nameText, 'utf-8');
    const data = Buffer.from(content, 'utf-8');
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
    out.push(local, name, data);
    offset += 30 + name.length + data.length;
    dir.push(h, name);
  }
  const directory = Buffer.concat(dir);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, directory, end]);
}

export interface BuiltSheet {
  name: string;
  state?: 'hidden' | 'veryHidden';
  /** The `<sheetData>` body. */
  rows: string;
  /** After `</sheetData>`: `<mergeCells>…`, `<autoFilter …/>`. */
  after?: string;
}

export interface BuiltBook {
  sheets: BuiltSheet[];
  /** `<si>` bodies. */
  strings?: string[];
  /**
   * The number format of each cell style (`s="1"` is the second): a built-in id, or a code of
   * the workbook's own (given ids from 164).
   */
  styles?: Array<number | string>;
}

/** The workbook's path, in a new temporary folder (`name`: its file name). */
export function buildBook(b: BuiltBook, name = 'built.xlsx'): string {
  const sheets = b.sheets
    .map(
      (s, i) =>
        `<sheet name="${s.name}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`,
    )
    .join('');
  const rels = b.sheets
    .map(
      (_, i) =>
        `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
    )
    .join('');
  const n = b.sheets.length;
  const parts: Array<[string, string]> = [
    [
      '_rels/.rels',
      `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    ['xl/workbook.xml', `<workbook ${NS} xmlns:r="${REL}"><sheets>${sheets}</sheets></workbook>`],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="${PKG}">${rels}${b.strings ? `<Relationship Id="rId${n + 1}" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : ''}${b.styles ? `<Relationship Id="rId${n + 2}" Type="${REL}/styles" Target="styles.xml"/>` : ''}</Relationships>`,
    ],
    ...b.sheets.map((s, i): [string, string] => [
      `xl/worksheets/sheet${i + 1}.xml`,
      `<worksheet ${NS}><sheetData>${s.rows}</sheetData>${s.after ?? ''}</worksheet>`,
    ]),
  ];
  if (b.strings)
    parts.push([
      'xl/sharedStrings.xml',
      `<sst ${NS}>${b.strings.map((s) => `<si>${s}</si>`).join('')}</sst>`,
    ]);
  if (b.styles) {
    const own = b.styles.flatMap((f, i) =>
      typeof f === 'string' ? [`<numFmt numFmtId="${164 + i}" formatCode="${f}"/>`] : [],
    );
    const xfs = [
      '<xf numFmtId="0"/>',
      ...b.styles.map((f, i) => `<xf numFmtId="${typeof f === 'string' ? 164 + i : f}"/>`),
    ];
    parts.push([
      'xl/styles.xml',
      `<styleSheet ${NS}><numFmts>${own.join('')}</numFmts><cellXfs>${xfs.join('')}</cellXfs></styleSheet>`,
    ]);
  }
  const file = join(tempDir('payops-inspect-'), name);
  writeFileSync(file, storedZip(parts));
  return file;
}
