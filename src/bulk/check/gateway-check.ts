// The check at the gateway around a run (preflight.ts does the look-ups): before a new run, which
// rows are already done (refused unless --skip-done or --force); before a resumed run sends rows
// no process of it has sent, which were done meanwhile; and whether --no-check may leave it out.
import type { ResolvedConfig } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { AuthError, ConfigError, InputError, PayopsError, UsageError, withHint } from '../../errors.js';
import type { GatewayClient } from '../../gateway/client.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { keepOldGenerationSmall } from '../engine/heap.js';
import type { PreflightRecord } from '../engine/records.js';
import { type FoldedRun, sendsOf, skippedRows } from '../engine/run-state.js';
import type { BulkFlags } from '../flags.js';
import { inputRows } from '../input.js';
import { OPERATIONS } from '../operations.js';
import type { BulkPlan } from '../plan/plan.js';
import type { RowCache } from '../plan/row-cache.js';
import { showChecking } from '../report/ui.js';
import type { BulkRow } from '../types.js';
import type { LookAhead } from './look-ahead.js';
import { type PartlyRefunded, preflight } from './preflight.js';

/**
 * Preflight (preflight.ts): which rows the gateway already shows done. A run refuses such rows
 * (exit 2, each listed with where it was found) unless --skip-done leaves them out or --force sends
 * them anyway; a dry run only reports them. A dry run without a sign key cannot ask: it says so.
 */
export async function checkAtGateway(
  ctx: Context,
  plan: BulkPlan,
  cache: RowCache | undefined,
  flags: BulkFlags,
  dryRun: boolean,
  config: ResolvedConfig,
  ahead?: LookAhead,
): Promise<{ record: PreflightRecord; partly: PartlyRefunded[] } | undefined> {
  let client: GatewayClient;
  try {
    client = await ctx.client();
  } catch (err) {
    if (dryRun && err instanceof ConfigError) {
      ctx.log.info(`  not checked at the gateway: ${err.message}`);
      return undefined;
    }
    throw err;
  }
  // The row cache is read by position: the look-ups need only the ids of most rows (preflight.ts).
  const rows = cache?.complete ? cache : inputRows(plan.op, plan.source);
  // The look-ups allocate as sending does: the same bound on the old generation (execute.ts).
  if (!dryRun) keepOldGenerationSmall();
  let found: Awaited<ReturnType<typeof preflight>>;
  const clearChecking = showChecking(ctx, plan.rows);
  try {
    found =
      (await ahead?.finish()) ??
      (await preflight(plan.op, client, rows, ctx.globals.concurrency ?? config.concurrency));
  } catch (err) {
    clearChecking();
    // A dry run still checks the file when the gateway cannot be asked; a run never goes on blind.
    if (dryRun && err instanceof PayopsError) {
      ctx.log.info(`  not checked at the gateway: ${err.message}`);
      return undefined;
    }
    // A look-up's error (a timeout, say) knows nothing of the refunds not yet sent: said here.
    const refused = queryRefused(plan.op, err);
    if (refused) throw refused;
    if (err instanceof PayopsError && !/nothing was sent/.test(`${err.message} ${err.hint ?? ''}`)) {
      throw withHint(
        err,
        'nothing was sent: payops asks the gateway which rows are already done before it sends any',
      );
    }
    throw err;
  }
  clearChecking();
  const possible = found.done.filter((d) => d.possible).map((d) => d.line);
  const record: PreflightRecord = {
    type: 'preflight',
    before: found.before,
    done: found.done.map((d) => [d.line, d.where]),
    ...(possible.length > 0 ? { possible } : {}),
    skip: Boolean(flags.skipDone),
  };
  const spec = OPERATIONS[plan.op];
  const already = (d: { possible?: true }) => `${d.possible ? 'possibly ' : ''}already ${spec.words.done}`;
  if (dryRun && found.done.length > 0) {
    // The rows a run would refuse, as it would list them (the plan line below counts them).
    const shown = found.done.slice(0, 20);
    for (const d of shown) ctx.log.info(`  ${plan.source.label}:${d.line} ${already(d)}: ${d.where}`);
    if (found.done.length > shown.length) ctx.log.info(`  … and ${found.done.length - shown.length} more`);
  }
  if (found.done.length > 0 && !dryRun && !flags.skipDone && !flags.force) {
    const rows = `${found.done.length} of ${plan.rows} rows ${found.done.length === 1 ? 'is' : 'are'}`;
    throw new InputError(
      possible.length === 0
        ? `${plan.source.label}: ${rows} already ${spec.words.done} at the gateway; nothing was sent`
        : `${plan.source.label}: ${rows} already or possibly ${spec.words.done} at the gateway (${possible.length} by a refund of the same amount with another reason); nothing was sent`,
      found.done.map((d) => ({
        file: plan.source.label,
        line: d.line,
        message: `${already(d)}: ${d.where}`,
      })),
      {
        // With --plan, --force is refused (approval/gate.ts): what is still owed needs a new plan.
        hint:
          possible.length === 0
            ? `--skip-done sends only the other rows (these are reported already_done); ${flags.plan === undefined ? '--force sends these too' : 'to send these too, make and approve a new plan'}`
            : `a row possibly done has the amount of a refund made with another reason, perhaps the same refund typed another way: look at it at the gateway; if it is a refund still owed, ${flags.plan === undefined ? '--force sends it' : 'a new plan of it, approved, sends it'}; --skip-done sends only the other rows (rows done are reported already_done, rows possibly done skipped)`,
      },
    );
  }
  return { record, partly: found.partly };
}

