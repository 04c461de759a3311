// An .xlsx sheet read as the CSV reader's rows (csv-reader.ts), so that a workbook goes through
// the same header checks, row validation, plan and content key as a CSV file. Loaded only when a
// file is a workbook. Cells become the text a CSV would hold: strings as they are, numbers as the
// exact decimal they store (sheets/cell-number.ts), never via a float. What a sheet can hold and a
// CSV cannot is checked here, in the columns the command reads: error cells (#N/A), formulas saved
// without their result, and numbers with more than 15 significant digits outside amount columns
// (an id the spreadsheet rounded or a calculation left inexact). An amount column's number is read
// as the sheet shows it, 15 significant digits (Excel stores a typed 10.2 as 10.199999999999999),
// and validation then checks it against the currency's minor units. Any other column's number is
// read as its format shows it when that is certain (`00000` shows 1234 as 01234:
// sheets/number-format.ts), and refused in a column the command reads when it is not. A merged
// range's value is every covered row's in its first column. Problems name the cell as a
// spreadsheet does: `refunds.xlsx:Sheet1!C7`.
//
// One file, though at the limit: the sheet's rows and the checks of what a cell holds read as one
// pass over the sheet XML (issue 26's cell rules land here and may split it by job).
//
// The file is read into memory once (an .xlsx is compressed: ~3 MB for 100,000 rows), so its
// SHA-256 is of exactly the bytes whose rows were checked; the sheet's XML is inflated and scanned
// as a stream.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { InputError, type InputProblem } from '../errors.js';
import { quote } from '../quote.js';
import { type StyleFormats, styleFormats } from '../sheets/number-format.js';
import {
  type ColumnFormat,
  columnLetters,
  type MergedRange,
  openWorkbook,
  type RawRow,
  type SharedStrings,
  type SheetInfo,
  type SheetLooks,
  sharedStrings,
  sheetMerges,
  sheetRows,
  UnsupportedWorkbook,
  type Workbook,
  WorkbookError,
} from '../sheets/workbook.js';
import { ZipFormatError } from '../sheets/zip.js';
import { fileError } from './csv-decode.js';
import {
  buildHeader,
  type CsvHeader,
  HEADER_SEARCH_ROWS,
  type HeaderMatching,
  headerExpectation,
  headerScore,
  isHeader,
  noHeader,
  normaliseColumn,
} from './csv-header.js';
import { type CsvRow, type FieldsMaker, fieldsMaker } from './csv-records.js';
import {
  cellField,
  cellFieldHolder,
  cellProblem,
  cellText,
  isAmountColumn,
  noResult,
  unknownString,
  unknownStringProblem,
} from './xlsx-cell.js';

export { isAmountColumn } from './xlsx-cell.js';

export interface SheetReadOptions {
  file: string;
  /** How problems name the file (the name the user gave); default `file`. */
  label?: string;
  /** The sheet to read; default the first. */
  sheet?: string;
  required?: string[];
  /** How header names become columns, and which row is the header (csv-header.ts). */
  matching?: HeaderMatching;
  /** Normalised columns whose cells are checked for errors and rounded numbers; default every column. */
  checked?: readonly string[];
  /** The decimal mark number cells are written with (csv-reader.ts CsvReadOptions.decimalMark). */
  decimalMark?: '.' | ',';
  /** What to do with what a person cannot see (csv-reader.ts CsvReadOptions.hidden). */
  hidden?: HiddenMode;
}

/** --include-hidden reads hidden rows and sheets; --skip-hidden leaves them out; unset: refused. */
export type HiddenMode = 'include' | 'skip';

/** The sheet that was read, for the plan. `looks` is complete once every row has been read. */
export interface SheetFacts {
  name: string;
  state: SheetInfo['state'];
  /** Sheets in the workbook. */
  of: number;
  /** Picked by --sheet (rather than by default). */
  named: boolean;
  /** Hidden sheets passed over for the first visible one (--skip-hidden). */
  passedOver: string[];
  looks: SheetLooks;
}

