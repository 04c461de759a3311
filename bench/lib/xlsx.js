// A refund CSV as an .xlsx workbook shaped as spreadsheet programs write them (text in the shared
// strings table, amounts as number cells), for the xlsx section of `npm run bench`. Built here
// with Node's zlib so the bench needs no spreadsheet program; the test fixtures are LibreOffice's.
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const col = (i) => String.fromCharCode(65 + i);

function zip(entries) {
  const parts = [];
  const dir = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const data = Buffer.from(text, 'utf8');
    const deflated = deflateRawSync(data);
    const n = Buffer.from(name);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(8, 8);
    h.writeUInt32LE(crc32(data), 14);
    h.writeUInt32LE(deflated.length, 18);
    h.writeUInt32LE(data.length, 22);
    h.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(crc32(data), 16);
    c.writeUInt32LE(deflated.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE(offset, 42);
    dir.push(c, n);
    parts.push(h, n, deflated);
    offset += 30 + n.length + deflated.length;
  }
  const d = Buffer.concat(dir);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(d.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, d, end]);
}

/** Writes `csvPath` (a plain comma-separated refund file, no quotes) as the workbook `xlsxPath`. */
export function csvToXlsx(csvPath, xlsxPath, numberColumns = ['amount', 'refund_amount']) {
  const lines = readFileSync(csvPath, 'utf8').trim().split(/\r?\n/);
  const header = lines[0].split(',');
  const numeric = header.map((h) => numberColumns.includes(h));
  const strings = new Map();
  const sst = (s) => {
    let i = strings.get(s);
    if (i === undefined) {
      i = strings.size;
      strings.set(s, i);
    }
    return i;
  };
  const rows = lines.map((line, r) => {
    const cells = line.split(',').map((v, i) => {
      const ref = `${col(i)}${r + 1}`;
      if (v === '') return '';
      return r > 0 && numeric[i]
        ? `<c r="${ref}"><v>${Number(v)}</v></c>`
        : `<c r="${ref}" t="s"><v>${sst(v)}</v></c>`;
    });
    return `<row r="${r + 1}">${cells.join('')}</row>`;
  });
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  writeFileSync(
    xlsxPath,
    zip([
      // Every OOXML package has one (ECMA-376 Part 2); payops does not need it, other readers refuse without it.
      [
        '[Content_Types].xml',
        `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
      ],
      [
        '_rels/.rels',
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ],
      [
        'xl/workbook.xml',
        `<workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ],
      [
        'xl/_rels/workbook.xml.rels',
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ],
      [
        'xl/sharedStrings.xml',
        `<sst xmlns="${ns}" count="${strings.size}" uniqueCount="${strings.size}">${[...strings.keys()].map((s) => `<si><t>${esc(s)}</t></si>`).join('')}</sst>`,
      ],
      [
        'xl/worksheets/sheet1.xml',
        `<worksheet xmlns="${ns}"><sheetData>${rows.join('')}</sheetData></worksheet>`,
      ],
    ]),
  );
}
