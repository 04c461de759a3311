// Which run `payops runs show` and `payops runs resume` mean when no id is typed, and which runs
// need someone's attention (also listed by `payops status`).
//
// show: the newest run, whatever its state (like `git show` with no commit).
// resume: the one unfinished run that can be resumed. With several, it refuses and lists them:
// resuming sends money, so it does not pick one on a guess, even the newest.
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { listRuns, type RunInfo } from '../lifecycle/read.js';
import { stateLabel } from './state-label.js';

/** Outcomes a finished run can still have rows in that someone must look at. */
const OPEN_OUTCOMES = ['unknown', 'not_sent', 'duplicated'] as const;

export interface AttentionRun {
  runId: string;
  op: string;
  file: string;
  /** Why it needs attention, in plain words. */
  why: string;
  /** The command that deals with it. */
  command: string;
}

function label(r: RunInfo): string {
  return String(r.header.label ?? r.header.file ?? '');
}

/** An interrupted run that can be resumed (an in-process sandbox's runs cannot: it is gone). */
function resumable(r: RunInfo): boolean {
  return r.state === 'interrupted' && !r.header.sandbox;
}

/** The run id for `runs show` without one: the newest run. */
export async function latestRunId(ctx: Context): Promise<string> {
  const runs = await listRuns(stateDir(ctx.io.env));
  const newest = runs[0];
  if (newest === undefined) throw new UsageError('there are no runs yet: nothing to show');
  ctx.log.info(`run ${newest.runId} (the newest; ${newest.header.op} ${label(newest)})`);
  return newest.runId;
}

/** The run id for `runs resume` without one: the only unfinished run, or a refusal listing them. */
export async function unfinishedRunId(ctx: Context): Promise<string> {
  const open = (await listRuns(stateDir(ctx.io.env))).filter(resumable);
  if (open.length === 0)
    throw new UsageError('no unfinished run to resume', { hint: 'see `payops runs list`' });
  if (open.length > 1) {
    const lines = open.map((r) => `  payops runs resume ${r.runId}   (${r.header.op} ${label(r)})`);
    throw new UsageError(`${open.length} runs are unfinished; say which one to resume:\n${lines.join('\n')}`);
  }
  const only = open[0]!;
  ctx.log.info(`run ${only.runId} (the only unfinished run; ${only.header.op} ${label(only)})`);
  return only.runId;
}

/** Runs someone must act on, newest first: unfinished ones, and finished ones with open rows. */
export function runsNeedingAttention(runs: readonly RunInfo[]): AttentionRun[] {
  const out: AttentionRun[] = [];
  for (const r of runs) {
    const base = { runId: r.runId, op: r.header.op, file: label(r) };
    if (resumable(r)) {
      out.push({ ...base, why: stateLabel(r), command: `payops runs resume ${r.runId}` });
      continue;
    }
    if (r.state !== 'finished') continue;
    const counts = r.terminal?.counts ?? {};
    const open = OPEN_OUTCOMES.filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${k}`);
    if (open.length > 0) {
      out.push({
        ...base,
        why: open.join(', '),
        command: `payops runs show ${r.runId} --only ${OPEN_OUTCOMES.join(',')} --out fix.csv`,
      });
    }
  }
  return out;
}
