// `payops runs list`: every run (bulk and payout), newest first, with its counts when it recorded them.

import { openResultSink } from '../bulk/report/ui.js';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { listRunsChecked } from '../lifecycle/read.js';
import { stateLabel } from './state-label.js';

export { stateLabel };

export const RUN_LIST_COLUMNS = [
  'id',
  'op',
  'file',
  'created',
  'rows',
  'succeeded',
  // Rows the gateway already showed done (--skip-done): without it an all-done run read "0".
  'already_done',
  'failed',
  'unknown',
  // Rows refunded twice (a gateway that committed later than --settle-time): never out of sight.
  'duplicated',
  'state',
] as const;

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
      already_done: count('already_done'),
      failed: count('failed'),
      unknown: count('unknown'),
      duplicated: count('duplicated'),
      state: r ? stateLabel(r) : 'damaged',
    });
    if (w) await w;
  }
  await sink.close();
  for (const d of damaged) ctx.log.warn(`payops: ${d.error.message}\n  ${d.error.hint}`);
  if (rows.length === 0) ctx.log.info('no runs yet');
  return damaged.length > 0 ? ExitCode.config : ExitCode.ok;
}
