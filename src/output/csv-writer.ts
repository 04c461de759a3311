// Streaming CSV output on csv-stringify, safe to open in Excel: CRLF line ends, quotes where
// needed, and text cells that a spreadsheet would run as formulas neutralised (amounts stay numbers).

import { stringify } from 'csv-stringify/sync';
import { cellText, excelSafe } from './sanitize.js';
import { openSink } from './sink.js';

export interface CsvWriter {
  /** Resolves once the destination is open (a file); rejects with a UsageError if it cannot be. */
  ready: Promise<void>;
  /** Write one record (cells by column name; missing cells are empty). Await it for backpressure. */
  write(record: Record<string, unknown>): Promise<void> | undefined;
  end(): Promise<void>;
}

export interface CsvWriterOptions {
  /** Start with a UTF-8 BOM, which makes Excel on Windows read non-ASCII text correctly. Default false. */
  bom?: boolean;
}

/** One CSV line (with CRLF) of already-ordered cells, neutralised for spreadsheets. */
export function csvLine(cells: readonly unknown[]): string {
  return stringify([cells.map((c) => excelSafe(cellText(c)))], { record_delimiter: 'windows' });
}

/**
 * Write CSV to `dest` (a path, or a stream such as stdout which is left open), header first.
 * Records are buffered into blocks, so a million rows cost a few thousand writes, not a million.
 */
export function createCsvWriter(
  dest: NodeJS.WritableStream | string,
  columns: string[],
  opts: CsvWriterOptions = {},
): CsvWriter {
  const sink = openSink(dest);
  let pending: unknown[][] = [];
  const BLOCK = 512;
  const flush = (): Promise<void> | undefined => {
    if (pending.length === 0) return undefined;
    const text = stringify(pending, { record_delimiter: 'windows' });
    pending = [];
    return sink.write(text);
  };
  const header = (opts.bom ? '\uFEFF' : '') + csvLine(columns);
  let started = false;
  return {
    ready: sink.ready,
    write(record) {
      if (!started) {
        started = true;
        sink.write(header);
      }
      const cells = new Array<string>(columns.length);
      for (let i = 0; i < columns.length; i++) cells[i] = excelSafe(cellText(record[columns[i]!]));
      pending.push(cells);
      return pending.length >= BLOCK ? flush() : undefined;
    },
    async end() {
      if (!started) {
        started = true;
        sink.write(header);
      }
      await flush();
      await sink.end();
    },
  };
}

/** Convenience: open the writer and wait until the destination is ready. */
export async function openCsvWriter(
  dest: NodeJS.WritableStream | string,
  columns: string[],
  opts: CsvWriterOptions = {},
): Promise<CsvWriter> {
  const w = createCsvWriter(dest, columns, opts);
  await w.ready;
  return w;
}
