// Every cell of every sheet of a file, as the bulk reader turns it into a field (`payops inspect
// --cells`): for tests (a corpus compared cell by cell with other readers) and for a person who
// wonders what payops read. A workbook's cells go through the bulk reader's own conversion
// (tabular/xlsx-cell.ts cellField, as in a column that is not an amount column); a CSV file's
// fields come from the CSV reader itself. Rows stream out as they are read: memory is the
// workbook's bytes and one row, whatever the sheet's length.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../errors.js';
import { styleFormats } from '../sheets/number-format.js';
import { columnLetters, openWorkbook, sharedStrings, sheetRows, type Workbook } from '../sheets/workbook.js';
import { fileError } from '../tabular/csv-decode.js';
import { type Encoding, readCsv } from '../tabular/csv-reader.js';
import { oleRefused, sheetOfCsv, sniff } from '../tabular/input-kind.js';
import { cellField, cellFieldHolder, unknownString, unknownStringProblem } from '../tabular/xlsx-cell.js';
import { namedSheet, sheetRef, unreadable } from '../tabular/xlsx-reader.js';

/** Rows a sheet can have (Excel's 1,048,576): a row number past it is a damaged file. */
export const MAX_ROWS = 1_048_576;

/** What cells() gives, in order: a sheet, then its rows from row 1 (an empty row as []), then the next sheet. */
export type CellsEvent = { kind: 'sheet'; name: string; hidden: boolean } | { kind: 'row'; cells: string[] };

export interface CellsOptions {
  /** The file as the user named it (messages say this). */
  label: string;
  /** What is opened. */
  path: string;
  /** A CSV file's encoding (--encoding). */
  encoding?: Encoding;
  /** Only this sheet (--sheet), found as bulk finds it. */
  sheet?: string;
}

/** The file's kind, told by its first bytes as bulk tells it; an .xls or encrypted workbook refused. */
export async function kindOf(label: string, path: string): Promise<'csv' | 'xlsx'> {
  const k = await sniff(path);
  if (k === 'xls') throw await oleRefused(label, path);
  return k;
}

/** Every cell, sheet by sheet and row by row. Refusals are the bulk reader's InputErrors. */
export async function* cells(opts: CellsOptions): AsyncGenerator<CellsEvent> {
  if ((await kindOf(opts.label, opts.path)) === 'csv') {
    if (opts.sheet !== undefined) throw sheetOfCsv(opts.label);
    yield* csvCells(opts);
  } else yield* workbookCells(opts);
}

/** A workbook held in memory and opened, as the bulk reader opens it. */
export async function loadWorkbook(label: string, path: string): Promise<Workbook> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const e = fileError(label, err);
    throw e instanceof InputError ? e : err;
  }
  try {
    return await openWorkbook(bytes);
  } catch (err) {
    throw unreadable(label, err);
  }
}

async function* workbookCells(opts: CellsOptions): AsyncGenerator<CellsEvent> {
  const { label } = opts;
  const wb = await loadWorkbook(label, opts.path);
  const sheets = opts.sheet === undefined ? wb.sheets : [namedSheet(wb.sheets, label, opts.sheet)];
  try {
    const strings = await sharedStrings(wb);
    const formats = await styleFormats(wb);
    const got = cellFieldHolder();
    for (const sheet of sheets) {
      yield { kind: 'sheet', name: sheet.name, hidden: sheet.state !== 'visible' };
      const where = `${label}:${sheetRef(sheet.name)}`;
      // Rows given so far (the next row's index), rows read so far (the last row number).
      let given = 0;
      let last = 0;
      for await (const batch of sheetRows(wb, sheet)) {
        for (const r of batch) {
          if (r.row <= last || r.row > MAX_ROWS) {
            const why =
              r.row > MAX_ROWS
                ? `a row numbered ${r.row}, past a sheet's last row (${MAX_ROWS})`
                : `row ${r.row} written after row ${last} (rows out of order)`;
            throw new InputError(`${where}: the sheet has ${why}: a damaged file`, [
              {
                file: `${where}!${r.row}:${r.row}`,
                message: why,
                expected: 'rows in order, as a spreadsheet writes them',
              },
            ]);
          }
          last = r.row;
          const row: string[] = [];
          for (const c of r.cells) {
            if (unknownString(c, strings)) {
              const ref = `${where}!${columnLetters(c.col)}${r.row}`;
              const p = unknownStringProblem(c, strings);
              throw new InputError(`${ref}: ${p.message}`, [{ file: ref, ...p }]);
            }
            row[c.col] = cellField(c, strings, formats, false, '.', got).text;
          }
          const cells = canonical(row);
          if (cells.length === 0) continue;
          for (; given < r.row - 1; given++) yield { kind: 'row', cells: [] };
          given++;
          yield { kind: 'row', cells };
        }
      }
    }
  } catch (err) {
    throw unreadable(label, err);
  }
}

/** Holes filled with '', trailing empty cells dropped: a row ends at its last non-empty cell. */
function canonical(row: string[]): string[] {
  let end = row.length;
  while (end > 0 && (row[end - 1] ?? '') === '') end--;
  const out = new Array<string>(end);
  for (let i = 0; i < end; i++) out[i] = row[i] ?? '';
  return out;
}

/**
 * A CSV file as one sheet named after the file: the CSV reader's header record and rows, each at
 * index line - 1 (the line bulk names it by, where its record starts); blank lines, a `sep=` line
 * and the lines a quoted value spans further are empty rows.
 */
async function* csvCells(opts: CellsOptions): AsyncGenerator<CellsEvent> {
  const reader = readCsv({
    file: opts.label,
    path: opts.path,
    required: [],
    separatorBelowTitle: true,
    ...(opts.encoding === undefined ? {} : { encoding: opts.encoding }),
  });
  const header = await reader.header;
  yield { kind: 'sheet', name: basename(opts.label), hidden: false };
  let given = 0;
  const put = function* (line: number, fields: string[]): Generator<CellsEvent> {
    const cells = canonical(fields);
    if (cells.length === 0) return;
    for (; given < line - 1; given++) yield { kind: 'row', cells: [] };
    given++;
    yield { kind: 'row', cells };
  };
  yield* put(header.line ?? 1, header.written ?? header.columns);
  for await (const row of reader.rows) yield* put(row.line, row.all ?? row.cells);
  await reader.sha256;
}
