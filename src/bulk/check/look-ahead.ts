// The gateway check before a run (preflight.ts), started while pass 1 is still reading the file.
// Pass 1 is this process's own work; the look-ups mostly wait for the gateway. One after the other,
// 100,000 refunds spent ~0.5 s reading, then ~0.6 s looking up with the client half idle. Started
// as the row cache cuts each batch of ids, the two overlap.
//
// The look-ups only read. They stop at the first row with a problem, or past --max-orders (a file
// that is refused sends no more of them), and their answer counts only for a run that starts new
// with no earlier run of its input (run.ts): any other decision (resume, refuse, show, a re-run)
// stops them and throws it away. The answer is the same one preflight gives after pass 1: the same
// batches, read from the same row cache, compared in the same order.
import { setMaxListeners } from 'node:events';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stateDir } from '../../config/paths.js';
import type { ResolvedConfig } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import type { GatewayClient } from '../../gateway/client.js';
import { JOURNAL_FILE, runsDir } from '../../lifecycle/paths.js';
import type { RunInfo } from '../../lifecycle/read.js';
import { keepOldGenerationSmall } from '../engine/heap.js';
import type { LookUpBatch, RowCache } from '../plan/row-cache.js';
import type { BatchOperation } from '../types.js';
import { lookUpConcurrency, lookUpLimit, type PreflightResult, preflight } from './preflight.js';

/** Thrown into a look-up waiting to try again once the look-ahead is stopped: it ends there. */
class Stopped extends Error {}

/**
 * Once the input lock is held and the run decided: the look-ahead's answer stands only for a new
 * run that nothing can have overtaken. The look-ups began before the lock: a run of the same input
 * that ended meanwhile (its lock released) may have done rows after them, which would not show
 * done (--skip-done sent them again) and whose refunds reconciliation would take for this run's;
 * so may a run of another file (the same orders, say), which the lock never keeps out. Otherwise
 * it is stopped, and the check is made again now.
 */
export async function keepIfNothingMoved(
  ahead: LookAhead | undefined,
  newRun: boolean,
  /** Earlier runs of this input, and every run of the operation at this gateway (run.ts). */
  earlier: readonly RunInfo[],
  here: readonly RunInfo[],
): Promise<void> {
  if (ahead === undefined) return;
  if (!newRun || earlier.length > 0 || (await runsWroteSince(here, ahead.journalsBefore))) ahead.stop();
}

/**
 * Every run's journal as it stood before the first look-up: its size, time and inode, compared
 * as they are, never against a clock (a journal only grows, so any write changes it). A run
 * folder that is not there yet, or a journal that cannot be read, reads as changed.
 */
async function journalsNow(state: string): Promise<ReadonlyMap<string, string>> {
  const dir = runsDir(state);
  const names = await readdir(dir).catch(() => [] as string[]);
  const out = new Map<string, string>();
  await Promise.all(names.map(async (name) => out.set(name, await journalMark(join(dir, name)))));
  return out;
}

