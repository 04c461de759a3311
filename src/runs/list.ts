// `payops runs list`: every run (bulk and payout), newest first, one line per run on a terminal
// (issue 27): id, when, operation, gateway, state and the counts the run recorded, not_sent among
// them. --state and --op filter, --limit keeps the newest N. CSV and JSON carry every field; JSON
// counts are numbers (null when the run recorded none: it ended without its last record).

import { openResultSink } from '../bulk/report/ui.js';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { listRunsChecked, type RunInfo } from '../lifecycle/read.js';
import { resolveFormat } from '../output/format.js';
import { stdoutColor } from '../output/stdout-color.js';
import { formatCount } from '../output/summary.js';
import { stateLabel } from './state-label.js';

export { stateLabel };

/** Counts a run may record, in the order they are shown; payouts' words mapped onto them. */
const COUNTS = [
  'succeeded',
  // Rows the gateway already showed done (--skip-done): without it an all-done run read "0".
  'already_done',
  'skipped',
  'failed',
  'unknown',
  'pending',
  'not_sent',
  // Rows refunded twice (a gateway that committed later than --settle-time): never out of sight.
  'duplicated',
] as const;
type CountName = (typeof COUNTS)[number];

/** A payout run's terminal record says completed and unsent. */
const PAYOUT_WORDS: Record<string, CountName> = { completed: 'succeeded', unsent: 'not_sent' };

export const RUN_LIST_COLUMNS = [
  'id',
  'created',
  'op',
  'file',
  'gateway',
  'profile',
  'state',
  'rows',
  ...COUNTS,
] as const;

/** The table's words for the counts: short, as the progress bar says them. */
const TABLE_COUNT_HEADERS: Record<CountName, string> = {
  succeeded: 'ok',
  already_done: 'already_done',
  skipped: 'skipped',
  failed: 'failed',
  unknown: 'unknown',
  pending: 'pending',
  not_sent: 'not_sent',
  duplicated: 'duplicated',
};

export const RUN_STATES = ['finished', 'interrupted', 'unfinished', 'stopped', 'running', 'damaged'] as const;

export interface ListOptions {
  limit?: number;
  state?: string;
  op?: string;
}

/** The operations a run can be of. */
const RUN_OPS = ['refund', 'capture', 'cancel', 'review', 'payout'] as const;

interface Entry {
  id: string;
  run: RunInfo | undefined;
}

export async function listRunsCommand(ctx: Context, opts: ListOptions = {}): Promise<number> {
  const state = opts.state?.trim().toLowerCase();
  if (state !== undefined && !(RUN_STATES as readonly string[]).includes(state)) {
    throw new UsageError(`--state takes one of ${RUN_STATES.join(', ')}, not "${opts.state}"`);
  }
  const op = opts.op?.trim().toLowerCase();
  // A typo (`--op refunds`) must not read as "no runs": the operations are known.
  if (op !== undefined && !(RUN_OPS as readonly string[]).includes(op)) {
    throw new UsageError(`--op takes one of ${RUN_OPS.join(', ')}, not "${opts.op}"`);
  }
  const { runs, damaged } = await listRunsChecked(stateDir(ctx.io.env));
  // Newest first, damaged runs in their place: a run id's time orders them all.
  let rows: Entry[] = [
    ...runs.map((r) => ({ id: r.runId, run: r })),
    ...damaged.map((d) => ({ id: d.runId, run: undefined })),
  ].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  if (state !== undefined) rows = rows.filter((e) => stateMatches(e, state));
  if (op !== undefined) rows = rows.filter((e) => e.run?.header.op === op);
  if (opts.limit !== undefined) rows = rows.slice(0, opts.limit);

  const format = resolveFormat(ctx.globals, ctx.io);
  if (format === 'table') await writeTable(ctx, rows);
  else if (format === 'json') await writeJson(ctx, rows);
  else {
    const sink = await openResultSink(ctx, [...RUN_LIST_COLUMNS]);
    for (const e of rows) {
      const d = dataOf(e);
      const rec: Record<string, string> = {};
      for (const [k, v] of Object.entries(d)) rec[k] = v === null ? '' : String(v);
      const w = sink.write(rec);
      if (w) await w;
    }
    await sink.close();
  }
  for (const d of damaged) ctx.log.warn(`payops: ${d.error.message}\n  ${d.error.hint}`);
  if (rows.length === 0) {
    ctx.log.info(state !== undefined || op !== undefined ? 'no runs match' : 'no runs yet');
  }
  return damaged.length > 0 ? ExitCode.config : ExitCode.ok;
}

