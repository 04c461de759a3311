// The differential corpus comparison (corpus.test.ts): what payops reads from a corpus workbook
// against what an independent reader (openpyxl, scripts/corpus/expected.py) read, cell by cell.
//
// The rule, cell by cell (expected is openpyxl's [kind, value]; payops's is the field text the bulk
// reader makes of the cell, with no column's amount rounding: every column read as an id would be):
// - string:  equal exactly (both after XML's line-end rule: CR LF and a lone CR are LF; and both
//            with OOXML's `_xHHHH_` escapes decoded, as Excel shows them: expected.py decodes
//            openpyxl 3.0.9's text, which keeps them).
// - number:  payops's decimal text, as a number rounded to 15 significant digits (what the sheet
//            shows), equals openpyxl's float so rounded. A number under a format payops applies to
//            ids (`00000` → `01234`) is compared by the value it shows (leading zeros kept by
//            payops are not a difference: the same rounding of the same number).
// - bool:    TRUE / FALSE.
// - date:    payops keeps the stored serial number (its text), equal to the serial of openpyxl's
//            date (counted from the workbook's epoch, 1900 or 1904) within half a millisecond
//            (openpyxl rounds a date-time to microseconds); a `t="d"` cell stores an ISO 8601 text,
//            which payops keeps: equal to openpyxl's date written in ISO 8601 (a fraction of a
//            second without its trailing zeros: `23:44:51.894` is openpyxl's `23:44:51.894000`; and
//            without a `Z`: SheetJS writes `2026-11-20T00:00:00.000Z`, a spreadsheet's date has no
//            time zone and openpyxl drops it).
// - error:   the same error text (`#N/A`).
// - formula without a saved result: payops's field is empty (the bulk reader refuses it in a column
//            a command reads, with its own message: tabular/xlsx-reader.ts).
// - empty:   payops's field is empty. A cell covered by a merged range (not its first) is not
//            compared: openpyxl drops what such a cell stores, and payops reads the stored value
//            (the bulk reader then applies the range: xlsx-reader.ts applyMerges).
// Refusals: payops inspect tells a file's kind by its first bytes as the bulk reader does
// (tabular/input-kind.ts: an OLE2 file is an .xls or a password-protected workbook; a file that is
// neither ZIP nor OLE2 is CSV text, which bulk and inspect read as such: here "not a workbook"),
// and refuses with exit 2 and the reader's message.
// Sheets: the worksheets in workbook order (chart sheets have no cells), with the same names and
// hidden state; rows from 1, cells from column A, trailing empty cells and rows not compared.
import { SPREADSHEET_DIGITS } from '../../../src/sheets/cell-number.js';
import { sniff } from '../../../src/tabular/input-kind.js';
import { runMain } from '../../helpers/in-process.js';

export type ExpectedCell = null | [string, string | boolean, (string | null)?];
export interface ExpectedSheet {
  name: string;
  hidden: boolean;
  merged: string[];
  rows: ExpectedCell[][];
}
export interface Expected {
  reader: string;
  error?: string;
  sheets?: ExpectedSheet[];
}

export interface PayopsSheet {
  name: string;
  hidden: boolean;
  rows: string[][];
}
export type PayopsRead = { sheets: PayopsSheet[] } | { refused: string };

/**
 * payops's cells of every sheet: `payops inspect FILE --cells --output json`, run in this process
 * (main(argv, io): the real command, no child process per file), which prints every cell as the
 * bulk reader turns it into a field; or, when it refuses the file (exit 2), its message.
 */
