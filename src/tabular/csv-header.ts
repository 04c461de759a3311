// The header line of a CSV file (or a sheet's first row): which delimiter it uses, its column
// names as written and normalised, and the problems a person must fix before any row is read (a
// missing required column, a name used twice).
import { InputError, type InputProblem } from '../errors.js';
import { quote, terminalLine } from '../quote.js';
import { type ColumnMatch, closestHeader, columnsFlag, matchColumns } from './column-match.js';

/**
 * How a header's names become the columns a command reads (column-match.ts): the columns it reads
 * (required and optional), a mapping given (--columns, the profile's columns.<command>), and the
 * header row (--header-row; else the first row, within the first HEADER_SEARCH_ROWS, that holds
 * every required column).
 */
export interface HeaderMatching {
  /** Every column the command reads (required and optional), normalised. */
  wanted?: readonly string[];
  /** Column → header as written. */
  given?: Readonly<Record<string, string>>;
  /** Where `given` came from, for a refusal: `--columns`, `the profile's columns.refund`. */
  givenFrom?: string;
  /** The header's line (a CSV file) or row (a sheet), 1-based; else found. */
  headerRow?: number;
}

/** Rows looked at for a header below a title. */
export const HEADER_SEARCH_ROWS = 20;

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvHeader {
  /** original header names in order */
  columns: string[];
  /** normalised (lower-case, trimmed) names, same order as `columns` */
  normalised: string[];
  delimiter: CsvDelimiter;
  bom: boolean;
  /** The header's line (CSV) or row (sheet). */
  line?: number;
  /** Columns matched other than by their own name (an alias, --columns), for the plan. */
  matches?: ColumnMatch[];
  /** The header's fields as the file has them (no name given to a blank one, none dropped): inspect. */
  written?: string[];
}

/**
 * How well `values` serve as the header: -1 when a required column is missing (or a mapping
 * given names no header), else the number of wanted columns they hold (0: none).
 */
export function headerFit(
  values: readonly string[],
  required: readonly string[],
  matching: HeaderMatching,
): number {
  const wanted = matching.wanted ?? required;
  const m = matchColumns(
    values.map((v) => v),
    [...new Set([...required, ...wanted])],
    matching.given,
  );
  if (m.unmappedGiven.length > 0 || m.ambiguous.length > 0) return -1;
  const got = new Set(m.names);
  if (required.some((c) => !got.has(c))) return -1;
  return [...new Set([...required, ...wanted])].filter((c) => got.has(c)).length;
}

/**
 * Whether `values` are the header: they hold every required column (with none required, at least
 * one wanted column, so that a reader of only some columns also finds a header below a title).
 */
export function isHeader(
  values: readonly string[],
  required: readonly string[],
  matching: HeaderMatching,
): boolean {
  if (required.length === 0 && (matching.wanted ?? []).length === 0) return true;
  const fit = headerFit(values, required, matching);
  return required.length > 0 ? fit >= 0 : fit > 0;
}

/** The number of required columns `values` hold, to pick the row a refusal names when none fits. */
export function headerScore(
  values: readonly string[],
  required: readonly string[],
  matching: HeaderMatching,
): number {
  const m = matchColumns(values, [...new Set([...required, ...(matching.wanted ?? [])])], matching.given);
  const got = new Set(m.names);
  return required.filter((c) => got.has(c)).length + m.matches.filter((x) => x.how === 'mapped').length;
}

export function normaliseColumn(name: string): string {
  return name.trim().toLowerCase();
}

/** The delimiter that occurs most often outside quotes in the header line (comma on a tie or none). */
export function detectDelimiter(line: string): CsvDelimiter {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch]++;
  }
  let best: CsvDelimiter = ',';
  for (const d of [';', '\t'] as const) if (counts[d] > counts[best]) best = d;
  return best;
}

/**
 * The delimiter of a file whose first line may be a title (no delimiter in it, and not a header): from the
 * first line that has one, within HEADER_SEARCH_ROWS lines, reading more of `text` as needed.
 * Returns it with the text read so far (`pre` and what was read after it).
 */
