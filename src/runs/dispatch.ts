// `payops runs show ID` and `payops runs resume ID`: find what kind of run ID is, and hand it to
// the module that owns that kind (bulk operations or payouts).
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { BATCH_OPERATIONS } from '../gateway/endpoints.js';
import { readRunHeader } from '../lifecycle/read.js';
import type { RunHeader } from '../lifecycle/records.js';

async function headerOf(ctx: Context, runId: string): Promise<RunHeader> {
  // Only the header is needed here; the module that owns the run reads its records.
  const header = await readRunHeader(stateDir(ctx.io.env), runId);
  if (header.op !== 'payout' && !(BATCH_OPERATIONS as readonly string[]).includes(header.op)) {
    throw new UsageError(`run ${runId} is a ${header.op} run, which payops runs cannot show or resume`);
  }
  return header;
}

/** Results of a run regenerated from its journal; sends nothing. */
export async function showRunById(ctx: Context, runId: string, only?: string): Promise<number> {
  const header = await headerOf(ctx, runId);
  if (header.op === 'payout') {
    if (only !== undefined) {
      throw new UsageError('--only is for refund, capture, cancel and review runs', {
        hint: `run ${runId} is a payout run: \`payops runs show ${runId} --output csv\` has every payout and its status`,
      });
    }
    return (await import('../payout/runs.js')).showPayoutRun(ctx, runId);
  }
  const show = await import('../bulk/report/show.js');
  return show.showBulkRun(ctx, runId, only === undefined ? undefined : show.parseOnly(only));
}

/**
 * What the gateway shows now for every row a refund run sent, against what it reported; with
 * `journal`, the journal's hash chain instead, offline, for a run of any kind.
 */
export async function verifyRunById(
  ctx: Context,
  runId: string,
  opts: { journal?: boolean; head?: string } = {},
): Promise<number> {
  if (opts.head !== undefined && !opts.journal) {
    throw new UsageError('--head is for --journal', {
      hint: `payops runs verify ${runId} --journal --head ${opts.head}`,
    });
  }
  if (opts.journal) return (await import('./verify-journal.js')).verifyJournalCommand(ctx, runId, opts.head);
  const header = await headerOf(ctx, runId);
  if (header.op === 'payout') {
    throw new UsageError(
      `run ${runId} is a payout run: payouts are idempotent on request_id; see \`payops runs show ${runId}\``,
    );
  }
  return (await import('../bulk/report/verify.js')).verifyBulkRun(ctx, header);
}

/** Continue an unfinished run against the same gateway. */
export async function resumeRunById(ctx: Context, runId: string): Promise<number> {
  const header = await headerOf(ctx, runId);
  if (header.op === 'payout') return (await import('../payout/runs.js')).resumePayoutRun(ctx, runId);
  return (await import('../bulk/run-bulk.js')).resumeBulkRun(ctx, header);
}