async function journalMark(runFolder: string): Promise<string> {
  return stat(join(runFolder, JOURNAL_FILE)).then(
    (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
    () => 'unreadable',
  );
}

/** Whether one of `runs` may have sent since `before` was taken: running now, or its journal changed. */
async function runsWroteSince(
  runs: readonly RunInfo[],
  before: ReadonlyMap<string, string>,
): Promise<boolean> {
  for (const r of runs) {
    if (r.state === 'running') return true;
    const then = before.get(basename(r.dir));
    if (then === undefined || then === 'unreadable' || then !== (await journalMark(r.dir))) return true;
  }
  return false;
}

export class LookAhead {
  /** The runs' journals before the first look-up (journalsNow): see keepIfNothingMoved. */
  readonly journalsBefore: ReadonlyMap<string, string>;
  private readonly waiting: LookUpBatch[] = [];
  private next = 0;
  private offered = 0;
  private ended = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly pauses = new Set<() => void>();
  private readonly abort = new AbortController();
  private readonly limit: number;
  private readonly maxRows: number | undefined;
  private readonly result: Promise<PreflightResult>;

  constructor(
    op: BatchOperation,
    client: GatewayClient,
    private readonly cache: RowCache,
    concurrency: number,
    options: {
      /** --max-orders: a file with more rows is refused after pass 1, so none past it is looked up. */
      maxRows?: number;
      /** The runs' journals before the first look-up (journalsNow): see keepIfNothingMoved. */
      journalsBefore?: ReadonlyMap<string, string>;
    } = {},
  ) {
    this.journalsBefore = options.journalsBefore ?? new Map();
    this.maxRows = options.maxRows;
    this.limit = lookUpLimit(op);
    // Every look-up in flight listens to the one stop signal (the transport, and --rate's wait):
    // up to 16 at once made node warn of a leak on the user's terminal past ten.
    setMaxListeners(2 * lookUpConcurrency(concurrency) + 10, this.abort.signal);
    cache.onLookUpBatch = (b) => this.offer(b);
    // A look-up the pool had read ahead before the stop is not begun, and one in flight is aborted
    // (the same client otherwise): unaborted, it went on to the end of --timeout and its retries,
    // and the client's pool, closed as the command ends, waited for it.
    const guarded: GatewayClient = Object.create(client);
    guarded.send = (name, body, opts) =>
      this.stopped
        ? Promise.reject(new Stopped())
        : client.send(name, body, { ...opts, signal: opts?.signal ?? this.abort.signal });
    this.result = preflight(op, guarded, cache, concurrency, {
      cut: this.batches(),
      sleep: (ms) => this.pause(ms),
    });
    // Kept for `finish`; the failure of a look-ahead that was stopped is nobody's.
    this.result.catch(() => {});
  }

  /** No more look-ups: a row had a problem, or the run will not start new. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.ended = true;
    this.waiting.length = 0;
    this.next = 0;
    this.cache.onLookUpBatch = undefined;
    this.wake?.();
    for (const end of this.pauses) end();
    this.abort.abort();
  }

  /**
   * After pass 1: the look-ups of the rows left, then the answer. Undefined when it cannot stand
   * for the check (stopped, or the row cache gave up keeping rows): the caller checks as before.
   * Throws what preflight throws (a gateway that cannot be asked).
   */
  async finish(): Promise<PreflightResult | undefined> {
    const all = this.stopped || !this.cache.complete ? undefined : this.cache.lookUpBatches(this.limit);
    if (all === undefined) {
      this.stop();
      return undefined;
    }
    for (let i = this.offered; i < all.length; i++) this.waiting.push(all[i]!);
    this.ended = true;
    this.cache.onLookUpBatch = undefined;
    this.wake?.();
    const result = await this.result;
    return this.cache.complete ? result : undefined;
  }

  private offer(batch: LookUpBatch): void {
    this.offered++;
    if (this.ended) return;
    if (this.maxRows !== undefined && batch.to > this.maxRows) {
      this.stop();
      return;
    }
    this.waiting.push(batch);
    this.wake?.();
  }

  private async *batches(): AsyncGenerator<LookUpBatch> {
    for (;;) {
      while (this.next < this.waiting.length) {
        // A cache that gave up its rows cannot give the rows of a batch that found something.
        if (this.stopped || !this.cache.complete) return;
        yield this.waiting[this.next++]!;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.reject(new Stopped());
    return new Promise<void>((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        this.pauses.delete(end);
        if (this.stopped) reject(new Stopped());
        else resolve();
      };
      const timer = setTimeout(end, ms);
      this.pauses.add(end);
    });
  }
}

/**
 * The look-ups of a new run's gateway check, started before pass 1 (lookAheadFor). None where the
 * gateway cannot be asked yet (no sign key, say): the check after pass 1 then says why, as before.
 */
async function startLookAhead(
  ctx: Context,
  op: BatchOperation,
  cache: RowCache,
  config: ResolvedConfig,
  maxRows: number | undefined,
): Promise<LookAhead | undefined> {
  if (config.signKey === undefined) return undefined;
  let client: GatewayClient;
  try {
    client = await ctx.client();
  } catch {
    return undefined;
  }
  // Taken before the first look-up can leave: what any run's journal looked like then.
  const journalsBefore = await journalsNow(stateDir(ctx.io.env));
  const ahead = new LookAhead(op, client, cache, ctx.globals.concurrency ?? config.concurrency, {
    journalsBefore,
    ...(maxRows === undefined ? {} : { maxRows }),
  });
  ctx.onClose(async () => ahead.stop());
  return ahead;
}

/**
 * The look-ahead of a run, when one is worth starting: only a run that may start new from a file
 * (not one order by flags, not --resume, not --no-check) whose rows pass 1 keeps in the row cache.
 * A run that sends also bounds the heap from the first look-up on (heap.ts: set only after pass 1,
 * a 100,000-row run peaked at 141 MB instead of ~122).
 */
export async function lookAheadFor(
  ctx: Context,
  op: BatchOperation,
  cache: RowCache | undefined,
  config: ResolvedConfig,
  run: {
    fromFile: boolean;
    resume: boolean;
    noCheck: boolean;
    dryRun: boolean;
    maxOrders?: number | undefined;
  },
): Promise<LookAhead | undefined> {
  if (cache === undefined || !run.fromFile || run.resume || run.noCheck) return undefined;
  const ahead = await startLookAhead(ctx, op, cache, config, run.maxOrders);
  if (ahead && !run.dryRun) keepOldGenerationSmall();
  return ahead;
}
