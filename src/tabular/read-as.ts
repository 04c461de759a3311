// How a table is read, beyond its columns: the encoding, the decimal mark of its amounts (given,
// or detected from the file) and what to do with a workbook's hidden rows. Settled once, before the
// rows are read, and kept by the caller with its run (a header's `readAs` JSON), so a later pass or
// a resume reads the same copy exactly as the first did. A caller that reads more (a default for
// one of its columns) extends TableReadAs and builds it from the parts below.
import { InputError, UsageError } from '../errors.js';
import type { AmountStyle, DecimalMark } from '../money/amount.js';
import { parseColumnsMap } from './column-match.js';
import type { HeaderMatching } from './csv-header.js';
import { ENCODINGS, type Encoding, type HiddenMode, normaliseEncoding, readCsv } from './csv-reader.js';

export interface TableReadAs {
  encoding: Encoding;
  /** `auto`: detected from the file in pass 1 (detectMark). */
  mark: DecimalMark | 'auto';
  /** Whether the mark is known for the whole file (given or detected), see AmountStyle. */
  established: boolean;
  /** Why this mark, for the plan: `--decimal-comma`, `profile decimal_mark`, `detected: …`. */
  why: string;
  /**
   * --include-hidden / --skip-hidden: a workbook's rows and sheets a person does not see. Kept with
   * the run, so pass 2 and a resume leave out exactly the rows pass 1 left out.
   */
  hidden?: HiddenMode;
  /** --columns or the profile's columns.<command>: column → the file's header for it. */
  columns?: Record<string, string>;
  /** Where `columns` came from, for the plan: `--columns`, `profile columns.refund`. */
  columnsFrom?: string;
  /** --header-row: the header's row (line); else found. */
  headerRow?: number;
}

export const DEFAULT_READ_AS: TableReadAs = Object.freeze({
  encoding: 'utf-8',
  mark: 'auto',
  established: false,
  why: '',
});

/** The flags and profile value that choose how a file is read. */
export interface TableReadFlags {
  decimalComma?: boolean;
  encoding?: string;
  includeHidden?: boolean;
  skipHidden?: boolean;
}

/** How a file is read, from the flags and the profile's decimal mark; UsageError for a bad flag. */
export function tableReadAsFrom(flags: TableReadFlags, profileMark: DecimalMark | undefined): TableReadAs {
  return withHidden(encodingAndMark(flags, profileMark), flags);
}

/** --encoding (checked) and the decimal mark: --decimal-comma, else the profile's, else `auto`. */
export function encodingAndMark(flags: TableReadFlags, profileMark: DecimalMark | undefined): TableReadAs {
  let encoding: Encoding = 'utf-8';
  if (flags.encoding !== undefined) {
    const e = normaliseEncoding(flags.encoding);
    if (e === undefined) {
      throw new UsageError(`--encoding ${JSON.stringify(flags.encoding)} is not an encoding payops reads`, {
        hint: `give one of ${ENCODINGS.join(', ')}`,
      });
    }
    encoding = e;
  }
  return flags.decimalComma
    ? { encoding, mark: ',', established: true, why: '--decimal-comma' }
    : profileMark !== undefined
      ? { encoding, mark: profileMark, established: true, why: "the profile's decimal_mark" }
      : { encoding, mark: 'auto', established: false, why: '' };
}

/** --include-hidden or --skip-hidden (not both) set on `readAs`, which is returned. */
export function withHidden<R extends TableReadAs>(readAs: R, flags: TableReadFlags): R {
  if (flags.includeHidden && flags.skipHidden) {
    throw new UsageError(
      '--include-hidden sends the rows a person cannot see and --skip-hidden leaves them out: give one of them',
    );
  }
  if (flags.includeHidden) readAs.hidden = 'include';
  else if (flags.skipHidden) readAs.hidden = 'skip';
  return readAs;
}

/**
 * --columns (else the profile's mapping, `profileKey` naming it) and --header-row set on `readAs`,
 * which is returned; `known`: the columns the command reads. UsageError for a bad mapping.
 */
export function withColumns<R extends TableReadAs>(
  readAs: R,
  flags: { columns?: string; headerRow?: number },
  known: readonly string[] | undefined,
  profile?: { key: string; text: string },
): R {
  const text = flags.columns ?? profile?.text;
  if (text !== undefined) {
    const from = flags.columns !== undefined ? '--columns' : `the profile's ${profile!.key}`;
    const parsed = parseColumnsMap(text, known);
    if (typeof parsed === 'string') {
      throw new UsageError(`${from}: ${parsed}`, {
        hint: "give COLUMN=HEADER pairs, comma-separated: --columns 'transaction_id=Txn Ref,order_no=Invoice'",
      });
    }
    if (Object.keys(parsed).length > 0) {
      readAs.columns = parsed;
      readAs.columnsFrom = from;
    }
  }
  if (flags.headerRow !== undefined) readAs.headerRow = flags.headerRow;
  return readAs;
}

/** How a reader matches the header, from a read-as: csv-header.ts HeaderMatching. */
export function matchingOf(readAs: TableReadAs | undefined, wanted: readonly string[]): HeaderMatching {
  return {
    wanted,
    ...(readAs?.columns === undefined ? {} : { given: readAs.columns }),
    ...(readAs?.columnsFrom === undefined ? {} : { givenFrom: readAs.columnsFrom }),
    ...(readAs?.headerRow === undefined ? {} : { headerRow: readAs.headerRow }),
  };
}

