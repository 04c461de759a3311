// `payops runs list`: every run (bulk and payout), newest first, with its counts when it recorded them.

import { openResultSink } from '../bulk/ui.js';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { listRunsChecked, type RunInfo } from '../runs/read.js';

export const RUN_LIST_COLUMNS = [
  'id',
  'op',
  'file',
  'created',
  'rows',
  'succeeded',
  'failed',
  'unknown',
  'state',
] as const;

// Why a run that did not finish stopped, in the words of its end record (src/bulk/engine.ts).
const STOPPED: Record<string, string> = {
  unreachable: 'stopped: gateway unreachable',
  auth: 'stopped: credentials refused',
  route: 'stopped: gateway address',
  busy: 'stopped: gateway busy',
  journal: 'stopped: journal',
  error: 'stopped: error',
};

/**
 * The state column: "interrupted" only for a run stopped by Ctrl-C. A run that ended with rows
 * unknown or not sent (exit 3) is "unfinished"; one with no end record (the process was killed)
 * too: both are resumed the same way.
 */
export function stateLabel(r: RunInfo): string {
  if (r.state !== 'interrupted') return r.state;
  const reason = r.terminal?.reason;
  if (reason === 'interrupted') return 'interrupted';
  return (reason && STOPPED[reason]) ?? 'unfinished';
}

export async function listRunsCommand(ctx: Context): Promise<number> {
  const { runs, damaged } = await listRunsChecked(stateDir(ctx.io.env));
  const sink = await openResultSink(ctx, [...RUN_LIST_COLUMNS]);
  // Newest first, damaged runs in their place: a run id's time orders them all.
  const rows = [
    ...runs.map((r) => ({ id: r.runId, run: r })),
    ...damaged.map((d) => ({ id: d.runId, run: undefined })),
  ].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  for (const { id, run: r } of rows) {
    const counts = r?.terminal?.counts ?? {};
    const count = (k: string) => (typeof counts[k] === 'number' ? String(counts[k]) : '');
    const w = sink.write({
      id,
      op: r?.header.op ?? '',
      file: r ? String(r.header.label ?? r.header.file ?? '') : '',
      created: r?.header.createdAt ?? '',
      rows: r?.header.rows === undefined ? '' : String(r.header.rows),
      succeeded: count('succeeded') || count('completed'),
      failed: count('failed'),
      unknown: count('unknown'),
      state: r ? stateLabel(r) : 'damaged',
    });
    if (w) await w;
  }
  await sink.close();
  for (const d of damaged) ctx.log.warn(`payops: ${d.error.message}\n  ${d.error.hint}`);
  if (rows.length === 0) ctx.log.info('no runs yet');
  return damaged.length > 0 ? ExitCode.config : ExitCode.ok;
}
