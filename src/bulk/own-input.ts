// The input a resumed bulk run goes on from, when the run was found by what its file means
// (lifecycle/read.ts isSameInput) rather than by its bytes.
import type { Context } from '../context.js';
import type { RunInfo } from '../lifecycle/read.js';
import { runInput } from './input.js';
import { type BulkPlan, planBulk } from './plan/plan.js';
import { RowCache } from './plan/row-cache.js';

/**
 * What a run found by `--resume` goes on from: its own input copy, whose line numbers its journal
 * records. The file given now was matched by what it means, so it may be other bytes — saved again
 * with other line ends or a BOM, columns moved or added, rows in another order. Unless it is byte
 * for byte the run's input, the copy is planned again (checked against its SHA-256 first) and the
 * new file is not read further; the note says whose line numbers the results carry.
 */
export async function ownInput(
  ctx: Context,
  state: string,
  run: RunInfo,
  given: BulkPlan,
  cache: RowCache | undefined,
  dryRun: boolean,
): Promise<{ plan: BulkPlan; cache: RowCache | undefined; note?: string }> {
  if (run.header.sha256 === given.sha256) return { plan: given, cache };
  const { path, label, readAs } = await runInput(state, run.header);
  const own = dryRun ? undefined : new RowCache();
  const inline = Boolean(run.header.inline);
  const plan = await planBulk(
    given.op,
    { path, label, ...(inline ? { inline } : {}), ...(readAs ? { readAs } : {}) },
    {},
    own,
  );
  const what = given.source.inline ? 'this order' : given.source.label;
  const copy = inline ? 'the order it was given' : label;
  ctx.log.verbose(`resuming from the input copy of run ${run.runId}: ${path}`);
  return {
    plan,
    cache: own,
    note: `${what} has the same rows as run ${run.runId} but other bytes: the run goes on from its own copy of ${copy}, and line numbers are that copy's`,
  };
}
