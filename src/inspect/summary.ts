// What `payops inspect FILE` reports (without --cells): the file read by the same reader, with the
// same columns, header search, mapping and sheet choice as the command named by --for, and what
// it found — data only; inspect-view.ts draws it. Nothing is validated beyond what the reader
// itself checks (a run's --dry-run checks every value).
import { InputError } from '../errors.js';
import { columnLetters, sheetMerges, type Workbook } from '../sheets/workbook.js';
import type { HiddenMode } from '../tabular/csv-reader.js';
import { type Encoding, readCsv, type SheetFacts } from '../tabular/csv-reader.js';
import { sheetWords } from '../tabular/hidden.js';
import { DEFAULT_READ_AS, matchingOf, settleMark, type TableReadAs } from '../tabular/read-as.js';
import { cells, kindOf, loadWorkbook } from './cells.js';

export type InspectFor = 'refund' | 'capture' | 'cancel' | 'review' | 'payout' | 'query';

export interface SummaryOptions {
  /** The file as named; what is opened. */
  label: string;
  path: string;
  for: InspectFor;
  /** Said with the choice of command: "--for" or "default". */
  forWhy: 'given' | 'default';
  encoding: Encoding;
  columns?: Record<string, string>;
  /** Where `columns` came from, for the summary: `--columns`, `the profile's columns.refund`. */
  columnsFrom?: string;
  headerRow?: number;
  sheet?: string;
  hidden?: HiddenMode;
  /** Rows shown as read. */
  rows: number;
}

/** The columns a command reads from a file, and which of them it needs. */
export interface CommandColumns {
  required: readonly string[];
  wanted: readonly string[];
  /** The amount columns whose decimal mark a `;` or tab file settles. */
  amounts: readonly string[];
}

/** One column the command reads, and the header it was found under. */
export interface ColumnSeen {
  column: string;
  required: boolean;
  /** The header as written, and its cell or field position (`B`, or column 2 of a CSV). */
  header?: string;
  at?: string;
  how?: 'name' | 'alias' | 'mapped';
}

export interface RowSeen {
  line: number;
  cells: string[];
  /** `Sheet1!A7` when a person does not see the row. */
  hidden?: string;
}

export interface InspectSummary {
  file: string;
  kind: 'csv' | 'xlsx';
  for: InspectFor;
  forWhy: 'given' | 'default';
  /** A CSV file's reading. */
  csv?: { encoding: Encoding; bom: boolean; delimiter: string; decimalMark: string; why: string };
  /** A workbook's sheets, in order. */
  sheets?: Array<{ name: string; state: 'visible' | 'hidden' | 'veryHidden' }>;
  /** The sheet the command reads, and why that one. */
  sheet?: { name: string; words: string };
  header?: { line: number; byFlag: boolean; columns: ColumnSeen[]; names: string[]; mappedBy?: string };
  /** Why the command refuses the file before its rows (no header, no such sheet…): exit 2. */
  refused?: { message: string; hint?: string; problems: string[] };
  /** When refused: the first non-empty rows of the sheet (or file) as they are, by --cells's rules. */
  raw?: RowSeen[];
  /** What the command does that inspect did not (reads a hidden first sheet, refuses hidden rows). */
  notes?: string[];
  rows?: {
    count: number;
    hidden: string[];
    /** `<autoFilter ref>`: hidden rows within it are mostly filtered out. */
    filter?: string;
    /** Rows with a problem the reader finds (an error cell, a value without a header…). */
    withProblems: number;
    problems: string[];
  };
  /** The sheet's merged ranges; `carries`: the column whose value it carries down to the rows it covers. */
  merged?: Array<{ range: string; carries?: string }>;
  first?: RowSeen[];
}

/** Problems listed by the summary; beyond this only counted. */
const PROBLEMS_SHOWN = 5;
/** Hidden rows named; beyond this only counted. */
const HIDDEN_SHOWN = 20;

