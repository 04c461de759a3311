// Pass 2 of a bulk run: the run's chunks through the ordered pool (bounded concurrency, read-ahead,
// in-order emit) and, for each, the per-chunk protocol (protocol.ts): send a new chunk, settle one
// an earlier process left open, or pass one the journal already settled. Showing a finished run
// sends nothing and does not come here (replay.ts).
import type { GatewayClient } from '../../gateway/client.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { wrapClient } from '../../gateway/wrap-client.js';
import type { RunJournal } from '../../lifecycle/journal.js';
import { type Dispatch, runOrderedPool } from '../../ordered-pool.js';
import type { BulkRow, Chunk, RowOutcome } from '../types.js';
import { ChunkProtocol, type Prepared, rowsToSend, type StopReason } from './protocol.js';
import type { BulkRecordWritten } from './records.js';
import { journaledOutcomes, withSkipped } from './replay.js';
import { type ChunkAction, type ChunkState, chunkAction, type SkippedRow } from './run-state.js';

export type { StopReason };

export interface EngineOptions<R extends BulkRow> {
  op: BatchOperation;
  /** The run's chunks in input order (the same chunks on every pass over the same file). */
  chunks: AsyncIterable<Chunk<R>> | Iterable<Chunk<R>>;
  client: GatewayClient;
  journal: RunJournal<BulkRecordWritten>;
  /** What an earlier process of this run recorded, per chunk (resume). */
  prior?: Map<number, ChunkState>;
  concurrency: number;
  /** Aborted: stop dispatching (SIGINT); in-flight chunks finish. */
  signal?: AbortSignal;
  /**
   * Aborted (a second SIGINT): the requests in flight are abandoned. Their rows stay unknown — the
   * intents were journaled before they left — and the reconciliation that would follow is not
   * asked either: a resumed run settles them.
   */
  abandon?: AbortSignal;
  /** Every chunk's row outcomes, in input order. */
  emit: (chunk: Chunk<R>, outcomes: RowOutcome[]) => void | Promise<void>;
  /** How long after a lost request its rows may be concluded not applied (ms): --settle-time. */
  settleMs: number;
  /** Requests per row at most in this process: --max-attempts. */
  maxAttempts: number;
  /** Rows waiting out the settle time, whenever that number changes (and the latest wait, ms). */
  onWaiting?: (rows: number, ms: number) => void;
  now?: () => Date;
  /**
   * What the gateway showed before the run (preflight; `before` absent in runs made before payops
   * asked), and the rows not sent: done before it (--skip-done) or elsewhere since it began.
   */
  preflight?: { before?: Readonly<Record<string, readonly string[]>>; skip: ReadonlyMap<number, SkippedRow> };
}

export interface EngineResult {
  /** Why dispatching stopped before the end, if it did. */
  stopped?: StopReason;
  /** The error behind `auth` / `journal` / `unreachable`. */
  error?: Error;
  /** Requests sent by this process (money-moving ones). */
  requests: number;
  /** Read-only reconciliation passes made by this process. */
  reconciled: number;
  /** Rows sent again after their request was proven not applied. */
  resent: number;
}

/**
 * Read-ahead of the pool: while one batch is dispatched, the intents of the next AHEAD + 1 batches
 * are written (one fsync per batch), so that fsync overlaps requests in flight instead of holding
 * up the next free slot. On ext4 an fdatasync also
 * waits for other files' dirty data (the results file): with one batch ahead a 100,000-refund run
 * still waited ~0.8 s for it, with two about 20 ms. A crash leaves these intents to be reconciled.
 */
const AHEAD = 2;

/**
 * Chunks whose intents share one fsync (at least the concurrency). A run can send no faster than
 * this many chunks per fsync: with the concurrency's 4 a disk whose fsync takes 10 ms held 100,000
 * refunds to 6.6 s (58 % of the ceiling); with 16, 4.6 s (docs/performance.md). A crash or Ctrl-C
 * leaves at most (AHEAD + 1) × this many chunks written but not sent: reconciled, or not_sent.
 */
const STAGE_CHUNKS = 16;

