// Which run a command works on, given the earlier runs of the same input at the same gateway: pure
// functions, so that the whole policy is one table (test/unit/lifecycle/decide.test.ts) and the commands
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
  /** Earlier runs of this input (by meaning, lifecycle/read.ts isSameInput), operation and gateway, newest first. */
  earlier: readonly RunInfo[];
  /**
   * The other runs of the same operation at the same gateway, newest first: named when `--resume`
   * finds no run of this input, as the ones the user may have meant.
   */
  nearby?: readonly RunInfo[];
  /** The operation (`refund`, …), as the list of nearby runs names it. */
  op: string;
  resume: boolean;
  force: boolean;
  /** --skip-done: rows the gateway already shows done are left out by the gateway check. */
  skipDone?: boolean;
  dryRun: boolean;
  /** The input as the user knows it: a file name, or "this order". */
  what: string;
  /** --plan given: --force is refused with a plan (approval/gate.ts), so no hint offers it. */
  planned?: boolean;
}

export function describeRun(r: RunInfo): string {
  return `run ${r.runId} of ${r.header.createdAt.slice(0, 19).replace('T', ' ')} UTC`;
}

/** How many runs `--resume` names when it finds none of this input. */
export const NEARBY_SHOWN = 3;

/** One line per run: id, date, input, state and rows — enough to tell which one was meant. */
export function nearbyLines(runs: readonly RunInfo[]): string[] {
  return runs.slice(0, NEARBY_SHOWN).map((r) => {
    const date = r.header.createdAt.slice(0, 19).replace('T', ' ');
    const input = r.header.inline ? 'one order by flags' : (r.header.label ?? r.header.file ?? '?');
    const rows = r.header.rows === undefined ? '' : `, ${r.header.rows} row${r.header.rows === 1 ? '' : 's'}`;
    return `${r.runId}  ${date} UTC  ${input}  (${r.state}${rows})`;
  });
}

/**
 * `--resume` with no run of this input: refused, since starting a new run is not what was asked
 * (the earlier run may be of another file, another gateway, or not exist). Names the closest runs.
 */
function nothingToResume(q: BulkRunQuestion): UsageError {
  const { op } = q;
  const nearby = q.nearby ?? [];
  const lines = nearbyLines(nearby);
  const list =
    lines.length > 0
      ? `\n  the latest ${op} runs at this gateway${nearby.length > lines.length ? ` (${lines.length} of ${nearby.length})` : ''}:\n${lines.map((l) => `    ${l}`).join('\n')}`
      : `\n  there is no ${op} run at this gateway at all`;
  return new UsageError(
    `there is no earlier run of ${q.what} to resume (the same rows, operation and gateway); nothing was sent${list}`,
    {
      hint:
        lines.length > 0
          ? 'run without --resume to start a new run, or `payops runs resume RUN-ID` to continue one of those'
          : 'run without --resume to start a new run',
    },
  );
}

/**
 * Bulk operations (capture, cancel, review, refund): an input already processed, or half processed,
 * is refused unless the user says which it is to be — `--resume` continues, `--force` starts over,
 * `--skip-done` sends what the gateway does not show done. `--resume` with nothing to continue is
 * refused. A dry run never refuses: it notes what a real run would find.
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
    if (q.dryRun) {
      return {
        action: 'new',
        note: `no earlier run of ${what} to resume: a run with --resume refuses (exit 2)`,
      };
    }
    return { action: 'refuse', error: nothingToResume(q) };
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
    if (unfinished && (q.skipDone || !finished)) {
      return {
        action: 'refuse',
        error: new UsageError(`${what} has an unfinished ${describeRun(unfinished)}; nothing was sent`, {
          hint: q.planned
            ? 'add --resume to continue it (nothing is sent twice); it keeps its plan'
            : 'add --resume to continue it (nothing is sent twice), or --force to start a new run anyway',
        }),
      };
    }
    if (finished && q.skipDone) {
      // The gateway check leaves out every row it shows done: only what is still to do is sent.
      return {
        action: 'new',
        note: `${what} was already processed by ${describeRun(finished)}: --skip-done sends only the rows the gateway does not show done`,
      };
    }
    if (finished) {
      return {
        action: 'refuse',
        error: new UsageError(`${what} was already processed by ${describeRun(finished)}; nothing was sent`, {
          hint: `see its results with \`payops runs show ${finished.runId}\`; --skip-done sends only the rows the gateway does not show done; ${q.planned ? 'to send everything again, make and approve a new plan' : 'to send everything again on purpose, add --force'}`,
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
  /** The other payout runs at this gateway, newest first: named when `--resume` finds none of this input. */
  nearby?: readonly RunInfo[];
  resume: boolean;
  force: boolean;
  /** --new-request-ids: the payouts are meant to be paid again, under new request_ids. */
  newRequestIds?: boolean;
  /** With resume: this run (from `payops runs resume ID`) rather than the newest unfinished one. */
  runId?: string | undefined;
  /** The input as the user named it. */
  what: string;
}

/**
 * Payouts are idempotent at the gateway on request_id, so nothing is refused here: a re-run takes
 * the request_ids of the latest run of the same payouts (the gateway then pays nobody twice), also
 * with `--force` (which only overrides the refusals of changed and possibly done payouts), `--resume`
 * continues an unfinished run, and only `--new-request-ids` starts with new request_ids.
 */
export function decidePayoutRun(q: PayoutRunQuestion): PayoutRunDecision {
  if (q.resume) {
    const run = q.sameInput.find(
      (r) => r.state === 'interrupted' && (q.runId === undefined || r.runId === q.runId),
    );
    if (run) return { action: 'resume', run };
    const lines = q.sameInput.length > 0 ? [] : nearbyLines(q.nearby ?? []);
    const list =
      lines.length > 0
        ? `\n  the latest payout runs at this gateway:\n${lines.map((l) => `    ${l}`).join('\n')}`
        : '';
    return {
      action: 'refuse',
      error: new UsageError(`there is no unfinished payout run of ${q.what} to resume${list}`, {
        hint:
          q.sameInput.length > 0
            ? `its last run ${q.sameInput[0]!.runId} finished; run without --resume to send the same request_ids again (the gateway will not pay twice)`
            : lines.length > 0
              ? 'run it without --resume, or `payops runs resume RUN-ID` to continue one of those'
              : 'run it without --resume',
      }),
    };
  }
  if (q.newRequestIds || q.latest === undefined) return { action: 'new' };
  return { action: 'new', reuseFrom: q.latest };
}
