// Streaming CSV reader for files as Excel writes them. One pass over the bytes: SHA-256, strict
// UTF-8 decoding, line-ending normalisation, delimiter detection from the header line, csv-parse.
// Memory stays constant: rows are yielded one by one and never kept.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { type Parser, parse } from 'csv-parse';
import { InputError, type InputProblem } from '../errors.js';
import { splitQuoteFreeLines } from './csv-fast-lines.js';

export interface CsvRow {
  /** Physical line (1-based) where the record starts, as a spreadsheet user sees it. */
  line: number;
  /** header-normalised (lower-case, trimmed) name → trimmed value */
  fields: Record<string, string>;
  /** The raw values in header column order, one per column ('' where the line is short), carried to output. */
  cells: string[];
  /** Structural problems of this record (wrong number of fields); validateRow reports them. */
  problems?: InputProblem[];
}

export interface CsvReadOptions {
  file: string;
  /** normalised column names that must be present */
  required?: string[];
  /** optional: abort the stream */
  signal?: AbortSignal;
  /**
   * Bytes per read (default 64 KiB); tests make it tiny to cross chunk boundaries everywhere.
   * Small enough that each chunk's text is an ordinary young object: 256 KiB texts, which the
   * rows' cells point into, cost ~13 MB more peak RSS at a million rows, and no speed.
   */
  chunkSize?: number;
}

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvHeader {
  /** original header names in order */
  columns: string[];
  /** normalised (lower-case, trimmed) names, same order as `columns` */
  normalised: string[];
  delimiter: CsvDelimiter;
  bom: boolean;
}

export interface CsvReader {
  header: Promise<CsvHeader>;
  rows: AsyncIterable<CsvRow>;
  /** Resolves once every byte has been read (after `rows` is exhausted); rejects if reading stopped early. */
  sha256: Promise<string>;
}

/** A record longer than this many UTF-8 bytes (as csv-parse counts them), or a header line longer than this many characters, is refused rather than buffered. */
export const MAX_RECORD_BYTES = 1024 * 1024;

const SAVE_AS_UTF8 = 'in Excel use File › Save As › "CSV UTF-8 (Comma delimited) (*.csv)"';

export function normaliseColumn(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * Open `file` for streaming. Reading starts at once, so `header` resolves without iterating `rows`;
 * `rows` may be iterated once. Errors (file, encoding, CSV syntax) are InputErrors with file and line.
 */
export function readCsv(opts: CsvReadOptions): CsvReader {
  const { file } = opts;
  const hash = createHash('sha256');
  const tracker: DecodeTracker = { bom: false, linesEmitted: 0, lineTail: '' };
  let settleHash!: { resolve: (h: string) => void; reject: (e: unknown) => void };
  const sha256 = new Promise<string>((resolve, reject) => {
    settleHash = { resolve, reject };
  });
  const text = decodeFile(file, opts.signal, opts.chunkSize ?? 64 * 1024, hash, tracker, () =>
    settleHash.resolve(hash.digest('hex')),
  );

  const opened = openParser(file, text, tracker, opts.required ?? []);
  opened.catch((err) => settleHash.reject(err));
  const header = opened.then((o) => o.header);
  // Callers may await only one of these; never leave a rejection unhandled.
  header.catch(() => {});
  sha256.catch(() => {});

  return { header, rows: rowIterator(file, opened, settleHash), sha256 };
}

/**
 * The rows as a hand-written async iterator rather than an async generator: a row already parsed is
 * handed out with one resolved promise, which at a million rows is measurably cheaper.
 */
function rowIterator(
  file: string,
  opened: Promise<Opened>,
  settleHash: { reject: (e: unknown) => void },
): AsyncIterableIterator<CsvRow> {
  let o: Opened | undefined;
  let finished = false;
  const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

  const row = (opened: Opened, rec: { line: number; values: string[] }): CsvRow => {
    const h = opened.header;
    return toRow(file, rec.line, rec.values, h.normalised, h.columns.length, h.delimiter);
  };
  const fail = (err: unknown): never => {
    finished = true;
    settleHash.reject(err);
    o?.parser.destroy();
    throw err;
  };
  const slow = async (): Promise<IteratorResult<CsvRow>> => {
    try {
      o ??= await opened;
      for (;;) {
        const rec = takeRecord(o);
        if (rec !== null) return { value: row(o, rec), done: false };
        if (!(await waitMore(file, o))) {
          finished = true;
          return DONE;
        }
      }
    } catch (err) {
      return fail(err);
    }
  };

  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next(): Promise<IteratorResult<CsvRow>> {
      if (finished) return Promise.resolve(DONE);
      if (o !== undefined) {
        const rec = takeRecord(o);
        if (rec !== null) return Promise.resolve({ value: row(o, rec), done: false });
      }
      return slow();
    },
    return(): Promise<IteratorResult<CsvRow>> {
      if (!finished) {
        finished = true;
        settleHash.reject(new Error(`reading ${file} stopped before its end`));
        if (o !== undefined) o.parser.destroy();
        else opened.then((x) => x.parser.destroy()).catch(() => {});
      }
      return Promise.resolve(DONE);
    },
  };
}

