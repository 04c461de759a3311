// The registry of used plans (docs/approvals.md): `<state>/plans/<planId>.json` names the run a plan
// started, so that an approved plan moves money once. Claimed with O_EXCL semantics (a complete file
// linked into place: two processes never both claim one plan) before the run's journal begins; a
// claim whose run never began (the confirmation declined, the gateway check refused) is stale and
// given up — a run folder that was never made sent nothing. Marked begun once its journal exists (a
// run folder missing after that was moved aside: refused), finished when its run finishes.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { syncFolder } from '../lifecycle/fs-sync.js';
import { writingState } from '../lifecycle/paths.js';

export interface PlanUse {
  planId: string;
  planDigest: string;
  op: string;
  runId: string;
  startedAt: string;
  /**
   * When the run's journal was begun: from then on the entry is a use, not a claim — a run folder
   * missing later was moved aside, and the plan is refused, never free again (fail closed).
   */
  begunAt?: string;
  /** When the run finished (its terminal record `finished`). */
  finishedAt?: string;
  /**
   * The run's journal head when it finished (lifecycle/chain.ts): kept outside the journal, so that
   * `runs verify --journal` sees its last records changed or cut away (docs/audit.md).
   */
  head?: string;
}

/** A plan id as a file name: what `payops plan` makes, nothing a path could be built from. */
export const PLAN_ID = /^[A-Za-z0-9_-]{8,64}$/;

export function plansDir(state: string): string {
  return join(state, 'plans');
}

function usePath(state: string, planId: string): string {
  if (!PLAN_ID.test(planId)) throw new Error(`not a plan id: ${JSON.stringify(planId)}`);
  return join(plansDir(state), `${planId}.json`);
}

/** What the registry says of a plan; undefined when no run used it. A damaged entry is refused (fail closed). */
export async function readUse(state: string, planId: string): Promise<PlanUse | undefined> {
  const path = usePath(state, planId);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const use = JSON.parse(text) as PlanUse;
    if (use.planId === planId && typeof use.runId === 'string' && typeof use.startedAt === 'string') {
      return use;
    }
  } catch {
    // said below
  }
  throw new ConfigError(
    `the registry of used plans holds a damaged entry for plan ${planId} (${path}); payops cannot tell whether it was used, so nothing was sent`,
    { hint: 'check which run used that plan (payops runs list), then move the entry aside' },
  );
}

/** A complete temporary file beside `path`, flushed; resolves to its name. */
async function written(path: string, use: PlanUse): Promise<string> {
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await open(temp, 'wx', 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(use, undefined, 2)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return temp;
}

/**
 * Names `use.runId` as the plan's run. `replace`: the stale entry read just before (its run never
 * began), given up. Resolves to false when another process claimed the plan first.
 */
export async function claimPlan(state: string, use: PlanUse, replace?: PlanUse): Promise<boolean> {
  const path = usePath(state, use.planId);
  return writingState(state, async () => {
    await mkdir(plansDir(state), { recursive: true, mode: 0o700 });
    const temp = await written(path, use);
    try {
      if (replace) await rename(temp, path);
      else {
        try {
          await link(temp, path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
          throw err;
        }
      }
    } finally {
      await unlink(temp).catch(() => {});
    }
    await syncFolder(plansDir(state));
    return true;
  });
}

/** The entry rewritten with `more`, durably. */
async function rewrite(state: string, use: PlanUse, more: Partial<PlanUse>): Promise<void> {
  const path = usePath(state, use.planId);
  const temp = await written(path, { ...use, ...more });
  await rename(temp, path).catch(async (err: unknown) => {
    await unlink(temp).catch(() => {});
    throw err;
  });
  await syncFolder(plansDir(state));
}

/** The plan's run has its journal: said in its entry before anything is sent (while it names that run). */
export async function markBegun(state: string, planId: string, runId: string): Promise<void> {
  const use = await readUse(state, planId);
  if (!use || use.runId !== runId || use.begunAt !== undefined) return;
  await rewrite(state, use, { begunAt: new Date().toISOString() });
}

/** The plan's run finished: said in its entry (while the entry still names that run). */
export async function markFinished(
  state: string,
  planId: string,
  runId: string,
  at: string,
  head: string | undefined,
): Promise<void> {
  const use = await readUse(state, planId);
  if (!use || use.runId !== runId || use.finishedAt !== undefined) return;
  await rewrite(state, use, { finishedAt: at, ...(head === undefined ? {} : { head }) });
}

/** Whether the entry says its run began (its journal was written), not a bare claim. */
export function began(use: PlanUse): boolean {
  return use.begunAt !== undefined || use.finishedAt !== undefined;
}

/** A claim whose run never began: removed (while it still names that run, and never once it began). */
export async function dropClaim(state: string, planId: string, runId: string): Promise<void> {
  const use = await readUse(state, planId);
  if (use?.runId === runId && !began(use)) await unlink(usePath(state, planId)).catch(() => {});
}
