// Where a bulk run meets the terminal: the results sink (table / CSV / JSON, to --out or stdout),
// the confirmation and the progress bar. Thin: the rendering itself belongs to src/output/.
// INTERIM: until src/output's writers (createCsvWriter, json-writer, renderTable, createProgress,
// confirmOrExit) land, minimal stand-ins live here behind the same small interface.
import { createWriteStream, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export interface ResultSink {
  /** Where the results went: a file path, or undefined for stdout. */
  readonly file: string | undefined;
  write(record: Record<string, string>): void | Promise<void>;
  close(): Promise<void>;
}

export type ResultFormat = 'table' | 'csv' | 'json';

export function resultFormat(ctx: Context): ResultFormat {
  const { output, out } = ctx.globals;
  if (output) return output;
  if (out) return out.toLowerCase().endsWith('.json') ? 'json' : 'csv';
  return ctx.io.stdout.isTTY ? 'table' : 'csv';
}

/** Text cells a spreadsheet would run as a formula; amounts (plain numbers) are left alone. */
function excelSafe(value: string): string {
  if (value === '' || /^-?\d+(\.\d+)?$/.test(value)) return value;
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Rows kept for a terminal table; a large run shows its problems and points at --out. */
const TABLE_ROWS = 200;

export async function openResultSink(ctx: Context, columns: string[]): Promise<ResultSink> {
  const format = resultFormat(ctx);
  const file = ctx.globals.out ? resolve(ctx.io.cwd, ctx.globals.out) : undefined;
  let stream: WriteStream | undefined;
  if (file) {
    stream = createWriteStream(file, { flags: 'w', mode: 0o600 });
    await new Promise<void>((ok, fail) => {
      stream!.once('open', () => ok());
      stream!.once('error', (err) => fail(new UsageError(`cannot write ${ctx.globals.out}: ${err.message}`)));
    });
  }
  const target: NodeJS.WritableStream = stream ?? ctx.io.stdout;
  let buffered = '';
  const push = (s: string) => {
    buffered += s;
    if (buffered.length > 64 * 1024) {
      const ok = target.write(buffered);
      buffered = '';
      if (!ok) return new Promise<void>((r) => target.once('drain', () => r()));
    }
    return undefined;
  };
  const finish = async () => {
    if (buffered) target.write(buffered);
    buffered = '';
    if (stream)
      await new Promise<void>((ok, fail) => stream!.end((err?: Error | null) => (err ? fail(err) : ok())));
  };

  if (format === 'csv') {
    push(`${columns.map((c) => csvCell(excelSafe(c))).join(',')}\r\n`);
    return {
      file,
      write: (r) => push(`${columns.map((c) => csvCell(excelSafe(r[c] ?? ''))).join(',')}\r\n`),
      close: finish,
    };
  }
  if (format === 'json') {
    let first = true;
    push('[');
    return {
      file,
      write: (r) => {
        const s = `${first ? '\n' : ',\n'}${JSON.stringify(r)}`;
        first = false;
        return push(s);
      },
      close: async () => {
        push(first ? ']\n' : '\n]\n');
        await finish();
      },
    };
  }
  const kept: Record<string, string>[] = [];
  let total = 0;
  let hidden = 0;
  return {
    file,
    write: (r) => {
      total++;
      if (kept.length < TABLE_ROWS) kept.push(r);
      else hidden++;
    },
    close: async () => {
      const { default: Table } = await import('cli-table3');
      const shown = columns.filter((c) => kept.some((r) => (r[c] ?? '') !== ''));
      const table = new Table({ head: shown, style: { head: [], border: [] } });
      for (const r of kept) table.push(shown.map((c) => r[c] ?? ''));
      push(`${table.toString()}\n`);
      if (hidden > 0)
        push(`… ${hidden} more of ${total} rows: use --out FILE.csv (or runs show) for all of them\n`);
      await finish();
    },
  };
}

/** Ask before money moves; --yes skips; without a terminal and without --yes, refuse (exit 2). */
export async function confirmRun(ctx: Context, question: string): Promise<void> {
  if (ctx.globals.yes) return;
  if (!ctx.io.stdin.isTTY || !ctx.io.stderr.isTTY) {
    throw new UsageError('refusing to move money without confirmation: no terminal to ask on', {
      hint: 'add --yes to confirm non-interactively (check the plan first with --dry-run)',
    });
  }
  const { confirm } = await import('@inquirer/prompts');
  let ok = false;
  try {
    ok = await confirm({ message: question, default: false }, { input: ctx.io.stdin, output: ctx.io.stderr });
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError('cancelled: nothing was sent');
}

export interface Progress {
  tick(rows: number): void;
  stop(): void;
}

/** A progress bar on a terminal's stderr; nothing otherwise or with --quiet. */
export async function startProgress(ctx: Context, total: number, label: string): Promise<Progress> {
  if (ctx.globals.quiet || !ctx.io.stderr.isTTY) return { tick() {}, stop() {} };
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream: ctx.io.stderr,
      format: `${label} [{bar}] {value}/{total} rows · {eta_formatted}`,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  let done = 0;
  return {
    tick(rows) {
      done += rows;
      bar.update(done);
    },
    stop() {
      bar.stop();
    },
  };
}