/** SHA-256 (hex) of a whole file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  // 1 MB reads: a third less time than the default 64 KB (9 vs 14 ms for 5 MB; the hash is 4 ms).
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

// ---------------------------------------------------------------------------------------------
// Bytes → text

interface DecodeTracker {
  bom: boolean;
  /** Line breaks in the text yielded so far (after normalisation). */
  linesEmitted: number;
  /** Text after the last line break yielded (capped), to name the column of an encoding error. */
  lineTail: string;
  /** Set once the header is read. */
  columns?: string[];
  delimiter?: CsvDelimiter;
}

const EMPTY = new Uint8Array(0);
const BLANK_LINES = /^(?:[ \t]*\n)+/;

async function* decodeFile(
  file: string,
  signal: AbortSignal | undefined,
  chunkSize: number,
  hash: ReturnType<typeof createHash>,
  tracker: DecodeTracker,
  onComplete: () => void,
): AsyncGenerator<string> {
  const stream = createReadStream(file, { highWaterMark: chunkSize, signal });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // The first bytes, gathered across chunks (a chunk may be a single byte), for BOM and UTF-16 checks.
  let head: Buffer | undefined = Buffer.alloc(0);
  let pendingCr = false;
  let tail: Uint8Array = EMPTY;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      hash.update(buf);
      if (head !== undefined) {
        head = Buffer.concat([head, buf.subarray(0, 4)]);
        if (head.length >= 4) {
          inspectHead(file, head, tracker);
          head = undefined;
        }
      }
      let text: string;
      try {
        text = decoder.decode(buf, { stream: true });
      } catch {
        const at = locateInvalid(tail, buf, pendingCr);
        if (tracker.columns === undefined && tracker.linesEmitted === 0) headerFromText(tracker, at.before);
        const column = columnAt(tracker, at.lines === 0 ? tracker.lineTail + at.lineText : at.lineText);
        throw invalidUtf8(file, tracker.linesEmitted + at.lines + 1, column);
      }
      tail = incompleteTail(buf);
      // Normalise CRLF and lone CR (old Mac exports) to LF; a CR at a chunk's end waits for the next.
      if (pendingCr) text = `\r${text}`;
      pendingCr = text.endsWith('\r');
      if (pendingCr) text = text.slice(0, -1);
      if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
      if (text === '') continue;
      const breaks = countChar(text, '\n');
      tracker.linesEmitted += breaks;
      const tailText = breaks === 0 ? tracker.lineTail + text : text.slice(text.lastIndexOf('\n') + 1);
      tracker.lineTail = tailText.length > LINE_TAIL_MAX ? '' : tailText;
      yield text;
    }
    if (head !== undefined) inspectHead(file, head, tracker);
    let rest: string;
    try {
      rest = decoder.decode();
    } catch {
      throw invalidUtf8(file, tracker.linesEmitted + 1, columnAt(tracker, tracker.lineTail));
    }
    if (pendingCr) rest = `\n${rest}`;
    if (rest !== '') yield rest;
  } catch (err) {
    throw fileError(file, err);
  } finally {
    stream.destroy();
  }
  onComplete();
}