/** The columns of the command --for names (the bulk table, payout's fields, query's ids). */
export async function commandColumns(what: InspectFor): Promise<CommandColumns> {
  if (what === 'query') return { required: [], wanted: ['order_no', 'transaction_id'], amounts: [] };
  if (what === 'payout') {
    const { PAYOUT_TOP_FIELDS } = await import('../payout/plan.js');
    return { required: [], wanted: PAYOUT_TOP_FIELDS, amounts: ['payment_amount', 'source_amount'] };
  }
  const { OPERATIONS } = await import('../bulk/operations.js');
  const { required, optional } = OPERATIONS[what].columns;
  return {
    required,
    wanted: [...required, ...optional],
    amounts: OPERATIONS[what].elementFields.filter((f) => f === 'amount' || f === 'refund_amount'),
  };
}

export async function inspectFile(opts: SummaryOptions): Promise<InspectSummary> {
  const { label, path } = opts;
  const kind = await kindOf(label, path);
  const out: InspectSummary = { file: label, kind, for: opts.for, forWhy: opts.forWhy };
  const cols = await commandColumns(opts.for);
  let wb: Workbook | undefined;
  if (kind === 'xlsx') {
    wb = await loadWorkbook(label, path);
    out.sheets = wb.sheets.map((s) => ({ name: s.name, state: s.state }));
  }
  let readAs: TableReadAs = { ...DEFAULT_READ_AS, encoding: opts.encoding };
  if (opts.columns !== undefined) readAs.columns = opts.columns;
  if (opts.headerRow !== undefined) readAs.headerRow = opts.headerRow;
  if (opts.hidden !== undefined) readAs.hidden = opts.hidden;
  if (cols.amounts.length > 0) {
    try {
      readAs = await settleMark(label, path, readAs, cols.amounts);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
    }
  }
  const reader = readCsv({
    file: label,
    path,
    encoding: readAs.encoding,
    decimalMark: readAs.mark === ',' ? ',' : '.',
    required: [...cols.required],
    matching: matchingOf(readAs, cols.wanted),
    checked: [...cols.wanted],
    // Every row is shown: a hidden first sheet is looked at (and said to be refused) unless --skip-hidden.
    hidden: opts.hidden ?? 'include',
    ...(opts.sheet === undefined ? {} : { sheet: opts.sheet }),
  });
  let header: Awaited<typeof reader.header>;
  try {
    header = await reader.header;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    out.refused = refusal(err);
    out.raw = await rawRows(opts, wb);
    return out;
  }
  const facts: SheetFacts | undefined = await reader.sheet;
  const notes: string[] = [];
  if (kind === 'csv') {
    out.csv = {
      encoding: readAs.encoding,
      bom: header.bom,
      delimiter: header.delimiter,
      decimalMark: readAs.mark === 'auto' ? '.' : readAs.mark,
      why: readAs.why || 'default',
    };
  }
  if (facts !== undefined) {
    // Read here whatever the flags say; the words must not claim --include-hidden when it was not given.
    const words =
      facts.state !== 'visible' && !facts.named && opts.hidden === undefined
        ? `${JSON.stringify(facts.name)} (${facts.state === 'veryHidden' ? 'very hidden' : 'hidden'}; shown here, refused by the command)`
        : sheetWords(facts);
    out.sheet = { name: facts.name, words };
    // A hidden first sheet read only because inspect reads every row: the command refuses it.
    if (facts.state !== 'visible' && !facts.named && opts.hidden === undefined) {
      notes.push(
        `its first sheet, ${JSON.stringify(facts.name)}, is hidden: the ${opts.for} command refuses it unless --include-hidden or --skip-hidden (or --sheet names a sheet)`,
      );
    }
  }
  const at = (i: number) => (kind === 'xlsx' ? columnLetters(i) : `column ${i + 1}`);
  const how = new Map((header.matches ?? []).map((m) => [m.column, m.how]));
  const columns: ColumnSeen[] = [];
  const listed =
    opts.for === 'payout' ? cols.wanted.filter((c) => header.normalised.includes(c)) : cols.wanted;
  for (const column of listed) {
    const i = header.normalised.indexOf(column);
    const seen: ColumnSeen = { column, required: cols.required.includes(column) };
    if (i >= 0) {
      seen.header = header.columns[i]!;
      seen.at = at(i);
      seen.how = how.get(column) ?? 'name';
    }
    columns.push(seen);
  }
  out.header = {
    line: header.line ?? 1,
    byFlag: opts.headerRow !== undefined,
    columns,
    names: header.columns,
    ...(readAs.columns === undefined ? {} : { mappedBy: opts.columnsFrom ?? '--columns' }),
  };
  const rows: NonNullable<InspectSummary['rows']> = { count: 0, hidden: [], withProblems: 0, problems: [] };
  const first: RowSeen[] = [];
  let hiddenCount = 0;
  for await (const row of reader.rows) {
    rows.count++;
    if (row.hidden !== undefined) {
      hiddenCount++;
      if (rows.hidden.length < HIDDEN_SHOWN) rows.hidden.push(row.hidden);
    }
    if (row.problems !== undefined && row.problems.length > 0) {
      rows.withProblems++;
      for (const p of row.problems) {
        if (rows.problems.length >= PROBLEMS_SHOWN) break;
        rows.problems.push(`${p.file ?? label}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`);
      }
    }
    if (first.length < opts.rows) {
      const seen: RowSeen = { line: row.line, cells: row.cells };
      if (row.hidden !== undefined) seen.hidden = row.hidden;
      first.push(seen);
    }
  }
  if (hiddenCount > rows.hidden.length) rows.hidden.push(`… and ${hiddenCount - rows.hidden.length} more`);
  if (hiddenCount > 0 && opts.hidden === undefined) {
    notes.push(
      `the ${opts.for} command refuses hidden rows unless --include-hidden (sends them) or --skip-hidden (leaves them out)`,
    );
  }
  const looks = (await reader.sheet)?.looks;
  if (looks?.autoFilter !== undefined) rows.filter = looks.autoFilter;
  out.rows = rows;
  out.first = first;
  if (notes.length > 0) out.notes = notes;
  const read = facts === undefined ? undefined : wb?.sheets.find((s) => s.name === facts.name);
  if (wb !== undefined && read !== undefined) {
    const merges = await sheetMerges(wb, read);
    const carried = new Map((looks?.merged ?? []).map((m) => [m.range, m.column]));
    out.merged = merges.map((m) => {
      const carries = carried.get(m.ref);
      return carries === undefined ? { range: m.ref } : { range: m.ref, carries };
    });
  }
  return out;
}