/** A sheet name as a cell reference writes it: quoted when it holds anything but letters, digits, `_` and `.`. */
export function sheetRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;
}

/** A problem of validation (file, line, field) re-addressed to its cell, `file:Sheet!C7`. */
export function cellLocator(
  label: string,
  sheet: string,
  normalised: readonly string[],
): (p: InputProblem) => InputProblem {
  const at = new Map(normalised.map((n, i) => [n, columnLetters(i)]));
  return (p) => {
    if (p.file !== label || p.line === undefined) return p;
    const { line, ...rest } = p;
    const letter = p.field === undefined ? undefined : at.get(p.field);
    return {
      ...rest,
      file: `${label}:${sheetRef(sheet)}!${letter === undefined ? `${line}:${line}` : `${letter}${line}`}`,
    };
  };
}

/** The rows, as csv-reader.ts's CsvRows (the same shape; not imported: csv-reader imports this file). */
interface SheetRows extends AsyncIterableIterator<CsvRow> {
  ready(): CsvRow | undefined;
}

/** What csv-reader.ts's CsvReader is, for a workbook. */
export interface SheetReader {
  header: Promise<CsvHeader>;
  rows: SheetRows;
  sha256: Promise<string>;
  /** Re-addresses validation problems to cells (resolves with the header). */
  locate: Promise<(p: InputProblem) => InputProblem>;
  /** The sheet read (resolves with the header). */
  sheet: Promise<SheetFacts>;
}

export function readSheet(opts: SheetReadOptions): SheetReader {
  const label = opts.label ?? opts.file;
  const opened = open(opts, label);
  const header = opened.then((o) => o.header);
  const sha256 = opened.then((o) => o.sha256);
  const locate = opened.then((o) => cellLocator(label, o.sheet.name, o.header.normalised));
  const sheet = opened.then((o) => o.facts);
  header.catch(() => {});
  sha256.catch(() => {});
  locate.catch(() => {});
  sheet.catch(() => {});
  return { header, sha256, locate, sheet, rows: rowIterator(opened) };
}

interface Opened {
  header: CsvHeader;
  sheet: SheetInfo;
  facts: SheetFacts;
  sha256: string;
  rows: AsyncGenerator<CsvRow[]>;
}

