// Pass 2 of a bulk run: send the chunks with bounded concurrency, journaling an intent before each
// send and its outcome after, reconciling chunks whose answer was lost, and handing every chunk's row
// outcomes to `emit` in input order. Never sends a chunk twice: a chunk whose bytes may have left is
// only ever reconciled (read-only queries), on this run or on a resumed one.
import { AuthError, GatewayError, TransportError, UnknownOutcomeError } from '../errors.js';
import type { GatewayClient, RequestBody } from '../gateway/client.js';
import { assertAccepted } from '../gateway/client.js';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { matchResults, sameOutcome, wireElement } from './chunk.js';
import type { RunJournal } from './journal.js';
import { type ReconcileItem, reconcile } from './reconcile.js';
import { type ChunkState, chunkAction } from './run-state.js';
import type { BulkRow, Chunk, IntentRecord, RowOutcome, WireElement } from './types.js';

export type StopReason = 'interrupted' | 'unreachable' | 'auth' | 'journal';

export interface EngineOptions<R extends BulkRow> {
  op: BatchOperation;
  /** The run's chunks in input order (the same chunks on every pass over the same file). */
  chunks: AsyncIterable<Chunk<R>>;
  /** Absent: send nothing, only report what the journal knows (`runs show`). */
  send?: { client: GatewayClient; journal: RunJournal };
  /** What an earlier process of this run recorded, per chunk (resume and show). */
  prior?: Map<number, ChunkState>;
  /** refund_reference_ids already attributed to rows of this run. */
  claimed?: Set<string>;
  concurrency: number;
  /** Polled before each dispatch: true stops dispatching (SIGINT); in-flight chunks finish. */
  shouldStop?: () => boolean;
  /** Every chunk's row outcomes, in input order. */
  emit: (chunk: Chunk<R>, outcomes: RowOutcome[]) => void | Promise<void>;
  /** Reconciliation clock-skew tolerance (ms). */
  skewMs?: number;
  now?: () => Date;
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
}

const NOT_SENT_DETAIL = 'not sent: the run stopped before this row; resume it to send';
const PENDING_DETAIL =
  'sent, but its outcome is not known yet: resume the run to reconcile it with the gateway';

