// The input of a bulk run as rows: a CSV file, or one order given by flags (written as a one-row
// CSV so that both go through the same reader and validation). Pass 2 and resumed runs read the
// run's snapshot of the file, so the user's file may change or move once a run has started.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, type InputProblem } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { runDir } from '../lifecycle/paths.js';
import type { RunHeader } from '../lifecycle/records.js';
import { checkedSnapshot } from '../lifecycle/snapshot.js';
import { type CsvHeader, type CsvRows, readCsv, type SheetFacts, sha256File } from '../tabular/csv-reader.js';
import { amountStyle, matchingOf } from '../tabular/read-as.js';
import { OPERATIONS } from './operations.js';
import { checkRow, type RowRules, requiredColumns, rowRules } from './plan/row-check.js';
import { type ReadAs, readAsOf } from './read-as.js';
import type { InputRow } from './types.js';

/** A run's own copy of its input, checked against its SHA-256, under the name the user gave. */
export async function runInput(state: string, header: RunHeader): Promise<InputSource> {
  const { runId } = header;
  return {
    path: await checkedSnapshot({ dir: runDir(state, runId), header }, sha256File),
    label: header.label ?? header.file ?? runId,
    ...(header.sheet === undefined ? {} : { sheet: header.sheet }),
    readAs: readAsOf(header.readAs),
  };
}

export interface InputSource {
  /** File read. */
  path: string;
  /** How problems name it: the path as given, or `flags` for one order by flags. */
  label: string;
  /** Set for one order given by flags: problems name the flag instead of file:line. */
  inline?: boolean;
  /** A workbook's sheet (--sheet); its first when unset. */
  sheet?: string;
  /** How the file is read (encoding, decimal mark, refund reason); pass 1 settles `auto`. */
  readAs?: ReadAs;
}

/** The row rules of a source whose reading is settled (the plan's source). */
export function rulesOf(source: InputSource): RowRules {
  const r = source.readAs;
  return r === undefined ? rowRules() : rowRules(amountStyle(r), r.refundReason);
}

/** Single-order fields, by API field name, in column order. */
export type InlineOrder = Array<[field: string, value: string | undefined]>;

function csvCell(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

/** The CSV text of one order given by flags; its SHA-256 identifies the order for re-run checks. */
export function inlineCsv(order: InlineOrder): string {
  const present = order.filter(([, v]) => v !== undefined) as Array<[string, string]>;
  return `${present.map(([k]) => k).join(',')}\n${present.map(([, v]) => csvCell(v)).join(',')}\n`;
}

/** Write one order as a temporary CSV; `cleanup` removes it. */
export async function inlineSource(
  order: InlineOrder,
): Promise<{ source: InputSource; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'payops-order-'));
  const path = join(dir, 'order.csv');
  await writeFile(path, inlineCsv(order), { mode: 0o600 });
  return {
    source: { path, label: 'flags', inline: true },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Problems of a flags order name the flag (`--refund-amount`), not a line of a file nobody wrote. */
export function asFlagProblem(p: InputProblem): InputProblem {
  const { file: _file, line: _line, ...rest } = p;
  return p.field ? { ...rest, field: `--${p.field.replace(/_/g, '-')}` } : rest;
}

export interface OpenedRows {
  columns: Promise<string[]>;
  /** The header read: its line (row) and the columns matched other than by name. */
  header: Promise<CsvHeader>;
  rows: CsvRows;
  sha256: Promise<string>;
  /** A workbook's problems re-addressed to cells (`refunds.xlsx:Sheet1!C7`); as they are for a CSV. */
  locate: Promise<(p: InputProblem) => InputProblem>;
  /** A workbook's sheet read; undefined for a CSV file. */
  sheet: Promise<SheetFacts | undefined>;
}

export function openRows(op: BatchOperation, source: InputSource, rules?: RowRules): OpenedRows {
  const { required, optional } = OPERATIONS[op].columns;
  const reader = readCsv({
    file: source.label,
    path: source.path,
    encoding: source.readAs?.encoding ?? 'utf-8',
    ...(source.readAs === undefined ? {} : { decimalMark: amountStyle(source.readAs).mark }),
    required: [...requiredColumns(op, rules ?? rulesOf(source))],
    matching: matchingOf(source.readAs, [...required, ...optional]),
    checked: [...required, ...optional],
    ...(source.sheet === undefined ? {} : { sheet: source.sheet }),
    ...(source.readAs?.hidden === undefined ? {} : { hidden: source.readAs.hidden }),
  });
  return {
    columns: reader.header.then((h) => h.columns),
    header: reader.header,
    rows: reader.rows,
    sha256: reader.sha256,
    locate: reader.locate ?? Promise.resolve((p: InputProblem) => p),
    sheet: reader.sheet ?? Promise.resolve(undefined),
  };
}

/**
 * Pass 2: the validated rows of an input already planned (so every row is valid), with their raw
 * cells in column order. A row that no longer validates means the file changed under us.
 */
export async function* inputRows(op: BatchOperation, source: InputSource): AsyncGenerator<InputRow> {
  const rules = rulesOf(source);
  const opened = openRows(op, source, rules);
  try {
    await opened.columns;
  } catch (err) {
    throw changed(source, err);
  }
  const skip = source.readAs?.hidden === 'skip';
  for await (const csvRow of opened.rows) {
    // Left out by --skip-hidden in pass 1 too (a run made before payops knew hidden rows read them).
    if (skip && csvRow.hidden !== undefined) continue;
    const { valid, problems } = checkRow(op, csvRow, source.label, rules);
    if (!valid || problems.length > 0) throw changed(source, problems[0]?.message);
    const row = valid as InputRow;
    row.cells = csvRow.cells;
    yield row;
  }
}

/** The rows --skip-hidden left out of a run (its header's readAs says so), for `runs show`. */
export async function* skippedHiddenRows(
  op: BatchOperation,
  source: InputSource,
): AsyncGenerator<{ line: number; ref: string; cells: string[] }> {
  if (source.readAs?.hidden !== 'skip') return;
  const opened = openRows(op, source);
  for await (const r of opened.rows)
    if (r.hidden !== undefined) yield { line: r.line, ref: r.hidden, cells: r.cells };
}

function changed(source: InputSource, why: unknown): InputError {
  const detail = why instanceof Error ? why.message : typeof why === 'string' ? why : '';
  return new InputError(`${source.label} changed after it was checked${detail ? ` (${detail})` : ''}`, [], {
    hint: 'a run reads its own copy of the file; if you see this, the copy was damaged: start a new run',
  });
}