async function open(opts: SheetReadOptions, label: string): Promise<Opened> {
  let bytes: Buffer;
  try {
    bytes = await readFile(opts.file);
  } catch (err) {
    const e = fileError(label, err);
    throw e instanceof InputError ? e : err;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let wb: Workbook;
  try {
    wb = await openWorkbook(bytes);
  } catch (err) {
    throw unreadable(label, err);
  }
  const { sheet, passedOver } = pickSheet(wb, label, opts.sheet, opts.hidden);
  const looks: SheetLooks = {};
  const facts: SheetFacts = {
    name: sheet.name,
    state: sheet.state,
    of: wb.sheets.length,
    named: opts.sheet !== undefined,
    passedOver,
    looks,
  };
  let strings: SharedStrings;
  let cellFormats: CellFormats;
  try {
    strings = await sharedStrings(wb);
    cellFormats = { formats: await styleFormats(wb), merges: await sheetMerges(wb, sheet) };
  } catch (err) {
    throw unreadable(label, err);
  }
  const where = `${label}:${sheetRef(sheet.name)}`;
  const raw = sheetRows(wb, sheet, looks);
  const pending: RawRow[] = [];
  const required = opts.required ?? [];
  const matching = opts.matching ?? {};
  const namesOf = (r: RawRow): string[] => {
    const names: string[] = [];
    for (const c of r.cells) names[c.col] = cellText(c, strings);
    for (let i = 0; i < names.length; i++) names[i] ??= '';
    return names;
  };
  // The header: --header-row's row; else the first row with a value, unless it lacks a required
  // column and a later row (within the first HEADER_SEARCH_ROWS) has them all (a title above the
  // header); when none has them, the row with the most, for the refusal to name.
  let headerRow: RawRow | undefined;
  let best: { row: RawRow; score: number } | undefined;
  try {
    for (;;) {
      if (pending.length === 0) {
        const next = await raw.next();
        if (next.done) break;
        pending.push(...next.value);
      }
      const r = pending[0]!;
      if (matching.headerRow !== undefined) {
        if (r.row > matching.headerRow) break;
        pending.shift();
        if (r.row === matching.headerRow) {
          headerRow = r;
          break;
        }
        continue;
      }
      if (best !== undefined && r.row > HEADER_SEARCH_ROWS) break;
      pending.shift();
      if (!r.cells.some((c) => cellText(c, strings) !== '')) continue;
      const names = namesOf(r);
      if (isHeader(names, required, matching)) {
        headerRow = r;
        break;
      }
      const score = headerScore(names, required, matching);
      if (best === undefined || score > best.score) best = { row: r, score };
    }
  } catch (err) {
    throw unreadable(label, err);
  }
  if (
    matching.headerRow !== undefined &&
    (headerRow === undefined || namesOf(headerRow).every((n) => n === ''))
  ) {
    const at = `${where}!${matching.headerRow}:${matching.headerRow}`;
    throw new InputError(
      `${at}: --header-row ${matching.headerRow} is an empty row or past the sheet's end`,
      [{ file: at, message: 'no header in this row', expected: headerExpectation(required) }],
    );
  }
  // With none required, rows read past the best are gone: refused rather than read from it.
  if (headerRow === undefined && required.length === 0 && best !== undefined)
    throw noHeader(where, matching, namesOf(best.row));
  headerRow ??= best?.row;
  if (headerRow === undefined) {
    throw new InputError(`${where} is empty`, [
      { file: where, message: 'the sheet has no rows', expected: headerExpectation(required) },
    ]);
  }
  const names = namesOf(headerRow);
  let header: CsvHeader;
  try {
    header = buildHeader(label, headerRow.row, names, ',', false, required, matching);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    const locate = cellLocator(label, sheet.name, names.map(normaliseColumn));
    // The CSV hint names a separator; a workbook's names the other sheets when there are some.
    const others = wb.sheets.length > 1 && opts.sheet === undefined;
    const hint = others
      ? `the first sheet (${quote(sheet.name)}) was read: name the sheet with the orders with --sheet (its sheets: ${wb.sheets.map((s) => quote(s.name)).join(', ')})${err.hint ? `; or ${err.hint.replace(/ \(the file was read as [^)]*\)/, '')}` : ''}`
      : (err.hint?.replace(/ \(the file was read as [^)]*\)/, '') ??
        'column names are matched ignoring case, spaces, _ - and .');
    throw new InputError(
      err.message.replace(`${label}:${headerRow.row}`, `${where}!${headerRow.row}:${headerRow.row}`),
      err.problems.map(locate),
      { hint },
    );
  }
  looks.merged = mergedNotes(cellFormats.merges, headerRow.row, header.columns);
  const rows = toRows(label, sheet.name, header, strings, pending, raw, opts.checked, opts.decimalMark, {
    ...cellFormats,
    headerRow: headerRow.row,
    looks,
  });
  return { header, sheet, facts, sha256, rows };
}

/**
 * The sheet to read: --sheet's, else the first. A hidden first sheet is a sheet nobody looking at
 * the workbook sees (an old supplier's payouts, last year's refunds): refused unless
 * --include-hidden reads it or --skip-hidden passes over it to the first visible sheet. A hidden
 * sheet named by --sheet is read (the plan says it is hidden).
 */
