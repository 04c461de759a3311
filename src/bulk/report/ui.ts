// Where a bulk run meets the terminal, through the shared src/output API: the results sink
// (table / CSV / JSON, to --out or stdout), the confirmation and the progress bar. The renderers
// load lazily: a CSV run never loads the table library, a piped run never the progress bar.
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { resolveFormat } from '../../output/format.js';
import type { Progress } from '../../output/progress.js';
import { stdoutColor } from '../../output/stdout-color.js';
import { fitLines, formatCount } from '../../output/summary.js';
import type { XlsxWriterOptions } from '../../output/xlsx-writer.js';

export interface ResultSink {
  /** Where the results went: a file path, or undefined for stdout. */
  readonly file: string | undefined;
  /** Await the returned promise, when there is one, for backpressure. */
  write(record: Record<string, string>): Promise<void> | undefined;
  /** One row as cells in column order: a CSV run writes them as they are, with no record per row. */
  writeCells(cells: readonly string[]): Promise<void> | undefined;
  /**
   * Flush; a results file is moved into place, also after a failed or interrupted run (sink.ts).
   * `interrupted`: a terminal table prints no rows (the summary points to `runs show ID`).
   */
  close(opts?: { interrupted?: boolean; runId?: string }): Promise<void>;
}

/** Rows of a terminal table; a larger run shows only rows that did not succeed, and points at --out. */
export const TABLE_ROWS = 200;

export async function openResultSink(
  ctx: Context,
  columns: string[],
  tableColumns: string[] = columns,
  /** The column holding each row's outcome: a large run's table shows the rows that did not succeed. */
  outcomeColumn?: string,
  /** A workbook's columns' own number formats, kept in --out results.xlsx (xlsx-writer.ts). */
  formats?: XlsxWriterOptions['formats'],
  /**
   * The table's `note`: the column holding why a row did not succeed, shown whole under its row
   * (issue 27); `drop`: columns left out, first ones first, before the table becomes blocks.
   */
  table: { note?: string; drop?: readonly string[] } = {},
): Promise<ResultSink> {
  const noteColumn = table.note;
  const format = resolveFormat(ctx.globals, ctx.io);
  const file = ctx.globals.out ? resolve(ctx.io.cwd, ctx.globals.out) : undefined;
  const dest: NodeJS.WritableStream | string = file ?? ctx.io.stdout;
  const toRecord = (cells: readonly string[]) => {
    const r: Record<string, string> = {};
    for (let i = 0; i < columns.length; i++) r[columns[i]!] = cells[i] ?? '';
    return r;
  };

  if (format === 'csv') {
    // --out results.xlsx: a workbook, ids as text and amounts as numbers (loaded only for one).
    const writer = file?.toLowerCase().endsWith('.xlsx')
      ? await (await import('../../output/xlsx-writer.js')).openXlsxWriter(file, columns, { formats })
      : await (await import('../../output/csv-writer.js')).openCsvWriter(dest, columns);
    // Not closed by the end of the command: the run never began, and --out stays as it was.
    ctx.onClose(() => writer.discard());
    return {
      file,
      write: (r) => writer.write(r),
      writeCells: (cells) => writer.writeCells(cells),
      close: () => writer.end(),
    };
  }
  if (format === 'json' && file === undefined && ctx.runDocument) {
    // --output json on stdout: the rows inside the run's one document (output/run-document.ts).
    const doc = ctx.runDocument;
    return {
      file,
      write: (r) => doc.row(r),
      writeCells: (cells) => doc.row(toRecord(cells)),
      close: async () => {},
    };
  }
  if (format === 'json') {
    const writer = await (await import('../../output/json-writer.js')).openJsonWriter(dest);
    ctx.onClose(() => writer.discard());
    return {
      file,
      write: (r) => writer.write(r),
      writeCells: (cells) => writer.write(toRecord(cells)),
      close: () => writer.end(),
    };
  }

  // A terminal shows every row of a small run; of a large one, the rows that need attention.
  const all: Record<string, string>[] = [];
  const problems: Record<string, string>[] = [];
  let total = 0;
  let problemCount = 0;
  const outcomeAt = outcomeColumn === undefined ? -1 : columns.indexOf(outcomeColumn);
  // Only rows the table may show become records.
  const writeCells = (cells: readonly string[]): undefined => {
    total++;
    const problem = outcomeAt >= 0 && cells[outcomeAt] !== 'succeeded';
    if (problem) problemCount++;
    const keepProblem = problem && problems.length < TABLE_ROWS;
    if (all.length < TABLE_ROWS || keepProblem) {
      const r = toRecord(cells);
      if (all.length < TABLE_ROWS) all.push(r);
      if (keepProblem) problems.push(r);
    }
    return undefined;
  };
  return {
    file,
    write: (r) => writeCells(columns.map((c) => r[c] ?? '')),
    writeCells,
    async close(opts) {
      // An interrupted run's rows are mostly not_sent: the summary says where to see them.
      if (opts?.interrupted) return;
      const [{ renderTable }, { openTextSink }] = await Promise.all([
        import('../../output/table.js'),
        import('../../output/sink.js'),
      ]);
      const onlyProblems = total > TABLE_ROWS && outcomeAt >= 0;
      const kept = onlyProblems ? problems : all;
      // Columns nobody filled (e.g. refund fields of a run that failed as a whole) only take room.
      const shown = tableColumns.filter((c) => kept.some((r) => (r[c] ?? '') !== ''));
      // A succeeded row's detail ("0000:Refund accepted") says nothing its outcome does not.
      const note = noteColumn !== undefined && shown.includes(noteColumn) ? noteColumn : undefined;
      const rowsShown =
        note === undefined || outcomeAt < 0
          ? kept
          : kept.map((r) => (r[outcomeColumn!] === 'succeeded' ? { ...r, [note]: '' } : r));
      const width = file === undefined ? ctx.io.stdout.columns : undefined;
      const tableText =
        kept.length > 0
          ? renderTable(shown, rowsShown, {
              color: stdoutColor(ctx),
              wide: Boolean(ctx.globals.wide),
              ...(note ? { note } : {}),
              ...(table.drop ? { drop: table.drop } : {}),
              ...(width ? { width } : {}),
            })
          : '';
      const n = formatCount;
      // A run's rows are written again from its journal: the same command with --out would be
      // refused as already processed (issue 27). `runs show` itself takes --out.
      const everyRow = opts?.runId
        ? `every row: payops runs show ${opts.runId} --out results.csv`
        : 'write them all with --out results.csv';
      let text = '';
      if (onlyProblems && problemCount === 0) {
        text += `all ${n(total)} rows succeeded (not listed here): ${everyRow}\n`;
      } else if (onlyProblems) {
        text +=
          problemCount > kept.length
            ? `${n(kept.length)} of the ${n(problemCount)} rows that did not succeed shown (${n(total)} rows in all): ${everyRow}\n`
            : `${n(total - problemCount)} rows that succeeded not shown (${n(total)} rows in all): ${everyRow}\n`;
      } else if (total > kept.length) {
        text += `${n(total - kept.length)} of ${n(total)} rows not shown: ${everyRow}\n`;
      }
      // The table fits by itself; the footer is wrapped at spaces.
      if (width) text = fitLines(text.split('\n'), width).join('\n');
      text = tableText + text;
      const sink = openTextSink(dest);
      await sink.ready;
      await sink.write(text);
      await sink.end();
    },
  };
}