/** `--state stopped` is every run stopped by the gateway or an error ("stopped: …"). */
function stateMatches(e: Entry, state: string): boolean {
  const label = e.run ? stateLabel(e.run) : 'damaged';
  return label === state || label.startsWith(`${state}:`);
}

/** Where the run sent: the in-process sandbox, or the gateway's host. */
function gatewayOf(r: RunInfo): string {
  if (r.header.sandbox) return 'sandbox';
  const url = r.header.baseUrl;
  if (!url) return '';
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function countsOf(r: RunInfo | undefined): Record<CountName, number | null> {
  const raw = r?.terminal?.counts;
  const out = Object.fromEntries(COUNTS.map((c) => [c, raw ? 0 : null])) as Record<CountName, number | null>;
  if (!raw) return out;
  for (const [k, v] of Object.entries(raw)) {
    const name = PAYOUT_WORDS[k] ?? k;
    if (typeof v === 'number' && (COUNTS as readonly string[]).includes(name)) {
      out[name as CountName] = (out[name as CountName] ?? 0) + v;
    }
  }
  return out;
}

type Data = Record<(typeof RUN_LIST_COLUMNS)[number], string | number | null>;

function dataOf({ id, run: r }: Entry): Data {
  return {
    id,
    created: r?.header.createdAt ?? null,
    op: r?.header.op ?? null,
    file: r ? String(r.header.label ?? r.header.file ?? '') : null,
    gateway: r ? gatewayOf(r) : null,
    profile: r?.header.profile ?? null,
    state: r ? stateLabel(r) : 'damaged',
    rows: r?.header.rows ?? null,
    ...countsOf(r),
  };
}

async function writeJson(ctx: Context, rows: Entry[]): Promise<void> {
  const { resolve } = await import('node:path');
  const { openJsonWriter } = await import('../output/json-writer.js');
  const w = await openJsonWriter(ctx.globals.out ? resolve(ctx.io.cwd, ctx.globals.out) : ctx.io.stdout);
  ctx.onClose(() => w.discard());
  for (const e of rows) {
    const p = w.write(dataOf(e));
    if (p) await p;
  }
  await w.end();
}

/** Local time, ISO 8601 to the minute (design §1.6), as query shows dates. */
function localMinute(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

async function writeTable(ctx: Context, rows: Entry[]): Promise<void> {
  if (rows.length === 0) return;
  const data = rows.map(dataOf);
  // Only the counts some run has: a list of finished runs needs no not_sent column of zeros.
  const counts = COUNTS.filter((c) => data.some((d) => typeof d[c] === 'number' && d[c] !== 0));
  const head = ['id', 'when', 'op', 'gateway', 'state', 'rows', ...counts.map((c) => TABLE_COUNT_HEADERS[c])];
  const records = data.map((d) => {
    const r: Record<string, string> = {
      id: String(d.id),
      when: localMinute(d.created as string | null),
      op: String(d.op ?? ''),
      gateway: String(d.gateway ?? ''),
      state: String(d.state),
      rows: typeof d.rows === 'number' ? formatCount(d.rows) : '',
    };
    for (const c of counts) r[TABLE_COUNT_HEADERS[c]] = typeof d[c] === 'number' ? formatCount(d[c]) : '';
    return r;
  });
  const { renderTable } = await import('../output/table.js');
  const width = ctx.io.stdout.columns;
  const text = renderTable(head, records, {
    color: stdoutColor(ctx),
    wide: Boolean(ctx.globals.wide),
    ...(width ? { width } : {}),
    // Rows (the counts add up to it) and then when (the run id starts with its time, in UTC) go
    // before a long gateway address is cut, the last step before one line per run does not fit.
    cut: [],
    drop: ['rows', 'when'],
    cutLast: ['gateway'],
  });
  const { openTextSink } = await import('../output/sink.js');
  const sink = openTextSink(ctx.io.stdout);
  await sink.ready;
  await sink.write(text);
  await sink.end();
}