function pickSheet(
  wb: Workbook,
  label: string,
  wanted: string | undefined,
  hidden: HiddenMode | undefined,
): { sheet: SheetInfo; passedOver: string[] } {
  const names = wb.sheets.map((s) => quote(s.name)).join(', ');
  if (wanted === undefined) {
    const first = wb.sheets[0];
    if (first === undefined)
      throw new InputError(`${label} has no sheet with cells`, [{ file: label, message: 'no worksheet' }]);
    if (first.state === 'visible' || hidden === 'include') return { sheet: first, passedOver: [] };
    const visible = wb.sheets.find((s) => s.state === 'visible');
    if (hidden === 'skip' && visible !== undefined) {
      const passedOver = wb.sheets.slice(0, wb.sheets.indexOf(visible)).map((s) => s.name);
      return { sheet: visible, passedOver };
    }
    const how = first.state === 'veryHidden' ? 'very hidden (shown by no menu; set from a macro)' : 'hidden';
    throw new InputError(
      `${label}: its first sheet, ${quote(first.name)}, is ${how}: nobody looking at the workbook sees it; nothing was sent`,
      [
        {
          file: `${label}:${sheetRef(first.name)}`,
          message: `the sheet is ${first.state === 'veryHidden' ? 'very hidden' : 'hidden'}`,
          expected:
            visible === undefined
              ? 'a visible sheet'
              : `the sheet with the orders, e.g. --sheet ${quoteArg(visible.name)}`,
        },
      ],
      {
        hint:
          visible === undefined
            ? 'every sheet is hidden: --include-hidden reads the first one anyway'
            : `name the sheet to read with --sheet ${quoteArg(visible.name)} (its sheets: ${names}); --include-hidden reads the hidden one, --skip-hidden the first visible one`,
      },
    );
  }
  return { sheet: namedSheet(wb.sheets, label, wanted), passedOver: [] };
}

/** The sheet --sheet names: by its name, else ignoring case; refused naming the sheets there are. */
export function namedSheet<S extends { name: string }>(
  sheets: readonly S[],
  label: string,
  wanted: string,
): S {
  const names = sheets.map((s) => quote(s.name)).join(', ');
  const found =
    sheets.find((s) => s.name === wanted) ??
    sheets.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
  if (found === undefined) {
    throw new InputError(
      `${label} has no sheet named ${quote(wanted)}`,
      [{ file: label, message: `its sheets are ${names}` }],
      {
        hint: `name one of its sheets with --sheet, e.g. --sheet ${quote(sheets[0]?.name ?? 'Sheet1')}`,
      },
    );
  }
  return found;
}

