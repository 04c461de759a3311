// A fast path in front of csv-parse: it costs ~4 µs a record, and most input files hold no quote
// at all. Lines before the first `"` (and no longer than the record limit) are split on the
// delimiter here; from the line holding the first quote on, every byte goes to a csv-parse parser,
// so quoting, relaxed quotes and every parse error stay exactly csv-parse's. Only csv-parse's
// public stream API is used (write, read, end, errored), so any csv-parse release that keeps its
// documented behaviour keeps this working.
import { Transform, type TransformCallback } from 'node:stream';
import { type Options, parse } from 'csv-parse';

/**
 * Records in order, as `batched` gives them: csv-parse's records, or quote-free lines of a write's
 * text, each split only when it is taken. Splitting a whole write at once kept its ~1,300 records
 * alive until read, and every young-generation collection in between copied them.
 */
export class RecordBatch {
  private at = 0;
  private from = 0;

  constructor(
    private readonly records: string[][] | undefined,
    private readonly text: string,
    /** Where each quote-free line of `text` ends (its `\n`, or the end of the text). */
    private readonly ends: number[],
    private readonly delimiter: string,
  ) {}

  /** No value holds a line break (the lines were split here): the reader need not look. */
  get quoteFree(): boolean {
    return this.records === undefined;
  }

  /** The next record, or undefined after the last. */
  next(): string[] | undefined {
    if (this.records !== undefined) return this.records[this.at++];
    if (this.at === this.ends.length) return undefined;
    const end = this.ends[this.at++]!;
    const values = this.text.slice(this.from, end).split(this.delimiter);
    this.from = end + 1;
    return values;
  }
}

/**
 * A Transform from text (strings with `\n` line ends, each write whole characters) to records
 * (string arrays), the same records and errors as `parse(options)` gives for that text.
 * `options` must split on `delimiter` with `record_delimiter: '\n'` and no trimming, casting,
 * comments or columns: what the quote-free lines are split by here. With `batched`, it gives
 * the same records in RecordBatches, one per write (no empty ones): a stream item per record cost
 * more than splitting the record.
 */
export class QuoteFreeLines extends Transform {
  /** csv-parse, from the first quote on; undefined until then. */
  private parser: Transform | undefined;
  /** The text after the last line break, before the hand-over. */
  private tail = '';

  constructor(
    private readonly delimiter: string,
    private readonly maxRecordBytes: number,
    private readonly options: Options,
    private readonly batched = false,
  ) {
    // Strings stay strings (a Writable makes them bytes by default): the split here works on text.
    // A batch is a whole write's records: one waiting to be read is read-ahead enough (16 of them,
    // the default for objects, held 16 writes' records, some 20 MB more).
    super({
      readableObjectMode: true,
      decodeStrings: false,
      ...(batched ? { readableHighWaterMark: 1 } : {}),
    });
  }

  /**
   * csv-parse counts a record's size in UTF-8 bytes, without delimiters: a line of at most
   * maxRecordBytes bytes always fits. A UTF-16 unit is at most 3 bytes, so only a line longer
   * than a third of the limit needs measuring; one that does not fit goes to csv-parse, which
   * decides.
   */
  private fits(text: string, from: number, to: number): boolean {
    return (
      (to - from) * 3 <= this.maxRecordBytes ||
      Buffer.byteLength(text.slice(from, to), 'utf8') <= this.maxRecordBytes
    );
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    const decoded = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (this.parser !== undefined) {
      this.parse(decoded, callback);
      return;
    }
    const text = this.tail === '' ? decoded : this.tail + decoded;
    const quote = text.indexOf('"');
    const end = quote < 0 ? text.length : quote;
    let start = 0;
    const ends: number[] | undefined = this.batched ? [] : undefined;
    for (let nl = text.indexOf('\n'); nl >= 0 && nl < end; nl = text.indexOf('\n', start)) {
      if (!this.fits(text, start, nl)) break;
      if (ends === undefined) this.push(text.slice(start, nl).split(this.delimiter));
      else ends.push(nl);
      start = nl + 1;
    }
    if (ends !== undefined && ends.length > 0)
      this.push(new RecordBatch(undefined, text, ends, this.delimiter));
    const rest = start === 0 ? text : text.slice(start);
    if (quote >= 0 || !this.fits(rest, 0, rest.length) || rest.indexOf('\n') >= 0) {
      this.handOver(rest, callback);
      return;
    }
    this.tail = rest;
    callback();
  }

  override _flush(callback: TransformCallback): void {
    const parser = this.parser;
    if (parser === undefined) {
      // The last line, without a line break after it.
      if (this.tail !== '') {
        const tail = this.tail;
        this.push(
          this.batched
            ? new RecordBatch(undefined, tail, [tail.length], this.delimiter)
            : tail.split(this.delimiter),
        );
      }
      this.tail = '';
      callback();
      return;
    }
    // csv-parse's own end: its last records, or its error (a quote still open, a last record too
    // long), which ends this stream (handOver).
    parser.once('finish', () => {
      this.passOn(parser);
      callback();
    });
    parser.end();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.parser?.destroy();
    callback(err);
  }

  private handOver(text: string, callback: TransformCallback): void {
    this.tail = '';
    const parser = parse(this.options);
    // Its errors are read from `errored` after each write and passed on as this stream's own; one
    // that comes later (at its end) ends this stream here, after the records made before it.
    parser.on('error', (err) => {
      this.passOn(parser);
      if (!this.destroyed) this.destroy(err);
    });
    this.parser = parser;
    if (text === '') callback();
    else this.parse(text, callback);
  }

  /**
   * csv-parse handles a write at once: when `write` returns, the records it made are ready to
   * read and its error, if any, is set. They are passed on in that order.
   */
  private parse(text: string, callback: TransformCallback): void {
    const parser = this.parser!;
    parser.write(text);
    this.passOn(parser);
    callback(parser.errored ?? undefined);
  }

  /** Every record csv-parse has ready, pushed as this stream's own. */
  private passOn(parser: Transform): void {
    if (!this.batched) {
      for (let record = parser.read(); record !== null; record = parser.read()) this.push(record);
      return;
    }
    const batch: string[][] = [];
    for (let record = parser.read(); record !== null; record = parser.read()) batch.push(record);
    if (batch.length > 0) this.push(new RecordBatch(batch, '', [], this.delimiter));
  }
}
