// A fast path in front of csv-parse: it costs ~4 µs a record, and most bulk files hold no quote
// at all. Lines before the first `"` (and no longer than the record limit) are split on the
// delimiter here; from the line holding the first quote on, every byte goes to csv-parse itself,
// so quoting, relaxed quotes and every parse error stay exactly csv-parse's.
import type { Transform, TransformCallback } from 'node:stream';

/**
 * Make `parser` (a csv-parse stream with `record_delimiter: '\n'`, no trimming, casting or
 * comments) split quote-free lines itself. Text must arrive with `\n` line ends, each write whole
 * characters.
 */
export function splitQuoteFreeLines(parser: Transform, delimiter: string, maxRecordBytes: number): void {
  // csv-parse counts a record's size in UTF-8 bytes, without delimiters: a line of at most
  // maxRecordBytes bytes always fits. A UTF-16 unit is at most 3 bytes, so only a line longer than
  // a third of the limit needs measuring; one that does not fit goes to csv-parse, which decides.
  const fits = (text: string, from: number, to: number) =>
    (to - from) * 3 <= maxRecordBytes || Buffer.byteLength(text.slice(from, to), 'utf8') <= maxRecordBytes;
  const parseChunk = parser._transform.bind(parser);
  const parseEnd = parser._flush?.bind(parser);
  let handedOver = false;
  let tail = '';

  const handOver = (text: string, encoding: BufferEncoding, callback: TransformCallback) => {
    handedOver = true;
    tail = '';
    if (text === '') callback();
    else parseChunk(Buffer.from(text, 'utf8'), encoding, callback);
  };

  // The stream hands strings over as Buffers (each one whole UTF-8), which is what csv-parse reads.
  parser._transform = (chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback) => {
    if (handedOver) {
      parseChunk(chunk, encoding, callback);
      return;
    }
    const decoded = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const text = tail === '' ? decoded : tail + decoded;
    const quote = text.indexOf('"');
    const end = quote < 0 ? text.length : quote;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0 && nl < end; nl = text.indexOf('\n', start)) {
      if (!fits(text, start, nl)) break;
      parser.push(text.slice(start, nl).split(delimiter));
      start = nl + 1;
    }
    const rest = start === 0 ? text : text.slice(start);
    if (quote >= 0 || !fits(rest, 0, rest.length) || rest.indexOf('\n') >= 0) {
      handOver(rest, encoding, callback);
      return;
    }
    tail = rest;
    callback();
  };

  parser._flush = (callback: TransformCallback) => {
    if (!handedOver && tail !== '') {
      // The last line, without a line break after it.
      parser.push(tail.split(delimiter));
      tail = '';
    }
    if (parseEnd) parseEnd(callback);
    else callback();
  };
}