export async function titledDelimiter(
  firstLine: string,
  pre: string,
  text: AsyncGenerator<string>,
  required: readonly string[],
  matching: HeaderMatching,
): Promise<[CsvDelimiter, string]> {
  const has = (l: string) => /[,;\t]/.test(l);
  // A first line with a delimiter, or one that is a header of one column, tells it as it is.
  if (has(firstLine) || isHeader([firstLine], required, matching)) return [detectDelimiter(firstLine), pre];
  for (;;) {
    const lines = pre.split('\n');
    // Whole lines only (the last may be cut), after the first.
    const found = lines.slice(1, -1).slice(0, HEADER_SEARCH_ROWS).find(has);
    if (found !== undefined || lines.length > HEADER_SEARCH_ROWS + 1 || pre.length > 1 << 20)
      return [detectDelimiter(found ?? firstLine), pre];
    const next = (await text.next()).value;
    if (next === undefined) return [detectDelimiter(lines.slice(1).find(has) ?? firstLine), pre];
    pre += next;
  }
}

export function headerExpectation(required: string[]): string {
  return required.length > 0 ? `a header line with the columns ${required.join(', ')}` : 'a header line';
}

export function buildHeader(
  file: string,
  line: number,
  values: string[],
  delimiter: CsvDelimiter,
  bom: boolean,
  required: string[],
  matching: HeaderMatching = {},
): CsvHeader {
  const cells = [...values];
  // Excel leaves trailing delimiters after the last used column: drop unnamed trailing columns.
  while (cells.length > 1 && cells[cells.length - 1]!.trim() === '') cells.pop();
  const columns = cells.map((c, i) => (c.trim() === '' ? `column_${i + 1}` : c));
  const wanted = [...new Set([...required, ...(matching.wanted ?? [])])];
  const matched = matchColumns(columns, wanted, matching.given);
  const normalised = matched.names.map((n, i) =>
    n === columns[i]!.trim().toLowerCase() ? normaliseColumn(columns[i]!) : n,
  );
  const problems: InputProblem[] = [];
  // Fail closed: a column two headers could be, or a mapping whose header is not there.
  // The same name twice is said below (appears twice); two names that could be one column here.
  for (const a of matched.ambiguous.filter(
    (x) => normaliseColumn(x.headers[0]) !== normaliseColumn(x.headers[1]),
  )) {
    problems.push({
      file,
      line,
      field: a.column,
      message: `${a.column} could be the column ${quote(a.headers[0])} or ${quote(a.headers[1])}`,
      expected: `one of them named: ${columnsFlag([[a.column, a.headers[0]]])}`,
    });
  }
  for (const g of matched.unmappedGiven) {
    problems.push({
      file,
      line,
      field: g.column,
      message: `${g.column} is mapped${matching.givenFrom ? ` by ${matching.givenFrom}` : ''} to the header ${quote(g.header)}, which this header does not have`,
      expected: `a header of the file (${columns.map(terminalLine).join(', ')})`,
    });
  }
  if (problems.length > 0) {
    const fromProfile = matching.givenFrom?.startsWith('the profile') && matched.unmappedGiven.length > 0;
    throw new InputError(`${file}:${line}: ${problems[0]!.message}`, problems, {
      hint: fromProfile
        ? `this file names its columns otherwise than ${matching.givenFrom} says: give --columns COLUMN=HEADER for it, or remove the mapping with \`payops config unset ${matching.givenFrom!.replace(/^the profile's /, '')}\``
        : 'payops never guesses between two headers: name the one to read with --columns COLUMN=HEADER',
    });
  }

  const seen = new Map<string, number>();
  normalised.forEach((name, i) => {
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      problems.push({
        file,
        line,
        field: name,
        message: `column ${quote(columns[i]!)} appears twice (columns ${earlier + 1} and ${i + 1})`,
        expected: 'each column name once',
      });
    } else seen.set(name, i);
    if (name === '__proto__') {
      problems.push({ file, line, field: name, message: 'column name "__proto__" is not allowed' });
    }
  });
  const found = columns.map(terminalLine).join(', ');
  const claimed = new Set(columns.filter((_, i) => wanted.includes(normalised[i]!)));
  const fixes: Array<[string, string]> = [];
  for (const col of required) {
    if (!seen.has(col)) {
      const near = closestHeader(col, columns, claimed);
      if (near !== undefined) fixes.push([col, near]);
      problems.push({
        file,
        line,
        field: col,
        message: `missing column "${col}"`,
        expected: `a column of that name; ${near === undefined ? 'no header is close' : `the closest header is ${quote(near)}`}`,
      });
    }
  }
  if (problems.length > 0) {
    const missing = required.filter((c) => !seen.has(c));
    const what =
      missing.length > 0
        ? `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (columns found: ${found})`
        : problems[0]!.message;
    const delimName = delimiter === ',' ? 'comma' : delimiter === ';' ? 'semicolon' : 'tab';
    const near = new Map(fixes);
    const flag = columnsFlag(missing.map((c) => [c, near.get(c) ?? 'HEADER']));
    const fix =
      fixes.length === missing.length
        ? `if ${fixes.map(([c, h]) => `${quote(h)} is ${c}`).join(' and ')}, add ${flag}`
        : `add ${flag}, HEADER being the file's name for the column`;
    return raise(
      new InputError(`${file}:${line}: ${what}`, problems, {
        hint:
          missing.length > 0
            ? `${fix}; names are matched ignoring case, spaces, _ - and . (the file was read as ${delimName}-separated)${
                missing.includes('refund_reason')
                  ? '; the gateway needs a refund_reason for every refund: add the column, or give --refund-reason TEXT for the rows without one'
                  : ''
              }`
            : undefined,
      }),
    );
  }
  return {
    columns,
    normalised,
    delimiter,
    bom,
    line,
    ...(matched.matches.length > 0 ? { matches: matched.matches } : {}),
    written: values,
  };
}