function refusal(err: InputError): NonNullable<InspectSummary['refused']> {
  const hint = err.hint;
  return {
    message: err.message,
    ...(hint === undefined ? {} : { hint }),
    problems: (err.problems ?? [])
      .slice(0, PROBLEMS_SHOWN)
      .map((p) => `${p.file ?? ''}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`),
  };
}

/** The first rows of the sheet a command would read (or of the CSV file), as --cells shows them. */
async function rawRows(opts: SummaryOptions, wb: Workbook | undefined): Promise<RowSeen[]> {
  const sheet =
    opts.sheet ??
    (wb === undefined
      ? undefined
      : (wb.sheets.find((s) => opts.hidden !== 'skip' || s.state === 'visible') ?? wb.sheets[0])?.name);
  if (wb !== undefined && sheet === undefined) return [];
  const out: RowSeen[] = [];
  let line = 0;
  try {
    for await (const e of cells({
      label: opts.label,
      path: opts.path,
      encoding: opts.encoding,
      ...(sheet === undefined ? {} : { sheet }),
    })) {
      if (e.kind !== 'row') continue;
      line++;
      if (e.cells.length === 0) continue;
      out.push({ line, cells: e.cells });
      if (out.length >= Math.max(opts.rows, RAW_ROWS)) break;
    }
  } catch (err) {
    // The refusal already says why the file is not read; these rows are only a help.
    if (!(err instanceof InputError)) throw err;
  }
  return out;
}

/** Rows shown of a refused file, at least (the header is looked for within the first 20). */
const RAW_ROWS = 5;