/**
 * --no-check is for the operations whose check is order query, which the gateway answers only from
 * registered IP addresses; an operation whose entry says the check is required (`checkRequired`:
 * a refund, whose check is answered from anywhere and which the gateway applies twice) keeps it.
 */
export function assertNoCheckFits(op: BatchOperation, flags: BulkFlags): void {
  const required = OPERATIONS[op].checkRequired;
  if (required !== undefined) throw new UsageError(required, { hint: 'run it without --no-check' });
  if (flags.skipDone) {
    throw new UsageError(
      '--skip-done needs the gateway check that --no-check leaves out: give one of them; nothing was sent',
    );
  }
}

/**
 * The check of a capture, cancel or review is order query, which the gateway answers only from
 * registered IP addresses (E1003): say so, and what to do, rather than only that the IP was refused.
 */
function queryRefused(op: BatchOperation, err: unknown): AuthError | undefined {
  if (!(err instanceof AuthError) || err.code !== 'E1003' || OPERATIONS[op].reconcile.by !== 'query') return;
  return new AuthError(
    `payops checks at the gateway which orders are already ${OPERATIONS[op].words.done} before a ${op} run, with order query, which the gateway answers only from registered IP addresses — ${err.message}; nothing was sent`,
    err.code,
    {
      hint: `ask the gateway to register this machine's IP address for order query (\`payops status\` shows whether it may query), or add --no-check to ${op} without the check (the gateway still refuses to ${op} an order twice)`,
    },
  );
}

/** The rows not in `leave`; the transactions of those left out are added to `leftTx`. */
async function* unsettled<R extends BulkRow>(
  rows: AsyncIterable<R> | Iterable<R>,
  leave: ReadonlySet<number>,
  leftTx: Set<string>,
) {
  for await (const r of rows) {
    if (!leave.has(r.line)) yield r;
    else leftTx.add(r.transaction_id);
  }
}

/**
 * Before a resumed run sends rows no process of it has sent yet, it asks the gateway again: rows
 * done there since the run began — by another run of the same orders, another machine, the
 * merchant portal — are not sent, and are reported already_done. A refund the gateway had before
 * the run (its preflight record) does not count: those rows were sent on purpose (--force).
 */
export async function recheckUntouched(
  ctx: Context,
  plan: BulkPlan,
  run: FoldedRun,
  cache: RowCache | undefined,
  client: GatewayClient,
  config: ResolvedConfig,
): Promise<Array<[number, string]>> {
  const leave = new Set<number>(skippedRows(run).keys());
  for (const s of run.chunks.values()) {
    if (s.open && !s.notSent) for (const line of s.intent?.lines ?? []) leave.add(line);
    // Rows a request of this run may have reached are the run's to settle (reconciled, where a
    // second refund shows as duplicated), not someone else's work.
    for (const o of s.rows ?? []) if (o.outcome !== 'not_sent' || sendsOf(s, o.line) > 0) leave.add(o.line);
  }
  const leftTx = new Set<string>();
  const rows = unsettled(cache?.complete ? cache.rows() : inputRows(plan.op, plan.source), leave, leftTx);
  let found: Awaited<ReturnType<typeof preflight>>;
  try {
    found = await preflight(plan.op, client, rows, ctx.globals.concurrency ?? config.concurrency);
  } catch (err) {
    throw queryRefused(plan.op, err) ?? err;
  }
  const before = new Set(Object.values(run.preflight?.before ?? {}).flat());
  const doneBefore = new Set((run.preflight?.done ?? []).map(([line]) => line));
  const fresh = found.done.filter(
    (d) =>
      (d.ref !== undefined ? !before.has(d.ref) : !doneBefore.has(d.line)) &&
      // A refund new since the run began, of an order this run sent other rows of, may be this
      // run's own (another row of the same amount and another reason): it proves nothing of this row.
      !(d.possible && leftTx.has(d.tx ?? '')),
  );
  if (fresh.length > 0) {
    ctx.log.warn(
      `payops: ${fresh.length} row${fresh.length === 1 ? ' was' : 's were'} done at the gateway since this run began (another run, machine or the portal): not sent, reported already_done`,
    );
  }
  return fresh.map((d) => [d.line, `done at the gateway since this run began: ${d.where}`]);
}
