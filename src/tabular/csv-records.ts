// Text → records → rows for the CSV reader: the csv-parse set-up (behind the quote-free fast
// path), a record turned into a row with its structural problems, and csv-parse's errors turned
// into InputErrors that say where and what would be right.
import type { Transform } from 'node:stream';
import { type Options, parse } from 'csv-parse';
import { InputError, type InputProblem } from '../errors.js';
import { fileError } from './csv-decode.js';
import { QuoteFreeLines } from './csv-fast-lines.js';
import type { CsvDelimiter } from './csv-header.js';

export interface CsvRow {
  /** Physical line (1-based) where the record starts, as a spreadsheet user sees it. */
  line: number;
  /** header-normalised (lower-case, trimmed) name → trimmed value */
  fields: Record<string, string>;
  /** The raw values in header column order, one per column ('' where the line is short), carried to output. */
  cells: string[];
  /** A record with more values than the header has names: all of them (inspect --cells shows them). */
  all?: string[];
  /** Structural problems of this record (wrong number of fields); validateRow reports them. */
  problems?: InputProblem[];
  /**
   * A workbook's row a person does not see (hidden, filtered out, zero high): where it is,
   * `Sheet1!A7`. A CSV file has none.
   */
  hidden?: string;
}

/** A record longer than this many UTF-8 bytes (as csv-parse counts them), or a header line longer than this many characters, is refused rather than buffered. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * The stream of records the reader uses, over text with `\n` line ends: csv-parse, and with
 * `fastPath` (the default) quote-free lines split in front of it (csv-fast-lines.ts), which with
 * `batched` gives them in RecordBatches (the reader's way).
 */
export function recordParser(
  delimiter: string,
  maxRecordBytes: number,
  fastPath = true,
  batched = false,
): Transform {
  const options: Options = {
    delimiter,
    record_delimiter: '\n',
    // Blank lines arrive as one empty field and are skipped by the reader, which keeps line counting exact.
    skip_empty_lines: false,
    relax_column_count: true,
    // A stray quote inside an unquoted value (12" pipe) is kept as text; a quoted field must still close.
    relax_quotes: true,
    max_record_size: maxRecordBytes,
    bom: false,
  };
  return fastPath ? new QuoteFreeLines(delimiter, maxRecordBytes, options, batched) : parse(options);
}

/** Builds one row's fields (name → trimmed value) from its values, for one header's names. */
export type FieldsMaker = (values: readonly string[]) => Record<string, string>;

/**
 * The fields maker of a header: each row's fields start as a copy of an object holding the
 * header's names (so V8 gives every row one shape, with no property added by name per cell), then
 * take the trimmed values in place. No code is generated from the file's names: a header is data.
 */
export function fieldsMaker(normalised: readonly string[]): FieldsMaker {
  const template: Record<string, string> = {}; // "__proto__" is refused by the header
  for (const name of normalised) template[name] = '';
  const width = normalised.length;
  return (values) => {
    const fields: Record<string, string> = { ...template };
    for (let i = 0; i < width; i++) fields[normalised[i]!] = trimmed(values[i] ?? '');
    return fields;
  };
}

/** `v.trim()`, without the call when `v` neither starts nor ends with a blank (nearly every cell). */
export function trimmed(v: string): string {
  const n = v.length;
  if (n === 0) return v;
  const a = v.charCodeAt(0);
  const b = v.charCodeAt(n - 1);
  return a > 32 && a < 127 && b > 32 && b < 127 ? v : v.trim();
}

/**
 * A record as a row of the header's width; a record of another width carries the problem.
 * `makeFields` is `fieldsMaker(normalised)`, made once per file.
 */
export function toRow(
  file: string,
  line: number,
  values: string[],
  normalised: string[],
  width: number,
  delimiter: CsvDelimiter,
  makeFields: FieldsMaker = fieldsMaker(normalised),
): CsvRow {
  const fields = makeFields(values);
  let cells = values;
  if (values.length !== width) {
    cells = values.slice(0, width);
    for (let i = values.length; i < width; i++) cells[i] = '';
  }
  const row: CsvRow = { line, fields, cells };
  if (values.length > width) row.all = values;
  if (values.length !== width) {
    let extraEmpty = values.length > width;
    for (let i = width; extraEmpty && i < values.length; i++)
      if (values[i]!.trim() !== '') extraEmpty = false;
    if (!extraEmpty) {
      // Name the first column without a value, or the last one when there are too many.
      const field = values.length < width ? normalised[values.length]! : normalised[width - 1]!;
      row.problems = [
        {
          file,
          line,
          field,
          message: `this line has ${values.length} field${values.length === 1 ? '' : 's'} but the header has ${width}`,
          expected: `${width} fields separated by ${delimiter === '\t' ? 'tabs' : `"${delimiter}"`}, with quotes around values that contain the separator`,
        },
      ];
    }
  }
  return row;
}

/** csv-parse's error at the record that starts on `line` as an InputError; other errors as fileError does. */
export function parseError(file: string, line: number, err: unknown, columns: string[]): unknown {
  if (err instanceof InputError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || (!code.startsWith('CSV_') && code !== 'INVALID_OPENING_QUOTE')) {
    return fileError(file, err);
  }
  let message: string;
  let expected: string;
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      message = 'a quoted value that starts on this line is never closed (the file ends inside quotes)';
      expected = 'every opening " closed by another "; a " inside a quoted value is written ""';
      break;
    case 'CSV_MAX_RECORD_SIZE':
      message = `the record that starts on this line is longer than ${MAX_RECORD_BYTES} bytes (a huge value, or a quote that is never closed)`;
      expected = 'values of reasonable size, every opening " closed';
      break;
    case 'CSV_INVALID_CLOSING_QUOTE':
      message = 'a quoted value is followed by other characters before the next separator';
      expected =
        'a closing " directly followed by the separator or the end of the line; a " inside a quoted value is written ""';
      break;
    default:
      message = `the CSV cannot be read here (${String((err as Error).message ?? code)})`;
      expected = 'a well-formed CSV record';
  }
  const index = (err as { index?: unknown }).index;
  const field = typeof index === 'number' ? columns[index] : undefined;
  const problem: InputProblem = { file, line, message, expected };
  if (field !== undefined) problem.field = field;
  const where = field === undefined ? '' : ` (column ${field})`;
  return new InputError(`${file}:${line}${where}: ${message}`, [problem], { cause: err });
}