interface Planned<R extends BulkRow> {
  chunk: Chunk<R>;
  state: ChunkState | undefined;
  action: ChunkAction;
}

const abortableBy = (client: GatewayClient, signal: AbortSignal) =>
  wrapClient(client, (_call, opts) => ({ ...opts, signal }));

export async function runEngine<R extends BulkRow>(opts: EngineOptions<R>): Promise<EngineResult> {
  const { prior } = opts;
  let stopped: { reason: StopReason; error?: Error } | undefined;
  const stop = (reason: StopReason, error?: Error) => {
    // auth, route and journal failures outrank an interruption or an unreachable gateway.
    if (stopped === undefined || reason === 'auth' || reason === 'route' || reason === 'journal') {
      stopped = error ? { reason, error } : { reason };
    }
  };
  const isStopped = () => {
    if (stopped === undefined && opts.signal?.aborted) stopped = { reason: 'interrupted' };
    return stopped !== undefined;
  };
  // Refund references this run already attributed to its rows, in earlier processes.
  const claimed = new Set<string>();
  for (const s of prior?.values() ?? []) {
    for (const o of s.rows ?? []) if (o.fields.refund_reference_id) claimed.add(o.fields.refund_reference_id);
  }
  let waiting = 0;
  const protocol = new ChunkProtocol({
    op: opts.op,
    // Every request it sends (batches and reconciling reads) is aborted by a second Ctrl-C.
    client: opts.abandon ? abortableBy(opts.client, opts.abandon) : opts.client,
    journal: opts.journal,
    onStop: stop,
    now: opts.now,
    before: opts.preflight?.before,
    claimed,
    settleMs: opts.settleMs,
    maxAttempts: opts.maxAttempts,
    signal: opts.signal,
    stopping: isStopped,
    waiting: (delta, ms) => {
      waiting += delta;
      opts.onWaiting?.(waiting, ms);
    },
  });
  const skip = opts.preflight?.skip ?? new Map<number, SkippedRow>();

  async function* planned(): AsyncGenerator<Planned<R>> {
    for await (const chunk of opts.chunks) {
      const state = withSkipped(chunk, prior?.get(chunk.index), skip);
      yield { chunk, state, action: chunkAction(state) };
    }
  }

  // The intents of a whole batch share one fsync; a stopped run writes none.
  const stage = (batch: readonly Planned<R>[]): Promise<Map<number, Prepared>> =>
    isStopped()
      ? Promise.resolve(new Map())
      : protocol.prepareMany(
          batch
            .filter((b) => b.action === 'send')
            .map((b) => ({ chunk: b.chunk, rows: rowsToSend(b.chunk, b.state) })),
        );

  const dispatch = (p: Planned<R>, prepared: Map<number, Prepared> | undefined): Dispatch<RowOutcome[]> => {
    const { chunk, state, action } = p;
    const ready = prepared?.get(chunk.index);
    // Settled already, or meant to be sent but its intent was not written: the journal says it all.
    if (action === 'done' || (action === 'send' && ready === undefined)) {
      return { now: journaledOutcomes(chunk, state) };
    }
    return {
      job: async (release, reacquire) => {
        if (isStopped()) {
          release();
          return ready ? protocol.unsend(chunk, state) : journaledOutcomes(chunk, state);
        }
        const slot = { release, reacquire };
        return ready ? protocol.send(chunk, state, ready, slot) : protocol.settleEarlier(chunk, state!, slot);
      },
    };
  };

  await runOrderedPool({
    source: planned(),
    concurrency: opts.concurrency,
    stage,
    ahead: AHEAD,
    stageSize: Math.max(opts.concurrency, STAGE_CHUNKS),
    dispatch,
    emit: async (p, outcomes) => {
      await opts.emit(p.chunk, outcomes);
      p.chunk.release?.();
    },
  });
  const result: EngineResult = {
    requests: protocol.requests,
    reconciled: protocol.reconciled,
    resent: protocol.resent,
  };
  if (stopped) {
    result.stopped = stopped.reason;
    if (stopped.error) result.error = stopped.error;
  }
  return result;
}
