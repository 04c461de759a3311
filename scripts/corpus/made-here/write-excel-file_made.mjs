// Workbooks written by write-excel-file (npm) for the made-here corpus: OUT/write-excel-file/*.xlsx.
//   node scripts/corpus/made-here/write-excel-file_made.mjs CONTENT.json OUT NODE_MODULES_DIR
// It comes from a scratch folder outside the repository (never a payops dependency). It writes
// strings, numbers, booleans, dates and formulas (without a result), column and row spans.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [contentFile, outRoot, modules] = process.argv.slice(2);
const C = JSON.parse(readFileSync(contentFile, 'utf8'));
const writeExcelFile = createRequire(join(modules, 'x.js'))('write-excel-file/node').default;
const out = join(outRoot, 'write-excel-file');
mkdirSync(out, { recursive: true });
const utc = (s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : `${s}Z`);
const save = (data, name, options = {}) => writeExcelFile(data, options).toFile(join(out, name));

await save(
  C.strings.map((s) => [s]),
  'strings.xlsx',
  { sheet: 'Strings' },
);
await save(
  [
    ['value', 'format'],
    ...C.numbers.map(([v, f]) => [{ value: Number(v), format: f }, f]),
    [0.1 + 0.2, 'sum of floats'],
  ],
  'numbers.xlsx',
  { sheet: 'Numbers' },
);
await save(
  C.dates.map(([v, f]) => [{ value: utc(v), type: Date, format: f }, f]),
  'dates.xlsx',
  { sheet: 'Dates' },
);
await save(
  [
    ['bool', true, false],
    ['formula', { type: 'Formula', value: '=1+2' }, { type: 'Formula', value: '=SUM(B4:B5)' }],
    ['blank below'],
    [null, 10.25],
    [null, 20.5],
  ],
  'types.xlsx',
  { sheet: 'Types' },
);
{
  const rows = [[C.title], [{ value: 'merged note', columnSpan: 4 }, null, null, null]];
  C.layoutRows.forEach((row, i) => {
    const r = [];
    row.forEach((v, j) => {
      r[j + (j > 1 ? 1 : 0)] = v;
    });
    for (let k = 0; k < 6; k++) r[k] ??= null;
    if (i === 3) rows.push([null]);
    rows.push(r);
  });
  rows[3][5] = { value: 'merged over three rows', rowSpan: 3 };
  await save(rows, 'layout.xlsx', { sheet: 'Layout' });
}
await save(
  Array.from({ length: C.many }, (_, i) => ({
    sheet: `S${String(i + 1).padStart(2, '0')}`,
    data: [[`sheet ${i + 1}`], [null, i + 1]],
  })),
  'many-sheets.xlsx',
);
await save(
  [
    C.refundHeader,
    ...C.refunds.map((r) => [
      r[0],
      { value: r[1], format: '00000' },
      r[2],
      { value: r[3], format: '#,##0.00' },
      { value: r[4], format: '#,##0.00' },
      r[5],
    ]),
  ],
  'refunds.xlsx',
  { sheet: 'Refunds' },
);