function inspectHead(file: string, buf: Buffer, tracker: DecodeTracker): void {
  tracker.bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  // A workbook saved under a .csv name, or passed by mistake: ZIP (.xlsx) or OLE2 (.xls) signatures.
  const xlsx = buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 0x03 && buf[3] === 0x04;
  const xls = buf.length >= 4 && buf[0] === 0xd0 && buf[1] === 0xcf && buf[2] === 0x11 && buf[3] === 0xe0;
  if (xlsx || xls) {
    throw new InputError(
      `${file} is an Excel workbook (${xlsx ? '.xlsx' : '.xls'}), not a CSV file`,
      [{ file, line: 1, message: 'the file is a spreadsheet workbook', expected: 'a UTF-8 CSV file' }],
      { hint: SAVE_AS_UTF8 },
    );
  }
  const utf16 =
    (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) ||
    // UTF-16 without a BOM: ASCII text with every other byte zero.
    (buf.length >= 4 && (buf[1] === 0 || buf[0] === 0) && (buf[3] === 0 || buf[2] === 0));
  if (utf16) {
    throw new InputError(
      `${file} is UTF-16 ("Unicode Text"), not UTF-8`,
      [{ file, line: 1, message: 'the file is encoded as UTF-16', expected: 'a UTF-8 CSV file' }],
      { hint: SAVE_AS_UTF8 },
    );
  }
}

function invalidUtf8(file: string, line: number, field: string | undefined): InputError {
  const where = field === undefined ? '' : ` (column ${field})`;
  const problem: InputProblem = {
    file,
    line,
    message: 'bytes that are not valid UTF-8',
    expected: 'a UTF-8 CSV file',
  };
  if (field !== undefined) problem.field = field;
  return new InputError(
    `${file}:${line}${where}: the file is not valid UTF-8 (perhaps Latin-1 or Windows-1252)`,
    [problem],
    { hint: SAVE_AS_UTF8 },
  );
}

function fileError(file: string, err: unknown): unknown {
  if (err instanceof InputError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return new InputError(`${file}: no such file`, [{ file, message: 'no such file' }]);
  if (code === 'EISDIR')
    return new InputError(`${file} is a folder, not a CSV file`, [{ file, message: 'is a folder' }]);
  if (code === 'EACCES' || code === 'EPERM') {
    return new InputError(`${file}: permission denied`, [
      { file, message: 'cannot be read (permission denied)' },
    ]);
  }
  return err;
}

/** The bytes at the end of `buf` that start a UTF-8 sequence not yet complete. */
function incompleteTail(buf: Uint8Array): Uint8Array {
  for (let i = 1; i <= Math.min(3, buf.length); i++) {
    const b = buf[buf.length - i]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > i ? buf.subarray(buf.length - i) : EMPTY;
  }
  return EMPTY;
}

const LINE_TAIL_MAX = 64 * 1024;

/** Where the first invalid byte of `tail + buf` is: line breaks before it, and its line's text up to it. */
function locateInvalid(
  tail: Uint8Array,
  buf: Uint8Array,
  pendingCr: boolean,
): { lines: number; lineText: string; before: string } {
  const bytes = new Uint8Array(tail.length + buf.length);
  bytes.set(tail, 0);
  bytes.set(buf, tail.length);
  const lossy = new TextDecoder('utf-8').decode(bytes);
  const bad = lossy.indexOf('\uFFFD');
  const before = ((pendingCr ? '\r' : '') + (bad < 0 ? lossy : lossy.slice(0, bad))).replace(/\r\n?/g, '\n');
  return { lines: countChar(before, '\n'), lineText: before.slice(before.lastIndexOf('\n') + 1), before };
}

/** When the bad bytes come before the header was parsed: take it from the text before them. */
function headerFromText(tracker: DecodeTracker, before: string): void {
  const text = before.replace(BLANK_LINES, '');
  const nl = text.indexOf('\n');
  if (nl < 0) return; // the bad bytes are in the header line itself
  const line = text.slice(0, nl);
  const delimiter = detectDelimiter(line);
  const columns: string[] = [];
  let cell = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === delimiter) {
      columns.push(cell);
      cell = '';
    } else cell += ch;
  }
  columns.push(cell);
  tracker.columns = columns;
  tracker.delimiter = delimiter;
}

