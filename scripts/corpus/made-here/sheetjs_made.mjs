// Workbooks written by SheetJS (npm `xlsx`) for the made-here corpus: OUT/sheetjs/*.xlsx.
//   node scripts/corpus/made-here/sheetjs_made.mjs CONTENT.json OUT NODE_MODULES_DIR
// SheetJS comes from a scratch folder outside the repository (never a payops dependency).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [contentFile, outRoot, modules] = process.argv.slice(2);
const C = JSON.parse(readFileSync(contentFile, 'utf8'));
const XLSX = createRequire(join(modules, 'x.js'))('xlsx');
const out = join(outRoot, 'sheetjs');
mkdirSync(out, { recursive: true });
const utc = (s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : `${s}Z`);

function save(sheets, name, opts = {}, wbProps = undefined) {
  const wb = XLSX.utils.book_new();
  for (const [title, ws, hidden] of sheets) {
    XLSX.utils.book_append_sheet(wb, ws, title);
    if (hidden !== undefined) {
      wb.Workbook ??= { Sheets: [] };
      wb.Workbook.Sheets ??= [];
      wb.Workbook.Sheets[wb.SheetNames.length - 1] = { Hidden: hidden };
    }
  }
  if (wbProps) wb.Workbook = { ...(wb.Workbook ?? {}), WBProps: wbProps };
  XLSX.writeFile(wb, join(out, name), { compression: true, ...opts });
}

const aoa = (rows, o) => XLSX.utils.aoa_to_sheet(rows, o);

save([['Strings', aoa(C.strings.map((s) => [s]))]], 'strings.xlsx');
// bookSST: strings in a shared strings part (the default writes them inline, t="str").
save([['Strings', aoa(C.strings.map((s) => [s]))]], 'strings-sst.xlsx', { bookSST: true });

{
  const ws = aoa([
    ['value', 'format'],
    ...C.numbers.map(([v, f]) => [Number(v), f]),
    [0.1 + 0.2, 'sum of floats'],
  ]);
  C.numbers.forEach(([, f], i) => {
    ws[`A${i + 2}`].z = f;
  });
  save([['Numbers', ws]], 'numbers.xlsx');
}

for (const epoch1904 of [false, true]) {
  const ws = aoa(
    C.dates.map(([v, f]) => [utc(v), f]),
    { cellDates: true, UTC: true },
  );
  C.dates.forEach(([, f], i) => {
    ws[`A${i + 1}`].z = f;
  });
  save(
    [['Dates', ws]],
    epoch1904 ? 'dates-1904.xlsx' : 'dates.xlsx',
    { cellDates: false },
    epoch1904 ? { date1904: true } : undefined,
  );
}

{
  const ws = aoa([
    ['bool', true, false],
    ['error'],
    ['formula'],
    ['blank below'],
    [null, 10.25],
    [null, 20.5],
  ]);
  ws.B2 = { t: 'e', v: 0x2a, w: '#N/A' };
  ws.C2 = { t: 'e', v: 0x07, w: '#DIV/0!' };
  ws.B3 = { t: 'n', v: 3, f: '1+2' };
  ws.C3 = { t: 's', v: 'ab', f: '"a"&"b"' };
  ws.D3 = { t: 'b', v: true, f: 'B1' };
  ws.E3 = { t: 'n', f: 'SUM(B5:B6)' }; // no value: saved without a result
  ws['!ref'] = 'A1:E6';
  save([['Types', ws]], 'types.xlsx');
}

{
  const rows = [[C.title], ['merged note']];
  C.layoutRows.forEach((row, i) => {
    const r = [];
    row.forEach((v, j) => {
      r[j + (j > 1 ? 1 : 0)] = v;
    });
    if (i === 3) rows.push([]);
    rows.push(r);
  });
  const ws = aoa(rows);
  ws.F4 = { t: 's', v: 'merged over three rows' };
  ws['!ref'] = 'A1:F9';
  ws['!merges'] = [XLSX.utils.decode_range('A2:D2'), XLSX.utils.decode_range('F4:F6')];
  ws['!rows'] = [];
  ws['!rows'][4] = { hidden: true };
  ws['!autofilter'] = { ref: 'A3:F9' };
  save(
    [
      ['Layout', ws],
      ['Hidden', aoa([['hidden sheet']]), 1],
      ['VeryHidden', aoa([['very hidden sheet']]), 2],
    ],
    'layout.xlsx',
  );
}

save(
  Array.from({ length: C.many }, (_, i) => [
    `S${String(i + 1).padStart(2, '0')}`,
    aoa([[`sheet ${i + 1}`], [null, i + 1]]),
  ]),
  'many-sheets.xlsx',
);

{
  const ws = aoa([C.refundHeader, ...C.refunds]);
  for (let r = 2; r <= C.refunds.length + 1; r++) {
    ws[`B${r}`].z = '00000';
    ws[`D${r}`].z = '#,##0.00';
    ws[`E${r}`].z = '#,##0.00';
  }
  save([['Refunds', ws]], 'refunds.xlsx');
}

// Dates as ISO 8601 text in t="d" cells (cellDates), with a formula and a hyperlink.
{
  const ws = aoa(
    C.dates.map(([v]) => [utc(v)]),
    { cellDates: true, UTC: true },
  );
  ws.B1 = { t: 's', v: 'the link', l: { Target: 'https://example.com/refunds?id=1&x=2' } };
  ws.C1 = { t: 'n', v: 2228.23, f: 'SUM(10.2,64.1,2153.93)' };
  ws['!ref'] = 'A1:C5';
  save([['Dates', ws]], 'dates-iso.xlsx', { cellDates: true });
}
