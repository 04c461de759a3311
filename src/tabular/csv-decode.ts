// Bytes → text for the CSV reader: the file's bytes hashed as they are read, checked (not a
// workbook), decoded in the file's encoding (UTF-8 strictly by default; --encoding windows-1252,
// latin1, utf-16le/be; a UTF-16 BOM chooses UTF-16 by itself) and with every line end made `\n`.
// An invalid byte is reported by line and, once the header is known, by column; file errors
// (missing, a folder, unreadable) become InputErrors a person can act on. A file read as
// windows-1252 or latin1 whose bytes are valid UTF-8 with text beyond ASCII is refused: it is
// almost surely UTF-8, and read so it sent "RÃ¼ckerstattung" for "Rückerstattung" (issue 23). Messages name the file
// as the user gave it (`file`); `path` is what is opened.
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { InputError, type InputProblem } from '../errors.js';
import { quote } from '../quote.js';
import { type CsvDelimiter, detectDelimiter, normaliseColumn } from './csv-header.js';

const SAVE_AS_UTF8 = 'in Excel use File › Save As › "CSV UTF-8 (Comma delimited) (*.csv)"';

/** The encodings --encoding accepts. */
export const ENCODINGS = ['utf-8', 'windows-1252', 'latin1', 'utf-16le', 'utf-16be'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** `UTF8`, `cp1252`, `ISO-8859-1` … → one of ENCODINGS, or undefined. */
export function normaliseEncoding(name: string): Encoding | undefined {
  const n = name.trim().toLowerCase().replace(/_/g, '-');
  if (n === 'utf-8' || n === 'utf8') return 'utf-8';
  if (n === 'windows-1252' || n === 'cp1252' || n === 'win-1252' || n === 'ansi') return 'windows-1252';
  if (n === 'latin1' || n === 'latin-1' || n === 'iso-8859-1' || n === 'iso8859-1') return 'latin1';
  if (n === 'utf-16le' || n === 'utf16le' || n === 'utf-16') return 'utf-16le';
  if (n === 'utf-16be' || n === 'utf16be') return 'utf-16be';
  return undefined;
}

/** A decoder of one encoding, streaming; latin1 maps each byte to the code point of its value. */
interface Decoder {
  decode(buf?: Uint8Array, opts?: { stream: boolean }): string;
}

function decoderFor(encoding: Encoding): Decoder {
  if (encoding === 'latin1') return { decode: (buf) => (buf ? Buffer.from(buf).toString('latin1') : '') };
  return new TextDecoder(encoding, { fatal: encoding !== 'windows-1252' });
}

/** What decoding has seen so far, shared with the reader (which adds the header once it has it). */
export interface DecodeTracker {
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
const LINE_TAIL_MAX = 64 * 1024;
/** Blank lines at the start of a text (skipped before the header). */
export const BLANK_LINES = /^(?:[ \t]*\n)+/;

/** The file's text, chunk by chunk, `\n` line ends; `hash` sees every byte, `onComplete` runs after the last. */
export async function* decodeFile(
  file: string,
  signal: AbortSignal | undefined,
  chunkSize: number,
  hash: Hash,
  tracker: DecodeTracker,
  onComplete: () => void,
  path: string = file,
  encoding: Encoding = 'utf-8',
): AsyncGenerator<string> {
  const stream = createReadStream(path, { highWaterMark: chunkSize, signal });
  let decoder: Decoder | undefined;
  let utf8 = encoding === 'utf-8';
  // The first bytes, gathered across chunks (a chunk may be a single byte), for BOM and UTF-16
  // checks: nothing is decoded before the encoding is settled.
  let head: Buffer | undefined = Buffer.alloc(0);
  let pendingCr = false;
  let tail: Uint8Array = EMPTY;
  // A single-byte encoding given: whether the bytes are UTF-8 too, and where text beyond ASCII is.
  let misread = encoding === 'windows-1252' || encoding === 'latin1' ? new MisreadCheck() : undefined;
  try {
    for await (const chunk of stream) {
      let buf = chunk as Buffer;
      hash.update(buf);
      if (head !== undefined) {
        head = Buffer.concat([head, buf]);
        if (head.length < 4) continue;
        const chosen = inspectHead(file, head, tracker, encoding);
        utf8 = chosen === 'utf-8';
        decoder = decoderFor(chosen);
        if (chosen !== encoding) misread = undefined;
        buf = head;
        head = undefined;
      }
      if (misread && !misread.bytes(buf)) misread = undefined;
      let text: string;
      try {
        text = decoder!.decode(buf, { stream: true });
      } catch {
        if (!utf8) throw notEncoded(file, tracker.linesEmitted + 1, encoding);
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
      misread?.text(text, tracker);
      const breaks = countChar(text, '\n');
      tracker.linesEmitted += breaks;
      const tailText = breaks === 0 ? tracker.lineTail + text : text.slice(text.lastIndexOf('\n') + 1);
      tracker.lineTail = tailText.length > LINE_TAIL_MAX ? '' : tailText;
      yield text;
    }
    let rest = '';
    if (head !== undefined) {
      // A file of fewer than 4 bytes.
      const chosen = inspectHead(file, head, tracker, encoding);
      utf8 = chosen === 'utf-8';
      decoder = decoderFor(chosen);
      if (chosen !== encoding || !misread?.bytes(head)) misread = undefined;
      try {
        rest = decoder.decode(head, { stream: true });
      } catch {
        throw utf8 ? invalidUtf8(file, 1, undefined) : notEncoded(file, 1, encoding);
      }
    }
    try {
      rest += decoder?.decode() ?? '';
    } catch {
      throw utf8
        ? invalidUtf8(file, tracker.linesEmitted + 1, columnAt(tracker, tracker.lineTail))
        : notEncoded(file, tracker.linesEmitted + 1, encoding);
    }
    if (rest.includes('\r')) rest = rest.replace(/\r\n?/g, '\n');
    if (pendingCr) rest = `\n${rest}`;
    misread?.text(rest, tracker);
    const wrong = misread?.finish();
    if (wrong) throw misreadAsSingleByte(file, encoding, wrong);
    if (rest !== '') yield rest;
  } catch (err) {
    throw fileError(file, err);
  } finally {
    stream.destroy();
  }
  onComplete();
}

/** The encoding the file is read in: the one given, or UTF-16 when its BOM says so. */
function inspectHead(file: string, buf: Buffer, tracker: DecodeTracker, given: Encoding): Encoding {
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
  // A UTF-16 BOM ("Unicode Text" from Excel) says the encoding by itself.
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
    tracker.bom = true;
    return 'utf-16le';
  }
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    tracker.bom = true;
    return 'utf-16be';
  }
  if (given.startsWith('utf-16')) return given;
  // UTF-16 without a BOM: ASCII text with every other byte zero.
  const utf16 = buf.length >= 4 && (buf[1] === 0 || buf[0] === 0) && (buf[3] === 0 || buf[2] === 0);
  if (utf16) {
    const le = buf[1] === 0;
    throw new InputError(
      `${file} looks like UTF-16 without a byte order mark`,
      [{ file, line: 1, message: 'the file is encoded as UTF-16', expected: 'a UTF-8 CSV file' }],
      { hint: `give --encoding ${le ? 'utf-16le' : 'utf-16be'}, or ${SAVE_AS_UTF8}` },
    );
  }
  return given;
}

/** The first text beyond ASCII of a file read in a single-byte encoding: where, and as read. */
interface Misread {
  line: number;
  field: string | undefined;
  /** The word holding it, as the single-byte encoding read it. */
  word: string;
}

/** Characters that end the word shown from a misread line. */
const WORD_END = /[\s,;"]/;

/**
 * Whether a file read in a single-byte encoding is valid UTF-8 with text beyond ASCII: its bytes go
 * through a strict UTF-8 decoder as well (bytes), and the first text beyond ASCII is located in
 * the text as read (text, before the tracker counts that text's lines).
 */
class MisreadCheck {
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private found: Misread | undefined;
  /** Whether the found word may go on in the next chunk. */
  private open = false;

  /** False once the bytes are not UTF-8: the file is then read as given. */
  bytes(buf: Uint8Array): boolean {
    try {
      this.utf8.decode(buf, { stream: true });
      return true;
    } catch {
      return false;
    }
  }

  text(text: string, tracker: DecodeTracker): void {
    if (this.found !== undefined) {
      // The word may go on in the next chunks (a chunk may be a single byte).
      if (this.open) this.word(text, 0);
      return;
    }
    const at = text.search(/[^\u0000-\u007f]/);
    if (at < 0) return;
    const before = text.slice(0, at);
    const breaks = countChar(before, '\n');
    const lineText = breaks === 0 ? tracker.lineTail + before : before.slice(before.lastIndexOf('\n') + 1);
    // The header may not be parsed yet (the first chunk): its columns from the text, on a copy.
    const header = { ...tracker };
    if (header.columns === undefined && tracker.linesEmitted === 0) headerFromText(header, before);
    let from = lineText.length;
    while (from > 0 && !WORD_END.test(lineText[from - 1]!)) from--;
    this.found = {
      line: tracker.linesEmitted + breaks + 1,
      field: columnAt(header, lineText),
      word: lineText.slice(from),
    };
    this.open = true;
    this.word(text, at);
  }

  /** The found word's characters from `text[at]` on, up to its end. */
  private word(text: string, at: number): void {
    let to = at;
    while (to < text.length && !WORD_END.test(text[to]!)) to++;
    const found = this.found!;
    found.word = (found.word + text.slice(at, to)).slice(0, 60);
    this.open = to === text.length && found.word.length < 60;
  }

  /** What was misread, once every byte was seen to be UTF-8; undefined otherwise. */
  finish(): Misread | undefined {
    try {
      this.utf8.decode();
    } catch {
      return undefined;
    }
    return this.found;
  }
}

/** windows-1252's characters for the bytes 0x80-0x9f (the others are their own code points). */
let cp1252High: Map<string, number> | undefined;

/** `word`, read in a single-byte `encoding`, as its bytes read in UTF-8. */
function asUtf8(word: string, encoding: Encoding): string {
  if (encoding === 'windows-1252' && cp1252High === undefined) {
    const high = new TextDecoder('windows-1252').decode(Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i));
    cp1252High = new Map([...high].map((c, i) => [c, 0x80 + i]));
  }
  const bytes = Uint8Array.from([...word], (c) => cp1252High?.get(c) ?? c.charCodeAt(0) & 0xff);
  return new TextDecoder('utf-8').decode(bytes);
}

function misreadAsSingleByte(file: string, encoding: Encoding, m: Misread): InputError {
  const where = m.field === undefined ? '' : ` (column ${m.field})`;
  const sent = `${quote(m.word)} would have been sent for ${quote(asUtf8(m.word, encoding))}`;
  const problem: InputProblem = {
    file,
    line: m.line,
    message: `read as ${encoding}, ${sent}`,
    expected: 'the file read in its own encoding, UTF-8',
  };
  if (m.field !== undefined) problem.field = m.field;
  return new InputError(
    `${file}:${m.line}${where}: the file was read as ${encoding}, but it is almost surely UTF-8 (its bytes are valid UTF-8): ${sent}; nothing was sent`,
    [problem],
    { hint: 'leave out --encoding (UTF-8 is the default), or give --encoding utf-8' },
  );
}

/** Bytes that are not valid in the encoding given (UTF-16 only: the single-byte ones take any byte). */
function notEncoded(file: string, line: number, encoding: Encoding): InputError {
  return new InputError(
    `${file}:${line}: the file is not valid ${encoding}`,
    [{ file, line, message: `bytes that are not valid ${encoding}`, expected: `a ${encoding} CSV file` }],
    { hint: `check --encoding (one of ${ENCODINGS.join(', ')}), or ${SAVE_AS_UTF8}` },
  );
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
    {
      hint: `a file Excel saved as plain "CSV" is Windows-1252: give --encoding windows-1252 (or latin1); or ${SAVE_AS_UTF8}`,
    },
  );
}

/** A read error as an InputError a person can act on (no such file, a folder, permission), else unchanged. */
export function fileError(file: string, err: unknown): unknown {
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

/** How many times `ch` occurs in `s`. */
export function countChar(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}
