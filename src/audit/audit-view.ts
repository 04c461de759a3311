// The audit export's files, streamed: CSV (the shared Excel-safe writer) and .xlsx (the shared
// workbook writer) with one row per (run, order row), the run's columns repeated; JSON as one document
// `{"runs":[{…run, "rows":[…]}]}`, written run by run and row by row, never held whole.

import { openTextSink } from '../output/sink.js';
import { jsonTerminalSafe } from '../quote.js';
import { outputJsonReplacer } from '../redact.js';
import { ROW_COLUMNS, type RowData, RUN_COLUMNS, type RunData } from './audit-rows.js';

export type AuditFormat = 'csv' | 'xlsx' | 'json';

export interface AuditWriter {
  /** A run begins: its rows follow until the next `run` or `end`. */
  run(data: RunData): Promise<void>;
  row(row: RowData): Promise<void> | undefined;
  end(): Promise<void>;
  discard(): Promise<void>;
}

const cell = (v: string | number | boolean | null) =>
  v === null ? '' : typeof v === 'boolean' ? String(v) : v;

async function tabular(file: string, format: 'csv' | 'xlsx'): Promise<AuditWriter> {
  const columns = [...RUN_COLUMNS, ...ROW_COLUMNS];
  const w =
    format === 'xlsx'
      ? await (await import('../output/xlsx-writer.js')).openXlsxWriter(file, columns)
      : await (await import('../output/csv-writer.js')).openCsvWriter(file, columns);
  let runCells: Array<string | number> = [];
  let rowsOfRun = 0;
  // A run without rows (nothing planned, or its journal unreadable) still has its line.
  const flushEmpty = async () => {
    if (runCells.length > 0 && rowsOfRun === 0) await w.writeCells(runCells);
  };
  return {
    async run(data) {
      await flushEmpty();
      runCells = RUN_COLUMNS.map((c) => cell(data[c]));
      rowsOfRun = 0;
    },
    row(row) {
      rowsOfRun++;
      return w.writeCells([...runCells, ...ROW_COLUMNS.map((c) => cell(row[c]))]);
    },
    async end() {
      await flushEmpty();
      await w.end();
    },
    discard: () => w.discard(),
  };
}

const json = (v: unknown) => jsonTerminalSafe(JSON.stringify(v, outputJsonReplacer));

async function document(file: string): Promise<AuditWriter> {
  const sink = openTextSink(file);
  await sink.ready;
  let runs = 0;
  let rows = 0;
  let buffer = '{"runs":[';
  const flush = () => {
    const text = buffer;
    buffer = '';
    return sink.write(text);
  };
  const closeRun = () => {
    if (runs > 0) buffer += rows === 0 ? ']}' : '\n]}';
  };
  return {
    async run(data) {
      closeRun();
      // The approvers as a list here (joined into one cell in a CSV), in their column's place.
      const { approvers, ...fields } = data;
      const head = json({ ...fields, plan_approvers: approvers, rows: [] });
      // `{…,"rows":[]}` opened at its rows.
      buffer += `${runs === 0 ? '\n' : ',\n'}${head.slice(0, -2)}`;
      runs++;
      rows = 0;
      const w = flush();
      if (w) await w;
    },
    row(row) {
      // What was sent and answered as objects here (text in a CSV cell).
      const sent = row.sent === '' || row.sent === null ? null : JSON.parse(String(row.sent));
      const answer = row.answer === '' || row.answer === null ? null : JSON.parse(String(row.answer));
      buffer += `${rows === 0 ? '\n' : ',\n'}${json({ ...row, sent, answer })}`;
      rows++;
      return buffer.length >= 64 * 1024 ? flush() : undefined;
    },
    async end() {
      closeRun();
      buffer += runs === 0 ? ']}\n' : '\n]}\n';
      const w = flush();
      if (w) await w;
      await sink.end();
    },
    discard: () => sink.discard(),
  };
}

export function openAuditWriter(file: string, format: AuditFormat): Promise<AuditWriter> {
  return format === 'json' ? document(file) : tabular(file, format);
}
