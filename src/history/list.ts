// `payops runs list`: every run (bulk and payout), newest first, with its counts when it recorded them.

import { openResultSink } from '../bulk/ui.js';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { listRuns } from '../runs/read.js';

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

export async function listRunsCommand(ctx: Context): Promise<number> {
  const runs = await listRuns(stateDir(ctx.io.env));
  const sink = await openResultSink(ctx, [...RUN_LIST_COLUMNS]);
  for (const r of runs) {
    const counts = r.terminal?.counts ?? {};
    const count = (k: string) => (typeof counts[k] === 'number' ? String(counts[k]) : '');
    const w = sink.write({
      id: r.runId,
      op: r.header.op,
      file: String(r.header.label ?? r.header.file ?? ''),
      created: r.header.createdAt,
      rows: r.header.rows === undefined ? '' : String(r.header.rows),
      succeeded: count('succeeded') || count('completed'),
      failed: count('failed'),
      unknown: count('unknown'),
      state: r.state,
    });
    if (w) await w;
  }
  await sink.close();
  if (runs.length === 0) ctx.log.info('no runs yet');
  return 0;
}