export async function payopsRead(file: string): Promise<PayopsRead> {
  if ((await sniff(file)) === 'csv')
    return { refused: 'not a workbook: neither a ZIP nor an OLE2 file, read as CSV text' };
  const r = await runMain(['inspect', file, '--cells', '--output', 'json']);
  if (r.code === 2) return { refused: r.stderr };
  if (r.code !== 0) throw new Error(`payops inspect exited ${r.code}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { sheets: PayopsSheet[] };
  // The bulk reader's refusal of a workbook without a worksheet (tabular/xlsx-reader.ts pickSheet).
  if (out.sheets.length === 0) return { refused: `${file} has no sheet with cells` };
  return { sheets: out.sheets };
}

/** A number as the sheet shows it: 15 significant digits, canonical text. */
function shown(n: number): string {
  return n === 0 ? '0' : String(Number(n.toPrecision(SPREADSHEET_DIGITS)));
}

/** Merged ranges' covered cells (not their first), as "row,col" 0-based. */
function covered(merged: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const ref of merged) {
    const m = /^([A-Z]+)(\d+):([A-Z]+)(\d+)$/.exec(ref);
    if (m === null) continue;
    const [c1, r1, c2, r2] = [col(m[1]!), +m[2]! - 1, col(m[3]!), +m[4]! - 1];
    for (let r = r1; r <= r2; r++)
      for (let c = c1; c <= c2; c++) if (r !== r1 || c !== c1) out.add(`${r},${c}`);
  }
  return out;
}

function col(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + ch.charCodeAt(0) - 64;
  return n - 1;
}

export interface Difference {
  sheet: string;
  cell: string;
  expected: ExpectedCell;
  payops: string;
}

/** Every cell that differs by the rule above; `compared` counts the cells compared. */
export function compare(
  expected: ExpectedSheet[],
  read: PayopsSheet[],
): { diffs: Difference[]; compared: number; sheetProblems: string[] } {
  const diffs: Difference[] = [];
  const sheetProblems: string[] = [];
  let compared = 0;
  if (expected.length !== read.length || expected.some((s, i) => s.name !== read[i]?.name))
    sheetProblems.push(
      `sheets: expected ${JSON.stringify(expected.map((s) => s.name))}, payops ${JSON.stringify(read.map((s) => s.name))}`,
    );
  for (const e of expected) {
    const p = read.find((s) => s.name === e.name);
    if (p === undefined) continue;
    if (p.hidden !== e.hidden)
      sheetProblems.push(`${e.name}: hidden expected ${e.hidden}, payops ${p.hidden}`);
    const skip = covered(e.merged);
    const height = Math.max(e.rows.length, p.rows.length);
    for (let r = 0; r < height; r++) {
      const er = e.rows[r] ?? [];
      const pr = p.rows[r] ?? [];
      const width = Math.max(er.length, pr.length);
      for (let c = 0; c < width; c++) {
        if (skip.has(`${r},${c}`)) continue;
        const ec = er[c] ?? null;
        const pc = pr[c] ?? '';
        if (ec === null && pc === '') continue;
        compared++;
        if (!same(ec, pc))
          diffs.push({ sheet: e.name, cell: `${letters(c)}${r + 1}`, expected: ec, payops: pc });
      }
    }
  }
  return { diffs, compared, sheetProblems };
}

function letters(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/**
 * An ISO 8601 text without a UTC `Z` and with its fraction of a second's trailing zeros dropped
 * (openpyxl writes microseconds and no zone).
 */
function isoSeconds(s: string): string {
  return s
    .replace(/Z$/, '')
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

function same(e: ExpectedCell, p: string): boolean {
  if (e === null) return p === '';
  const [kind, value] = e;
  switch (kind) {
    case 's':
    case 'e':
      return p === value;
    case 'b':
      return p === (value ? 'TRUE' : 'FALSE');
    case 'f':
      return p === '';
    case 'n': {
      const n = Number(p);
      return p !== '' && Number.isFinite(n) && shown(n) === shown(Number(value));
    }
    case 'd': {
      if (isoSeconds(p) === isoSeconds(String(value))) return true;
      const serial = e[2];
      if (serial === null || serial === undefined) return false;
      const n = Number(p);
      return p !== '' && Number.isFinite(n) && Math.abs(n - Number(serial)) < 0.0005 / 86400;
    }
    default:
      return false;
  }
}
