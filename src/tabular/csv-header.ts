// The header line of a CSV file (or a sheet's first row): which delimiter it uses, its column
// names as written and normalised, and the problems a person must fix before any row is read (a
// missing required column, a name used twice).
import { InputError, type InputProblem } from '../errors.js';
import { quote, terminalLine } from '../quote.js';

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvHeader {
  /** original header names in order */
  columns: string[];
  /** normalised (lower-case, trimmed) names, same order as `columns` */
  normalised: string[];
  delimiter: CsvDelimiter;
  bom: boolean;
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
): CsvHeader {
  const cells = [...values];
  // Excel leaves trailing delimiters after the last used column: drop unnamed trailing columns.
  while (cells.length > 1 && cells[cells.length - 1]!.trim() === '') cells.pop();
  const columns = cells.map((c, i) => (c.trim() === '' ? `column_${i + 1}` : c));
  const normalised = columns.map(normaliseColumn);
  const problems: InputProblem[] = [];

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
  for (const col of required) {
    if (!seen.has(col)) {
      problems.push({
        file,
        line,
        field: col,
        message: `missing column "${col}"; the header has: ${found}`,
        expected: headerExpectation(required),
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
    return raise(
      new InputError(`${file}:${line}: ${what}`, problems, {
        hint:
          missing.length > 0
            ? `column names are matched case-insensitively; the file was read as ${delimName}-separated${
                missing.includes('refund_reason')
                  ? '; the gateway needs a refund_reason for every refund: add the column, or give --refund-reason TEXT for the rows without one'
                  : ''
              }`
            : undefined,
      }),
    );
  }
  return { columns, normalised, delimiter, bom };
}

function raise(err: Error): never {
  throw err;
}