/** The column whose value `lineText` (a line up to some point) ends in, once the header is known. */
function columnAt(tracker: DecodeTracker, lineText: string): string | undefined {
  if (tracker.columns === undefined || tracker.delimiter === undefined) return undefined;
  let index = 0;
  let quoted = false;
  for (const ch of lineText) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === tracker.delimiter) index++;
  }
  return tracker.columns[index] === undefined ? undefined : normaliseColumn(tracker.columns[index]!);
}

function countChar(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Text → header + parser

interface Opened {
  header: CsvHeader;
  parser: Parser;
  /** Line where the next record starts. */
  nextLine: number;
  /** Resolves the pending wait for more records, if any. */
  wake: (() => void) | undefined;
}

async function openParser(
  file: string,
  text: AsyncGenerator<string>,
  tracker: DecodeTracker,
  required: string[],
): Promise<Opened> {
  // Read until the first non-blank line is complete, to detect the delimiter from it.
  let pre = '';
  let firstLine: string | undefined;
  let lineOffset = 0;
  for (;;) {
    const stripped = pre.replace(BLANK_LINES, '');
    const nl = stripped.indexOf('\n');
    if (nl >= 0) {
      firstLine = stripped.slice(0, nl);
      break;
    }
    if (stripped.length > MAX_RECORD_BYTES) {
      await text.return(undefined);
      throw new InputError(`${file}:1: the first line is longer than ${MAX_RECORD_BYTES} characters`, [
        { file, line: 1, message: 'the header line is too long', expected: 'a header line of column names' },
      ]);
    }
    const next = await text.next();
    if (next.done) {
      firstLine = stripped;
      break;
    }
    pre += next.value;
  }
  if (firstLine.trim() === '') {
    throw new InputError(`${file} is empty`, [
      { file, line: 1, message: 'the file is empty', expected: headerExpectation(required) },
    ]);
  }
  if (firstLine.includes('\u0000')) {
    await text.return(undefined);
    throw new InputError(`${file} looks like UTF-16 ("Unicode Text"), not UTF-8`, [
      { file, line: 1, message: 'the file contains NUL characters', expected: 'a UTF-8 CSV file' },
    ]);
  }

  // Excel's "sep=;" first line names the delimiter; it is not the header.
  let delimiter: CsvDelimiter;
  const sep = /^"?sep=([,;\t])"?\s*$/i.exec(firstLine);
  const leadingBlank = pre.length - pre.replace(BLANK_LINES, '').length;
  lineOffset = countChar(pre.slice(0, leadingBlank), '\n');
  pre = pre.slice(leadingBlank);
  if (sep) {
    delimiter = sep[1] as CsvDelimiter;
    pre = pre.slice(pre.indexOf('\n') + 1);
    lineOffset += 1;
  } else {
    delimiter = detectDelimiter(firstLine);
  }

  const parser = recordParser(delimiter, MAX_RECORD_BYTES);
  const source = Readable.from(prepend(pre, text), { objectMode: true, highWaterMark: 1 });
  pipeline(source, parser, () => {
    // Errors are read from parser.errored by waitMore, with the line they belong to.
  });
  const opened: Opened = {
    header: { columns: [], normalised: [], delimiter, bom: tracker.bom },
    parser,
    nextLine: 1 + lineOffset,
    wake: undefined,
  };
  // Records are pulled synchronously with read(); these only end a wait for more.
  const wake = () => {
    const w = opened.wake;
    opened.wake = undefined;
    w?.();
  };
  parser.on('readable', wake);
  parser.on('end', wake);
  parser.on('error', wake);
  parser.on('close', wake);
  const first = await nextRecord(file, opened);
  if (first === undefined) {
    throw new InputError(`${file} is empty`, [
      { file, line: 1, message: 'the file is empty', expected: headerExpectation(required) },
    ]);
  }
  const headerLine = first.line;
  try {
    opened.header = buildHeader(file, headerLine, first.values, delimiter, tracker.bom, required);
    tracker.columns = opened.header.columns;
    tracker.delimiter = delimiter;
  } catch (err) {
    parser.destroy();
    throw err;
  }
  return opened;
}

/**
 * The csv-parse stream the reader uses, over text with `\n` line ends; with `fastPath` (the
 * default) quote-free lines are split in front of it (csv-fast-lines.ts).
 */
export function recordParser(delimiter: string, maxRecordBytes: number, fastPath = true): Parser {
  const parser = parse({
    delimiter,
    record_delimiter: '\n',
    // Blank lines arrive as one empty field and are skipped by the reader, which keeps line counting exact.
    skip_empty_lines: false,
    relax_column_count: true,
    // A stray quote inside an unquoted value (12" pipe) is kept as text; a quoted field must still close.
    relax_quotes: true,
    max_record_size: maxRecordBytes,
    bom: false,
  });
  if (fastPath) splitQuoteFreeLines(parser, delimiter, maxRecordBytes);
  return parser;
}

async function* prepend(first: string, rest: AsyncGenerator<string>): AsyncGenerator<string> {
  if (first !== '') yield first;
  yield* rest;
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

function headerExpectation(required: string[]): string {
  return required.length > 0 ? `a header line with the columns ${required.join(', ')}` : 'a header line';
}

function buildHeader(
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
        message: `column "${columns[i]}" appears twice (columns ${earlier + 1} and ${i + 1})`,
        expected: 'each column name once',
      });
    } else seen.set(name, i);
    if (name === '__proto__') {
      problems.push({ file, line, field: name, message: 'column name "__proto__" is not allowed' });
    }
  });
  const found = columns.join(', ');
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
            ? `column names are matched case-insensitively; the file was read as ${delimName}-separated`
            : undefined,
      }),
    );
  }
  return { columns, normalised, delimiter, bom };
}