/** Ask before money moves; --yes skips; without a terminal and without --yes, refuse (exit 2). */
export async function confirmRun(
  ctx: Context,
  question: string,
  /** A run above the profile's confirm_typed_above: the number of rows is typed, not y. */
  typed?: { rows: number; why: string },
): Promise<void> {
  if (typed) {
    const { confirmTypedOrExit } = await import('../../output/confirm-typed.js');
    return confirmTypedOrExit(ctx.io, ctx.globals, question, typed);
  }
  const { confirmOrExit } = await import('../../output/confirm.js');
  await confirmOrExit(ctx.io, ctx.globals, question);
}

/** A progress bar on a terminal's stderr; nothing otherwise or with --quiet. */
export async function startProgress(ctx: Context, total: number, label: string): Promise<Progress> {
  if (ctx.globals.quiet || !ctx.io.stderr.isTTY) return { tick() {}, stop() {} };
  const { createProgress } = await import('../../output/progress.js');
  const progress = createProgress(ctx.io, ctx.globals, total, label);
  // Every message while the line is up is written on a cleared line, never over it (--verbose's
  // request lines, warnings); the line is drawn again below it until stop() puts the logger back.
  const log = ctx.log as unknown as Record<string, unknown>;
  const saved = new Map<string, unknown>();
  for (const level of ['info', 'warn', 'verbose', 'debug'] as const) {
    const original = ctx.log[level].bind(ctx.log);
    saved.set(level, log[level]);
    log[level] = (message: string) =>
      progress.aside ? progress.aside(() => original(message)) : original(message);
  }
  return {
    ...progress,
    stop() {
      progress.stop();
      for (const [level, fn] of saved) log[level] = fn;
    },
  };
}

/**
 * While the gateway check is awaited, one line on a terminal's stderr saying so: against a slow or
 * rate-limited gateway the look-ups of a big file take long, and the screen stayed blank until the
 * plan. Ctrl-C meanwhile ends payops as Node would (nothing is sent before the plan is confirmed),
 * but says so first. The returned function clears the line. Nothing with --quiet, off a terminal,
 * or with --verbose/--debug (their request lines would be written onto it).
 */
export function showChecking(ctx: Context, rows: number): () => void {
  const g = ctx.globals;
  const err = ctx.io.stderr;
  if (g.quiet || g.verbose || g.debug || !err.isTTY) return () => {};
  // Two columns spare, as the progress line keeps: the terminal's "^C" echo must not wrap it.
  const room = (err.columns || 80) - 3;
  const text = `checking ${formatCount(rows)} row${rows === 1 ? '' : 's'} at the gateway…`;
  err.write(text.length <= room ? text : `${text.slice(0, Math.max(0, room - 1))}…`);
  let cleared = false;
  const clear = () => {
    if (cleared) return;
    cleared = true;
    process.off('SIGINT', onSigint);
    err.write('\r\u001b[K');
  };
  const onSigint = () => {
    clear();
    err.write('stopped while checking at the gateway: nothing was sent\n');
    // Nobody else listens: Node's default, end the process (exit status 130 to the shell).
    if (process.listenerCount('SIGINT') === 0) process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onSigint);
  return clear;
}

/** The terminal's width for the plan and the summary on stderr; none when stderr is not a terminal. */
export function stderrWidth(ctx: Context): { columns?: number } {
  return ctx.io.stderr.isTTY && ctx.io.stderr.columns ? { columns: ctx.io.stderr.columns } : {};
}