export async function runEngine<R extends BulkRow>(opts: EngineOptions<R>): Promise<EngineResult> {
  const { op, send, prior, emit } = opts;
  const arrayName = ENDPOINTS[op].batchArray;
  const now = opts.now ?? (() => new Date());
  const claimed = opts.claimed ?? new Set<string>();
  const concurrency = Math.max(1, opts.concurrency);
  // Completed chunks may wait for an earlier slow one before being emitted; bound that backlog.
  const window = concurrency * 8 + 8;
  const result: EngineResult = { requests: 0, reconciled: 0 };

  const stop = (reason: StopReason, error?: Error) => {
    if (result.stopped === undefined || reason === 'auth' || reason === 'journal') {
      result.stopped = reason;
      if (error) result.error = error;
    }
  };
  const stopped = () => {
    if (result.stopped === undefined && opts.shouldStop?.()) result.stopped = 'interrupted';
    return result.stopped !== undefined;
  };

  function claim(outcomes: RowOutcome[]): void {
    for (const o of outcomes) {
      const id = o.outcome === 'succeeded' ? o.fields.refund_reference_id : undefined;
      if (id) claimed.add(id);
    }
  }

  /** Outcomes without touching the gateway: from the journal, or not sent / pending. */
  function passive(chunk: Chunk<R>): RowOutcome[] {
    const state = prior?.get(chunk.index);
    const lines = chunk.rows.map((r) => r.line);
    const action = chunkAction(state);
    if (action === 'done') return state!.rows!;
    if (action === 'reconcile') return state!.rows ?? sameOutcome(lines, 'unknown', PENDING_DETAIL);
    return sameOutcome(lines, 'not_sent', NOT_SENT_DETAIL);
  }

  async function reconcileRows(items: ReconcileItem[]): Promise<RowOutcome[]> {
    result.reconciled++;
    const skew = opts.skewMs === undefined ? {} : { skewMs: opts.skewMs };
    return reconcile(op, send!.client, items, { claimed, ...skew });
  }

  async function sendChunk(chunk: Chunk<R>): Promise<RowOutcome[]> {
    const { client, journal } = send!;
    const lines = chunk.rows.map((r) => r.line);
    const elements: WireElement[] = chunk.rows.map((r) => wireElement(op, r));
    const sentAt = now().toISOString();
    const intent: IntentRecord = { type: 'intent', chunk: chunk.index, lines, elements, sentAt };
    try {
      await journal.append(intent);
    } catch (err) {
      // Without a durable intent nothing may be sent.
      stop('journal', err as Error);
      return sameOutcome(
        lines,
        'not_sent',
        `not sent: the journal could not be written (${(err as Error).message})`,
      );
    }

    let outcomes: RowOutcome[];
    let type: 'outcome' | 'reconciled' = 'outcome';
    try {
      result.requests++;
      const res = await client.send(op, { [arrayName]: elements } as unknown as RequestBody<typeof op>);
      assertAccepted(res.data, client);
      const data = res.data as unknown as Record<string, unknown>;
      const results = Array.isArray(data[arrayName]) ? (data[arrayName] as unknown[]) : [];
      outcomes = matchResults(op, lines, elements, results);
      claim(outcomes);
      const missing = outcomes.flatMap((o, i) =>
        o.outcome === 'unknown' ? [{ line: o.line, element: elements[i]!, sentAt }] : [],
      );
      if (missing.length > 0) {
        const found = new Map((await reconcileRows(missing)).map((o) => [o.line, o]));
        outcomes = outcomes.map((o) => found.get(o.line) ?? o);
      }
    } catch (err) {
      if (err instanceof AuthError) {
        // Definite rejection of the whole request: nothing moved. Every further request would fail too.
        outcomes = sameOutcome(lines, 'failed', err.message);
        stop('auth', err);
      } else if (err instanceof TransportError) {
        // Certainly never reached the gateway: safe to send on resume.
        await journal.append({ type: 'not_sent', chunk: chunk.index, message: err.message }).catch(() => {});
        stop('unreachable', err);
        return sameOutcome(lines, 'not_sent', `not sent: ${err.message}; resume the run to send it`);
      } else if (err instanceof GatewayError) {
        // Includes GatewayRejectedError (return_status 0) and definite 4xx answers: nothing moved.
        outcomes = sameOutcome(lines, 'failed', err.message);
      } else {
        // UnknownOutcomeError, or anything unexpected after the bytes may have left: never re-send.
        const reason = err instanceof UnknownOutcomeError ? err.reason : 'error';
        const message = err instanceof Error ? err.message : String(err);
        await journal.append({ type: 'unknown', chunk: chunk.index, reason, message }).catch(() => {});
        outcomes = await reconcileRows(lines.map((line, i) => ({ line, element: elements[i]!, sentAt })));
        type = 'reconciled';
      }
    }
    try {
      await journal.append({ type, chunk: chunk.index, rows: outcomes });
    } catch (err) {
      stop('journal', err as Error);
    }
    return outcomes;
  }

  async function reconcileChunk(chunk: Chunk<R>, state: ChunkState): Promise<RowOutcome[]> {
    const intent = state.intent!;
    const lines = chunk.rows.map((r) => r.line);
    if (intent.lines.length !== lines.length || intent.lines.some((l, i) => l !== lines[i])) {
      // The file no longer matches its journal (the sha256 check should have caught this).
      return sameOutcome(lines, 'unknown', 'the input file no longer matches the journal of this run');
    }
    const previous = state.rows;
    const items: ReconcileItem[] = [];
    intent.lines.forEach((line, i) => {
      if (!previous || previous[i]?.outcome === 'unknown') {
        items.push({ line, element: intent.elements[i]!, sentAt: intent.sentAt });
      }
    });
    const found = new Map((await reconcileRows(items)).map((o) => [o.line, o]));
    const outcomes = lines.map((line, i) => found.get(line) ?? previous![i]!);
    try {
      await send!.journal.append({ type: 'reconciled', chunk: chunk.index, rows: outcomes });
    } catch (err) {
      stop('journal', err as Error);
    }
    return outcomes;
  }

  interface Entry {
    chunk: Chunk<R>;
    promise: Promise<RowOutcome[]>;
    settled: boolean;
  }
  const queue: Entry[] = [];
  const active = new Set<Promise<unknown>>();

  const flush = async (all: boolean) => {
    while (queue.length > 0 && (all || queue.length > window || queue[0]!.settled)) {
      const head = queue.shift()!;
      await emit(head.chunk, await head.promise);
    }
  };

  for await (const chunk of opts.chunks) {
    const state = prior?.get(chunk.index);
    const action = chunkAction(state);
    let promise: Promise<RowOutcome[]>;
    if (action === 'done' || send === undefined || stopped()) {
      promise = Promise.resolve(passive(chunk));
    } else {
      while (active.size >= concurrency) await Promise.race(active);
      if (stopped()) {
        promise = Promise.resolve(passive(chunk));
      } else {
        promise = action === 'reconcile' ? reconcileChunk(chunk, state!) : sendChunk(chunk);
        const tracked: Promise<unknown> = promise.then(
          () => active.delete(tracked),
          () => active.delete(tracked),
        );
        active.add(tracked);
      }
    }
    const entry: Entry = { chunk, promise, settled: false };
    promise.then(
      () => {
        entry.settled = true;
      },
      () => {
        entry.settled = true;
      },
    );
    queue.push(entry);
    await flush(false);
  }
  await flush(true);
  return result;
}