function raise(err: Error): never {
  throw err;
}

// ---------------------------------------------------------------------------------------------
// Records → rows

/** The next record the parser has ready (blank ones skipped), null when it needs more input. */
function takeRecord(o: Opened): { line: number; values: string[] } | null {
  for (;;) {
    const values = o.parser.read() as string[] | null;
    if (values === null) return null;
    const line = o.nextLine;
    let breaks = 1;
    for (const v of values) if (v.includes('\n')) breaks += countChar(v, '\n');
    o.nextLine += breaks;
    // Skip blank lines and rows whose cells are all empty (Excel's ",,,," lines).
    for (const v of values) if (v.trim() !== '') return { line, values };
  }
}

/** Wait until the parser has more records; false at the end of the input. */
async function waitMore(file: string, o: Opened): Promise<boolean> {
  const p = o.parser;
  if (p.errored) throw parseError(file, o.nextLine, p.errored, o.header.normalised);
  if (p.readableEnded || p.destroyed) return false;
  await new Promise<void>((resolve) => {
    o.wake = resolve;
  });
  if (p.errored) throw parseError(file, o.nextLine, p.errored, o.header.normalised);
  return true;
}

async function nextRecord(file: string, o: Opened): Promise<{ line: number; values: string[] } | undefined> {
  for (;;) {
    const rec = takeRecord(o);
    if (rec !== null) return rec;
    if (!(await waitMore(file, o))) return undefined;
  }
}

function toRow(
  file: string,
  line: number,
  values: string[],
  normalised: string[],
  width: number,
  delimiter: CsvDelimiter,
): CsvRow {
  const fields: Record<string, string> = {};
  const cells = values.length === width ? values : values.slice(0, width);
  for (let i = 0; i < width; i++) {
    const v = values[i] ?? '';
    if (i >= values.length) cells[i] = v;
    fields[normalised[i]!] = v.trim();
  }
  const row: CsvRow = { line, fields, cells };
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

function parseError(file: string, line: number, err: unknown, columns: string[]): unknown {
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