/** A sheet name as a shell argument in a hint. */
function quoteArg(name: string): string {
  return /^[\w.-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`;
}

export function unreadable(label: string, err: unknown): unknown {
  if (err instanceof InputError) return err;
  if (err instanceof UnsupportedWorkbook) {
    return new InputError(
      `${label}: ${err.message}`,
      [{ file: label, message: err.message, expected: 'an .xlsx workbook or a UTF-8 CSV file' }],
      { hint: err.hint },
    );
  }
  if (!(err instanceof ZipFormatError || err instanceof WorkbookError)) return err;
  return new InputError(
    `${label} looks like an Excel workbook (.xlsx) but cannot be read: ${err.message}`,
    [{ file: label, message: err.message, expected: 'an .xlsx workbook or a UTF-8 CSV file' }],
    { hint: 'open it in the spreadsheet program and save it again as "Excel Workbook (*.xlsx)"' },
  );
}

/** The cells' number formats and the sheet's merged ranges, as toRows applies them. */
interface CellFormats {
  formats: StyleFormats;
  merges: MergedRange[];
}

/**
 * The merged ranges a plan names: those that carry their first cell's value down to data rows
 * below it (a range within one row only joins cells across; one of the header's is a title).
 */
function mergedNotes(merges: readonly MergedRange[], headerRow: number, columns: readonly string[]) {
  return merges
    .filter((m) => m.lastRow > m.firstRow && m.firstRow > headerRow)
    .map((m) => ({ range: m.ref, column: columns[m.firstCol] ?? columnLetters(m.firstCol) }));
}

async function* toRows(
  label: string,
  sheetName: string,
  header: CsvHeader,
  strings: SharedStrings,
  pending: RawRow[],
  raw: AsyncGenerator<RawRow[]>,
  checked: readonly string[] | undefined,
  mark: '.' | ',' = '.',
  cellLooks: CellFormats & { headerRow: number; looks?: SheetLooks } = {
    formats: [],
    merges: [],
    headerRow: 1,
  },
): AsyncGenerator<CsvRow[]> {
  const width = header.columns.length;
  const makeFields: FieldsMaker = fieldsMaker(header.normalised);
  const check = header.normalised.map((n) => checked === undefined || checked.includes(n));
  const money = header.normalised.map(isAmountColumn);
  const sheet = sheetRef(sheetName);
  const { formats, merges, headerRow } = cellLooks;
  // Each column's number format, for a results workbook (SheetLooks.formats).
  const columnFormats: Array<ColumnFormat | undefined> = [];
  if (cellLooks.looks !== undefined) cellLooks.looks.formats = columnFormats;
  const seeFormat = (col: number, f: ColumnFormat) => {
    const had = columnFormats[col];
    if (had === undefined) columnFormats[col] = f;
    else if (
      had !== 'mixed' &&
      (typeof had === 'string' || typeof f === 'string' ? had !== f : had.id !== f.id || had.code !== f.code)
    )
      columnFormats[col] = 'mixed';
  };
  // The value of each merged range's first cell, once its row is read (rows come in order).
  const mergedValue = new Map<MergedRange, string>();
  const mergesAt = activeMerges(merges);
  const got = cellFieldHolder();
  const convert = (r: RawRow): CsvRow | undefined => {
    const cells = new Array<string>(width).fill('');
    let problems: InputProblem[] | undefined;
    let any = false;
    for (const c of r.cells) {
      const shown = money[c.col] === true;
      const { text, formatProblem, format } = cellField(c, strings, formats, shown, mark, got);
      if (format !== undefined) seeFormat(c.col, format);
      if (text === '' && c.type !== 'e' && !noResult(c) && !unknownString(c, strings)) continue;
      any = true;
      const ref = `${label}:${sheet}!${columnLetters(c.col)}${r.row}`;
      if (c.col >= width) {
        problems ??= [];
        problems.push({
          file: ref,
          message: `a value (${quote(text)}) in a column without a header`,
          expected: 'every value under a named column',
        });
        continue;
      }
      cells[c.col] = text;
      if (!check[c.col]) continue;
      const field = header.normalised[c.col]!;
      const problem = unknownString(c, strings)
        ? unknownStringProblem(c, strings)
        : (cellProblem(c, text, shown) ??
          (formatProblem === undefined
            ? undefined
            : {
                message: formatProblem,
                expected:
                  'the value as it is shown: format the column as Text (or General, 0, or zero-padded like 00000) and check what it shows',
              }));
      if (problem !== undefined) {
        problems ??= [];
        problems.push({ file: ref, field, ...problem });
      }
    }
    if (merges.length > 0) {
      const found = applyMerges(r.row, cells, mergesAt(r.row), mergedValue, headerRow);
      for (const m of found) {
        if (!check[m.col]) continue;
        problems ??= [];
        problems.push({
          file: `${label}:${sheet}!${columnLetters(m.col)}${r.row}`,
          field: header.normalised[m.col]!,
          ...m.problem,
        });
      }
    }
    if (!any) return undefined;
    const row: CsvRow = { line: r.row, fields: makeFields(cells), cells };
    if (problems !== undefined) row.problems = problems;
    if (r.hidden) row.hidden = `${sheet}!A${r.row}`;
    return row;
  };
  try {
    const first = pending.map(convert).filter((r): r is CsvRow => r !== undefined);
    if (first.length > 0) yield first;
    for await (const batch of raw) {
      const out: CsvRow[] = [];
      for (const r of batch) {
        const row = convert(r);
        if (row !== undefined) out.push(row);
      }
      if (out.length > 0) yield out;
    }
  } catch (err) {
    throw unreadable(label, err);
  }
}

/**
 * The merged ranges covering a row, for rows asked in increasing order: ranges sorted by their
 * first row enter as it is reached and leave after their last, so a sheet of many merges costs
 * each row only the ranges over it.
 */
function activeMerges(merges: readonly MergedRange[]): (row: number) => readonly MergedRange[] {
  const sorted = [...merges].sort((a, b) => a.firstRow - b.firstRow);
  let next = 0;
  let active: MergedRange[] = [];
  return (row) => {
    if (active.length > 0) active = active.filter((m) => m.lastRow >= row);
    while (next < sorted.length && sorted[next]!.firstRow <= row) {
      const m = sorted[next++]!;
      if (m.lastRow >= row) active.push(m);
    }
    return active;
  };
}

/**
 * A merged range shows its first cell's value over every cell it covers: in the first cell's
 * column that value is every covered row's (a reason merged over three rows is the reason of all
 * three), whatever the covered cells still store (a spreadsheet does not show it). Covered cells of
 * the range's other columns, and data cells under a range that starts in the header, show a value
 * that is not theirs: refused, if the command reads them, never guessed.
 */
function applyMerges(
  row: number,
  cells: string[],
  merges: readonly MergedRange[],
  values: Map<MergedRange, string>,
  headerRow: number,
): Array<{ col: number; problem: { message: string; expected: string } }> {
  const found: Array<{ col: number; problem: { message: string; expected: string } }> = [];
  for (const m of merges) {
    if (row < m.firstRow || row > m.lastRow || row <= headerRow) continue;
    if (row === m.firstRow) {
      values.set(m, cells[m.firstCol] ?? '');
    } else if (m.firstRow > headerRow && m.firstCol < cells.length) {
      cells[m.firstCol] = values.get(m) ?? '';
    }
    const value = m.firstRow > headerRow ? (values.get(m) ?? '') : '';
    const first = `${columnLetters(m.firstCol)}${m.firstRow}`;
    for (let col = m.firstCol; col <= m.lastCol && col < cells.length; col++) {
      if (m.firstRow > headerRow && col === m.firstCol) continue;
      if (m.firstRow > headerRow && value === '') continue;
      cells[col] = '';
      found.push({
        col,
        problem: {
          message:
            m.firstRow <= headerRow
              ? `the cell is covered by the merged range ${m.ref}, which starts in the header (at ${first}): it shows the header, not a value`
              : `the cell is covered by the merged range ${m.ref}, whose value (${quote(value)}, from ${first}) spans several columns: which column it belongs to is not certain`,
          expected: 'cells that are not merged across columns: unmerge them and fill in each cell',
        },
      });
    }
  }
  return found;
}

/**
 * The rows as the CSV reader's iterator (CsvRows): rows already converted are handed out by
 * `ready()` without a promise each.
 */
function rowIterator(opened: Promise<Opened>): SheetRows {
  let batch: CsvRow[] = [];
  let at = 0;
  let source: AsyncGenerator<CsvRow[]> | undefined;
  let finished = false;
  const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };
  const it: SheetRows = {
    [Symbol.asyncIterator]() {
      return this;
    },
    ready() {
      return at < batch.length ? batch[at++] : undefined;
    },
    async next(): Promise<IteratorResult<CsvRow>> {
      if (at < batch.length) return { value: batch[at++]!, done: false };
      if (finished) return DONE;
      try {
        source ??= (await opened).rows;
        for (;;) {
          const n = await source.next();
          if (n.done) {
            finished = true;
            return DONE;
          }
          batch = n.value;
          at = 0;
          if (batch.length > 0) return { value: batch[at++]!, done: false };
        }
      } catch (err) {
        finished = true;
        throw err;
      }
    },
    async return(): Promise<IteratorResult<CsvRow>> {
      finished = true;
      batch = [];
      at = 0;
      await source?.return(undefined);
      return DONE;
    },
  };
  return it;
}