/** The run header's `readAs` text (JSON) ⇄ TableReadAs; an old header (none) reads as before. */
export function readAsText(r: TableReadAs): string {
  return JSON.stringify(r);
}

/** `R`: the caller's extension of TableReadAs that wrote the text; its own fields are kept as written. */
export function tableReadAsOf<R extends TableReadAs = TableReadAs>(text: string | undefined): R {
  if (text === undefined) return { ...DEFAULT_READ_AS, mark: '.', why: 'default' } as R;
  const r = JSON.parse(text) as R;
  return { ...r, encoding: normaliseEncoding(r.encoding) ?? 'utf-8' };
}

export function amountStyle(r: TableReadAs): AmountStyle {
  return { mark: r.mark === ',' ? ',' : '.', established: r.established };
}

/** Lines kept per kind of mark (the plan names the first of each in a mixed file). */
const LINES_SHOWN = 1;

/** The decimal mark an amount shows, if it shows one: `49,99` ','; `1.234` none (could be either). */
export function markOf(text: string): DecimalMark | undefined {
  const s = text.trim();
  const comma = s.lastIndexOf(',');
  const dot = s.lastIndexOf('.');
  if (comma < 0 && dot < 0) return undefined;
  const mark: DecimalMark = comma > dot ? ',' : '.';
  const at = Math.max(comma, dot);
  // Both kinds: the last one is the decimal mark (`12.000,00`).
  if (comma >= 0 && dot >= 0) return mark;
  // The mark more than once groups thousands (`1.234.567`); shows no decimals.
  if (s.indexOf(mark) !== at) return undefined;
  const after = s.length - at - 1;
  // `1,234`: thousands or three decimals; spaces before it group thousands, so it is decimals.
  if (after === 3 && !/[\s\u00a0\u202f]/.test(s)) return undefined;
  return /^\d+$/.test(s.slice(at + 1)) && at > 0 ? mark : undefined;
}

/**
 * Settle `auto`: a `;`- or tab-separated file whose amounts with decimals all use a comma (and
 * none a dot) is read with decimal commas; one whose amounts all use a dot, with dots; a file that
 * mixes them is read with the mark most use, so that validation refuses each amount of the other. A comma-separated file keeps the dot. Reads the
 * amount columns of the file once (only for `;` and tab files when nothing was given).
 */
export async function settleMark<R extends TableReadAs>(
  file: string,
  path: string,
  readAs: R,
  amountColumns: readonly string[],
): Promise<R> {
  if (readAs.mark !== 'auto') return readAs;
  // Only a CSV file's separator is looked at here: a workbook's hidden first sheet is not refused
  // by this look (the reading that follows, of the sheet chosen, refuses it).
  const reader = readCsv({
    file,
    path,
    encoding: readAs.encoding,
    hidden: 'include',
    matching: matchingOf(readAs, amountColumns),
  });
  let header: Awaited<typeof reader.header>;
  try {
    header = await reader.header;
  } catch (err) {
    // A header without the columns is refused by the reading that follows, with every column it reads.
    if (!(err instanceof InputError)) throw err;
    return { ...readAs, mark: '.', established: false, why: 'default' };
  }
  const sepName = header.delimiter === ';' ? 'semicolon' : 'tab';
  if (header.delimiter === ',') {
    await reader.rows.return?.();
    // A workbook's reader reports ',' too; its number cells are read as numbers, whatever the locale.
    const workbook = (await reader.kind) === 'xlsx';
    const why = workbook
      ? 'default (a workbook: number cells are read as numbers)'
      : 'default (a comma-separated file)';
    return { ...readAs, mark: '.', established: false, why };
  }
  const lines: Record<DecimalMark, Array<[line: number, field: string]>> = { ',': [], '.': [] };
  const counts: Record<DecimalMark, number> = { ',': 0, '.': 0 };
  for await (const row of reader.rows) {
    for (const col of amountColumns) {
      const v = row.fields[col];
      const m = v === undefined ? undefined : markOf(v);
      if (m === undefined) continue;
      if (counts[m]++ < LINES_SHOWN && lines[m].at(-1)?.[0] !== row.line) lines[m].push([row.line, col]);
    }
  }
  // Mixed: read with the mark most amounts use, so that validation lists every amount written
  // with the other one (each on its line, with every other problem of the file).
  if (counts[','] > 0 && counts['.'] > 0) {
    const comma = counts[','] > counts['.'];
    // Not established either way: in a file where some wrote a decimal point and some a decimal
    // comma, `1.234` (or `1,234`) could be either writer's, so it is refused, never read as 1234.
    return {
      ...readAs,
      mark: comma ? ',' : '.',
      established: false,
      why: `mixed: ${counts[',']} amount${counts[','] === 1 ? '' : 's'} with a decimal comma, ${counts['.']} with a decimal point (line ${lines[','][0]![0]} and line ${lines['.'][0]![0]})`,
    };
  }
  if (counts[','] > 0 || counts['.'] > 0) {
    const comma = counts[','] > 0;
    return {
      ...readAs,
      mark: comma ? ',' : '.',
      established: true,
      why: `detected: a ${sepName}-separated file whose amounts with decimals all use a ${comma ? 'comma' : 'dot'}`,
    };
  }
  return { ...readAs, mark: '.', established: false, why: 'default (no amount shows a decimal mark)' };
}
