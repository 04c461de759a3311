// Workbooks written by exceljs (npm) for the made-here corpus: OUT/exceljs/*.xlsx.
//   node scripts/corpus/made-here/exceljs_made.mjs CONTENT.json OUT NODE_MODULES_DIR
// exceljs comes from a scratch folder outside the repository (never a payops dependency).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [contentFile, outRoot, modules] = process.argv.slice(2);
const C = JSON.parse(readFileSync(contentFile, 'utf8'));
const ExcelJS = createRequire(join(modules, 'x.js'))('exceljs');
const out = join(outRoot, 'exceljs');
mkdirSync(out, { recursive: true });
const utc = (s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : `${s}Z`);
const save = (wb, name) => wb.xlsx.writeFile(join(out, name));

async function strings() {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Strings');
  for (const s of C.strings) ws.addRow([s]);
  await save(wb, 'strings.xlsx');
}

async function numbers() {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Numbers');
  ws.addRow(['value', 'format']);
  for (const [v, fmt] of C.numbers) {
    const row = ws.addRow([Number(v), fmt]);
    row.getCell(1).numFmt = fmt;
  }
  ws.addRow([0.1 + 0.2, 'sum of floats']);
  await save(wb, 'numbers.xlsx');
}

async function dates(epoch1904) {
  const wb = new ExcelJS.Workbook();
  if (epoch1904) wb.properties.date1904 = true;
  const ws = wb.addWorksheet('Dates');
  for (const [v, fmt] of C.dates) {
    const row = ws.addRow([utc(v), fmt]);
    row.getCell(1).numFmt = fmt;
  }
  await save(wb, epoch1904 ? 'dates-1904.xlsx' : 'dates.xlsx');
}

async function types() {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Types');
  ws.addRow(['bool', true, false]);
  ws.addRow(['error', { error: '#N/A' }, { error: '#DIV/0!' }]);
  ws.addRow([
    'formula',
    { formula: '1+2', result: 3 },
    { formula: '"a"&"b"', result: 'ab' },
    { formula: 'B1', result: true },
    { formula: 'SUM(B5:B6)' },
  ]);
  ws.addRow(['blank below']);
  ws.addRow([null, 10.25]);
  ws.addRow([null, 20.5]);
  await save(wb, 'types.xlsx');
}

async function layout() {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Layout');
  ws.getCell('A1').value = C.title;
  ws.getCell('A2').value = 'merged note';
  ws.mergeCells('A2:D2');
  C.layoutRows.forEach((row, i) => {
    row.forEach((v, j) => {
      if (v !== null) ws.getCell(3 + i + (i > 2 ? 1 : 0), 1 + j + (j > 1 ? 1 : 0)).value = v;
    });
  });
  ws.getCell('F4').value = 'merged over three rows';
  ws.mergeCells('F4:F6');
  ws.getRow(5).hidden = true;
  ws.autoFilter = 'A3:F9';
  wb.addWorksheet('Hidden', { state: 'hidden' }).getCell('A1').value = 'hidden sheet';
  wb.addWorksheet('VeryHidden', { state: 'veryHidden' }).getCell('A1').value = 'very hidden sheet';
  await save(wb, 'layout.xlsx');
}

async function many() {
  const wb = new ExcelJS.Workbook();
  for (let n = 1; n <= C.many; n++) {
    const ws = wb.addWorksheet(`S${String(n).padStart(2, '0')}`);
    ws.getCell('A1').value = `sheet ${n}`;
    ws.getCell('B2').value = n;
  }
  await save(wb, 'many-sheets.xlsx');
}

async function richtext() {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Rich');
  ws.getCell('A1').value = {
    richText: [
      { text: 'Refund ' },
      { font: { bold: true }, text: 'approved' },
      { text: ' for ' },
      { font: { italic: true, color: { argb: 'FFFF0000' } }, text: 'order 01234' },
    ],
  };
  ws.getCell('A2').value = { richText: [{ font: { bold: true }, text: '中文' }, { text: ' 💳 end ' }] };
  ws.getCell('A3').value = 'plain after rich';
  await save(wb, 'richtext.xlsx');
}

async function refunds(name, streaming) {
  const wb = streaming
    ? new ExcelJS.stream.xlsx.WorkbookWriter({ filename: join(out, name), useSharedStrings: false })
    : new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Refunds');
  ws.addRow(C.refundHeader).commit?.();
  for (const r of C.refunds) {
    const row = ws.addRow(r);
    row.getCell(2).numFmt = '00000';
    row.getCell(4).numFmt = '#,##0.00';
    row.getCell(5).numFmt = '#,##0.00';
    row.commit?.();
  }
  if (streaming) await wb.commit();
  else await save(wb, name);
}

async function extras() {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Extras');
  ws.addTable({
    name: 'Refunds',
    ref: 'A1',
    headerRow: true,
    totalsRow: true,
    columns: [
      { name: 'Txn', totalsRowLabel: 'Total' },
      { name: 'Amount', totalsRowFunction: 'sum' },
    ],
    rows: [
      ['t1', 10.2],
      ['t2', 64.1],
      ['t3', 2153.93],
    ],
  });
  ws.getCell('D1').value = { text: 'the link', hyperlink: 'https://example.com/refunds?id=1&x=2' };
  ws.getCell('D2').value = 'has a note';
  ws.getCell('D2').note = 'a note';
  ws.getCell('E1').value = 1;
  ws.getCell('E2').value = { formula: 'E1*2', result: 2, shareType: 'shared', ref: 'E2:E4' };
  ws.getCell('E3').value = { sharedFormula: 'E2', result: 4 };
  ws.getCell('E4').value = { sharedFormula: 'E2', result: 6 };
  ws.getCell('F1').value = utc('2026-11-20T13:45:30');
  ws.getCell('G1').value = 12345678901234;
  await save(wb, 'extras.xlsx');
}

await extras();
await strings();
await numbers();
await dates(false);
await dates(true);
await types();
await layout();
await many();
await richtext();
await refunds('refunds.xlsx', false);
// The streaming writer, with inline strings (no shared strings part).
await refunds('refunds-stream-inline.xlsx', true);
