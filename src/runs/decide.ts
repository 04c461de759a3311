// Which run a command works on, given the earlier runs of the same input at the same gateway: pure
// functions, so that the whole policy is one table (test/unit/runs/decide.test.ts) and the commands
// only carry it out.
import { UsageError } from '../errors.js';
import type { RunInfo } from './read.js';

export type RunDecision =
  /** Start a new run; `note` says why, when earlier runs exist. */
  | { action: 'new'; note?: string }
  /** Continue this unfinished run. */
  | { action: 'resume'; run: RunInfo }
  /** Nothing to do: show this finished run's results. `note` tells the user so. */
  | { action: 'show'; run: RunInfo; note: string }
  /** Refuse, sending nothing. */
  | { action: 'refuse'; error: UsageError };

export interface BulkRunQuestion {
  /** Earlier runs of this input, operation and gateway, newest first. */
  earlier: readonly RunInfo[];
  resume: boolean;
  force: boolean;
  dryRun: boolean;
  /** The input as the user knows it: a file name, or "this order". */
  what: string;
}

export function describeRun(r: RunInfo): string {
  return `run ${r.runId} of ${r.header.createdAt.slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * Bulk operations (capture, cancel, review, refund): an input already processed, or half processed,
 * is refused unless the user says which it is to be — `--resume` continues, `--force` starts over.
 * A dry run never refuses: it notes what a real run would find.
 */
export function decideRun(q: BulkRunQuestion): RunDecision {
  const unfinished = q.earlier.find((r) => r.state !== 'finished');
  const finished = q.earlier.find((r) => r.state === 'finished');
  const { what } = q;
  if (q.resume) {
    if (unfinished) return { action: 'resume', run: unfinished };
    if (finished) {
      return {
        action: 'show',
        run: finished,
        note: `${what} was already processed to the end by ${describeRun(finished)}: its results follow.`,
      };
    }
    return { action: 'new', note: `no earlier run of ${what} to resume: starting a new run` };
  }
  if (q.force) {
    const latest = q.earlier[0];
    return latest
      ? {
          action: 'new',
          note: `--force: earlier runs of ${what} are ignored (latest: ${describeRun(latest)})`,
        }
      : { action: 'new' };
  }
  if (!q.dryRun) {
    if (finished) {
      return {
        action: 'refuse',
        error: new UsageError(`${what} was already processed by ${describeRun(finished)}; nothing was sent`, {
          hint: `see its results with \`payops runs show ${finished.runId}\`; to send everything again on purpose, add --force`,
        }),
      };
    }
    if (unfinished) {
      return {
        action: 'refuse',
        error: new UsageError(`${what} has an unfinished ${describeRun(unfinished)}; nothing was sent`, {
          hint: 'add --resume to continue it (nothing is sent twice), or --force to start a new run anyway',
        }),
      };
    }
    return { action: 'new' };
  }
  if (finished) return { action: 'new', note: `already processed by ${describeRun(finished)}` };
  if (unfinished) {
    return { action: 'new', note: `an unfinished ${describeRun(unfinished)} exists (--resume continues it)` };
  }
  return { action: 'new' };
}

export type PayoutRunDecision =
  /** Continue this unfinished run with its request_ids. */
  | { action: 'resume'; run: RunInfo }
  /** A new run; `reuseFrom` is the earlier run whose request_ids the same payouts take again. */
  | { action: 'new'; reuseFrom?: RunInfo }
  | { action: 'refuse'; error: UsageError };

export interface PayoutRunQuestion {
  /** Earlier payout runs of the same bytes at the same gateway, newest first. */
  sameInput: readonly RunInfo[];
  /** The newest payout run at this gateway of the same file path or the same bytes. */
  latest: RunInfo | undefined;
  resume: boolean;
  force: boolean;
  /** With resume: this run (from `payops runs resume ID`) rather than the newest unfinished one. */
  runId?: string | undefined;
  /** The input as the user named it. */
  what: string;
}

/**
 * Payouts are idempotent at the gateway on request_id, so nothing is refused: a re-run takes the
 * request_ids of the latest run of the same file (the gateway then pays nobody twice), `--resume`
 * continues an unfinished run, and `--force` starts with new request_ids.
 */
export function decidePayoutRun(q: PayoutRunQuestion): PayoutRunDecision {
  if (q.resume) {
    const run = q.sameInput.find(
      (r) => r.state === 'interrupted' && (q.runId === undefined || r.runId === q.runId),
    );
    if (run) return { action: 'resume', run };
    return {
      action: 'refuse',
      error: new UsageError(`there is no unfinished payout run of ${q.what} to resume`, {
        hint:
          q.sameInput.length > 0
            ? `its last run ${q.sameInput[0]!.runId} finished; run without --resume to send the same request_ids again (the gateway will not pay twice)`
            : 'run it without --resume',
      }),
    };
  }
  if (q.force || q.latest === undefined) return { action: 'new' };
  return { action: 'new', reuseFrom: q.latest };
}