function raise(err: Error): never {
  throw err;
}

/**
 * A CSV file's header record: the one on --header-row's line; else the first record, unless it
 * lacks a required column and a later one (within HEADER_SEARCH_ROWS lines) has them all, a title
 * above the header. When none has them, the one with the most, so the refusal names the likeliest
 * line. `next` gives records; `at.line` is the line of the one it gave, `at.nextLine` the next's.
 */
export async function findHeaderRecord(
  file: string,
  required: string[],
  matching: HeaderMatching,
  nextRecord: () => Promise<string[] | undefined>,
  at: { readonly line: number; readonly nextLine: number },
): Promise<[string[], number]> {
  const next = async (): Promise<[string[], number] | undefined> => {
    const rec = await nextRecord();
    return rec === undefined ? undefined : [rec, at.line];
  };
  const wanted = matching.headerRow;
  if (wanted !== undefined) {
    for (;;) {
      const rec = await next();
      if (rec === undefined || rec[1] > wanted) {
        throw new InputError(
          `${file}:${wanted}: --header-row ${wanted} is an empty line or past the file's end`,
          [{ file, line: wanted, message: 'no header on this line', expected: headerExpectation(required) }],
        );
      }
      if (rec[1] === wanted) return rec;
    }
  }
  const first = await next();
  if (first === undefined) {
    throw new InputError(`${file} is empty`, [
      { file, line: 1, message: 'the file is empty', expected: headerExpectation(required) },
    ]);
  }
  if (isHeader(first[0], required, matching)) return first;
  let best: [string[], number, number] = [...first, headerScore(first[0], required, matching)];
  // Only lines before the limit: rows below a title are read no further than this.
  while (at.nextLine <= HEADER_SEARCH_ROWS) {
    const rec = await next();
    if (rec === undefined) break;
    if (isHeader(rec[0], required, matching)) return rec;
    const score = headerScore(rec[0], required, matching);
    if (score > best[2]) best = [...rec, score];
  }
  // None fits: the refusal names the best line (the run is refused, nothing more is read). With
  // none required, rows read past the first are gone: refused rather than read from the first.
  if (required.length === 0 && at.line !== first[1]) throw noHeader(file, matching, first[0]);
  return [best[0], best[1]];
}

/** No row within the first HEADER_SEARCH_ROWS names a column wanted (none being required). */
export function noHeader(where: string, matching: HeaderMatching, first: readonly string[]): InputError {
  const wanted = (matching.wanted ?? []).join(' or ');
  return new InputError(
    `${where} has no ${wanted} column (no row within the first ${HEADER_SEARCH_ROWS} names one)`,
    [{ file: where, message: 'no header found', expected: `a header row naming ${wanted}` }],
    {
      hint: `its first row holds: ${first.map(terminalLine).join(', ')}; the header must name a column ${wanted}, or say which it is: --columns '${(matching.wanted ?? ['column'])[0]}=HEADER' (with --header-row N for the header's row)`,
    },
  );
}
