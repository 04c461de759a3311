// Pass 2 of a bulk run: send the chunks with bounded concurrency, journaling an intent before each
// send and its outcome after, reconciling chunks whose answer was lost, and handing every chunk's row
// outcomes to `emit` in input order. Never sends a row twice: a request whose bytes may have left is
// only ever reconciled (read-only queries). Rows are sent again only when a resumed run finds, by
// asking the gateway, that the crashed process's request for them never took effect.
import { AuthError, GatewayError, TransportError, UnknownOutcomeError } from '../errors.js';
import type { GatewayClient, RequestBody } from '../gateway/client.js';
import { assertAccepted } from '../gateway/client.js';
import { type BatchOperation, ENDPOINTS } from '../gateway/endpoints.js';
import { MESSAGE_FIELD, matchResults, sameOutcome, wireElement } from './chunk.js';
import type { RunJournal } from './journal.js';
import { toOutcomeTable } from './outcome-table.js';
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

/** Batches whose intents are written ahead of the one being dispatched. */
const AHEAD = 2;

const NOT_SENT_DETAIL = 'not sent: the run stopped before this row; resume it to send';
const PENDING_DETAIL =
  'sent, but its outcome is not known yet: resume the run to reconcile it with the gateway';

export async function runEngine<R extends BulkRow>(opts: EngineOptions<R>): Promise<EngineResult> {
  const { op, send, prior, emit } = opts;
  const arrayName = ENDPOINTS[op].batchArray;
  const now = opts.now ?? (() => new Date());
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

  /** One outcome per chunk row: `updates` first, then what the journal had, else `fallback`. */
  function merged(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    updates: RowOutcome[],
    fallback: (line: number) => RowOutcome,
  ): RowOutcome[] {
    // The common case — a fresh chunk answered row for row — needs no lookup.
    if (state?.rows === undefined && updates.length === chunk.rows.length) {
      if (updates.every((o, i) => o.line === chunk.rows[i]!.line)) return updates;
    }
    const byLine = new Map<number, RowOutcome>();
    for (const o of state?.rows ?? []) byLine.set(o.line, o);
    for (const o of updates) byLine.set(o.line, o);
    return chunk.rows.map((r) => byLine.get(r.line) ?? fallback(r.line));
  }

  /** Outcomes without touching the gateway: from the journal, or not sent / pending. */
  function passive(chunk: Chunk<R>): RowOutcome[] {
    const state = prior?.get(chunk.index);
    const pending = state?.open && !state.notSent ? state.intent!.lines : [];
    const updates = pending.map((line) => ({
      line,
      outcome: 'unknown' as const,
      detail: PENDING_DETAIL,
      fields: {},
    }));
    return merged(chunk, state, updates, (line) => ({
      line,
      outcome: 'not_sent',
      detail: NOT_SENT_DETAIL,
      fields: {},
    }));
  }

  async function reconcileRows(items: ReconcileItem[]): Promise<RowOutcome[]> {
    result.reconciled++;
    const skew = opts.skewMs === undefined ? {} : { skewMs: opts.skewMs };
    // Rows of one run never share transaction, amount and reason (validation refuses duplicates), so a
    // refund record can match at most one row of the run: no run-wide bookkeeping is needed.
    return reconcile(op, send!.client, items, skew);
  }

  /** Rows of a chunk still to send: those without a settled, unknown or pending outcome. */
  function rowsToSend(chunk: Chunk<R>, state: ChunkState | undefined): R[] {
    if (state?.rows === undefined) return chunk.rows;
    const byLine = new Map(state.rows.map((o) => [o.line, o]));
    return chunk.rows.filter((r) => {
      const o = byLine.get(r.line);
      return o === undefined || o.outcome === 'not_sent';
    });
  }

  interface Prepared {
    lines: number[];
    elements: WireElement[];
    sentAt: string;
  }

  function intentOf(chunk: Chunk<R>, rows: R[]): { prepared: Prepared; record: IntentRecord } {
    const lines = rows.map((r) => r.line);
    const elements: WireElement[] = rows.map((r) => wireElement(op, r));
    const sentAt = now().toISOString();
    return {
      prepared: { lines, elements, sentAt },
      // The elements are not journaled: they are a pure function of the rows, which the run's input
      // snapshot (same SHA-256) gives back byte for byte; 40 % of the journal's bytes were these.
      record: { type: 'intent', chunk: chunk.index, lines, sentAt },
    };
  }

  /**
   * Write the intents of several chunks in one durable append before any of them may be sent. Done
   * ahead of free slots, so the fsync overlaps requests in flight; an intent whose request is then
   * not sent gets a `not_sent` record (and if even that is lost, a resumed run checks the gateway).
   */
  async function prepareMany(items: Array<{ chunk: Chunk<R>; rows: R[] }>): Promise<Map<number, Prepared>> {
    const out = new Map<number, Prepared>();
    if (items.length === 0) return out;
    let made: Array<{ index: number; prepared: Prepared; record: IntentRecord }>;
    try {
      made = items.map(({ chunk, rows }) => ({ index: chunk.index, ...intentOf(chunk, rows) }));
      await send!.journal.append(made.map((m) => m.record));
    } catch (err) {
      // Without a durable intent nothing may be sent.
      stop('journal', err as Error);
      return out;
    }
    for (const m of made) out.set(m.index, m.prepared);
    return out;
  }

  /** One chunk's intent, durable; undefined when the journal could not be written (the run stops). */
  async function prepare(chunk: Chunk<R>, rows: R[]): Promise<Prepared | undefined> {
    return (await prepareMany([{ chunk, rows }])).get(chunk.index);
  }

  /**
   * Send prepared rows and journal the whole chunk's outcomes (earlier settled rows kept).
   * `release` frees the slot as soon as the gateway's part is over.
   */
  async function sendPrepared(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    p: Prepared,
    release: () => void,
  ): Promise<RowOutcome[]> {
    const { client, journal } = send!;
    const { lines, elements, sentAt } = p;
    let outcomes: RowOutcome[];
    let type: 'outcome' | 'reconciled' = 'outcome';
    try {
      result.requests++;
      const res = await client.send(op, { [arrayName]: elements } as unknown as RequestBody<typeof op>);
      assertAccepted(res.data, client);
      const data = res.data as unknown as Record<string, unknown>;
      const results = Array.isArray(data[arrayName]) ? (data[arrayName] as unknown[]) : [];
      outcomes = matchResults(op, lines, elements, results);
      const missing = outcomes.flatMap((o, i) =>
        o.outcome === 'unknown' ? [{ line: o.line, element: elements[i]!, sentAt }] : [],
      );
      if (missing.length > 0) {
        const found = new Map((await reconcileRows(missing)).map((o) => [o.line, settleLost(o)]));
        outcomes = outcomes.map((o) => found.get(o.line) ?? o);
      }
    } catch (err) {
      // Whole-request rejections that say nothing about the orders — credentials refused, gateway
      // busy — and requests that never reached it leave the rows unsent: a resumed run sends them.
      const retryable =
        err instanceof AuthError ||
        err instanceof TransportError ||
        (err instanceof GatewayError && (err.code === 'E9001' || err.status === 429));
      if (retryable) {
        release();
        const message = (err as Error).message;
        journal.appendLazy({ type: 'not_sent', chunk: chunk.index, message });
        if (err instanceof AuthError) stop('auth', err);
        else if (err instanceof TransportError) stop('unreachable', err);
        const detail =
          err instanceof AuthError
            ? `not processed: ${message}; fix the credentials, then resume the run`
            : err instanceof TransportError
              ? `not sent: ${message}; resume the run to send it`
              : `not processed: ${message}; resume the run to send it again`;
        const rows = sameOutcome(lines, 'not_sent', detail);
        return merged(chunk, state, rows, (line) => ({ line, outcome: 'not_sent', detail, fields: {} }));
      }
      if (err instanceof GatewayError) {
        // Includes GatewayRejectedError (return_status 0) and definite 4xx answers: nothing moved,
        // and sending the same request again would be refused the same way.
        outcomes = sameOutcome(lines, 'failed', err.message);
      } else {
        // UnknownOutcomeError, or anything unexpected after the bytes may have left: never re-send.
        const reason = err instanceof UnknownOutcomeError ? err.reason : 'error';
        const message = err instanceof Error ? err.message : String(err);
        journal.appendLazy({ type: 'unknown', chunk: chunk.index, reason, message });
        const items = lines.map((line, i) => ({ line, element: elements[i]!, sentAt }));
        outcomes = (await reconcileRows(items)).map(settleLost);
        type = 'reconciled';
      }
    }
    // The outcome's fsync need not hold the slot: a crash before it lands leaves an intent without
    // outcome, which a resumed run reconciles.
    release();
    const all = merged(chunk, state, outcomes, (line) => ({
      line,
      outcome: 'unknown',
      detail: PENDING_DETAIL,
      fields: {},
    }));
    // Not fsync'd on its own: lost in a crash, the chunk is simply reconciled on resume.
    journal.appendLazy({ type, chunk: chunk.index, ...toOutcomeTable(all, MESSAGE_FIELD[op]) });
    return all;
  }

  /** After a lost answer, an order the gateway shows untouched is reported failed — never re-sent. */
  function settleLost(o: RowOutcome): RowOutcome {
    const { absent: _absent, ...rest } = o;
    return rest;
  }

  /**
   * Reconcile a chunk of an earlier process: rows with an unknown outcome, or every row of an intent
   * left without outcome by a crash. After a crash, rows the gateway shows untouched were never
   * processed (the process that might have sent them is gone), so they are sent now — the one case
   * where a row whose intent was written is sent again, and only after checking.
   */
  async function reconcileChunk(
    chunk: Chunk<R>,
    state: ChunkState,
    release: () => void,
  ): Promise<RowOutcome[]> {
    const intent = state.intent!;
    const chunkLines = new Set(chunk.rows.map((r) => r.line));
    if (!intent.lines.every((l) => chunkLines.has(l))) {
      // The file no longer matches its journal (the snapshot makes this unreachable in practice).
      release();
      return sameOutcome(
        [...chunkLines],
        'unknown',
        'the input file no longer matches the journal of this run',
      );
    }
    const crashed = state.open && !state.lostAnswer;
    const previous = new Map((state.rows ?? []).map((o) => [o.line, o]));
    const rowByLine = new Map(chunk.rows.map((r) => [r.line, r]));
    const items: ReconcileItem[] = [];
    intent.lines.forEach((line, i) => {
      if (state.open || previous.get(line)?.outcome === 'unknown') {
        // Journals written before intents dropped their elements still carry them.
        const element = intent.elements?.[i] ?? wireElement(op, rowByLine.get(line)!);
        items.push({ line, element, sentAt: intent.sentAt });
      }
    });
    const found = (await reconcileRows(items)).map((o): RowOutcome => {
      if (!o.absent || !crashed) return settleLost(o);
      return {
        line: o.line,
        outcome: 'not_sent',
        detail: 'not processed by the gateway (checked after an interruption): sent again',
        fields: {},
      };
    });
    const rows = merged(chunk, state, found, (line) => ({
      line,
      outcome: 'not_sent',
      detail: NOT_SENT_DETAIL,
      fields: {},
    }));
    send!.journal.appendLazy({
      type: 'reconciled',
      chunk: chunk.index,
      ...toOutcomeTable(rows, MESSAGE_FIELD[op]),
    });
    const after: ChunkState = { ...state, rows, open: false };
    const again = rowsToSend(chunk, after);
    if (again.length === 0 || stopped()) {
      release();
      return rows;
    }
    const p = await prepare(chunk, again);
    if (p === undefined) {
      release();
      return rows;
    }
    return sendPrepared(chunk, after, p, release);
  }

  /** Mark a prepared intent as never sent (the run stopped between its intent and its send). */
  function unsend(chunk: Chunk<R>): RowOutcome[] {
    send!.journal.appendLazy({
      type: 'not_sent',
      chunk: chunk.index,
      message: 'the run stopped before sending it',
    });
    return passive(chunk);
  }

  interface Entry {
    chunk: Chunk<R>;
    promise: Promise<RowOutcome[]>;
    settled: boolean;
  }
  const queue: Entry[] = [];
  let inFlight = 0;
  const slotWaiters: Array<() => void> = [];
  const acquire = async () => {
    while (inFlight >= concurrency) await new Promise<void>((r) => slotWaiters.push(r));
    inFlight++;
  };
  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      inFlight--;
      slotWaiters.shift()?.();
    };
  };

  const flush = async (all: boolean) => {
    while (queue.length > 0 && (all || queue.length > window || queue[0]!.settled)) {
      const head = queue.shift()!;
      await emit(head.chunk, await head.promise);
    }
  };

  const push = (chunk: Chunk<R>, promise: Promise<RowOutcome[]>) => {
    const entry: Entry = { chunk, promise, settled: false };
    const settle = () => {
      entry.settled = true;
    };
    promise.then(settle, settle);
    queue.push(entry);
  };

  // Chunks are taken `concurrency` at a time: their intents share one fsync. The intents of the next
  // AHEAD batches are written while this batch is dispatched, so that fsync overlaps requests in
  // flight instead of holding up the next free slot: on ext4 an fdatasync also waits for other
  // files' dirty data (the results file), and one batch ahead still left a 100,000-refund run
  // waiting ~0.8 s for it. A crash leaves these intents to be reconciled, as any intent.
  interface Planned {
    chunk: Chunk<R>;
    state: ChunkState | undefined;
    action: ReturnType<typeof chunkAction>;
  }
  const source = opts.chunks[Symbol.asyncIterator]();
  let exhausted = false;
  const readBatch = async (): Promise<Planned[]> => {
    const batch: Planned[] = [];
    while (!exhausted && batch.length < concurrency) {
      const next = await source.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      const state = prior?.get(next.value.index);
      batch.push({ chunk: next.value, state, action: chunkAction(state) });
    }
    return batch;
  };
  const prepareBatch = (batch: Planned[]): Promise<Map<number, Prepared>> =>
    send === undefined || stopped() || batch.length === 0
      ? Promise.resolve(new Map<number, Prepared>())
      : prepareMany(
          batch
            .filter((b) => b.action === 'send')
            .map((b) => ({ chunk: b.chunk, rows: rowsToSend(b.chunk, b.state) })),
        );

  const pipeline: Array<{ batch: Planned[]; preparing: Promise<Map<number, Prepared>> }> = [];
  const refill = async () => {
    while (pipeline.length <= AHEAD && !exhausted) {
      const batch = await readBatch();
      if (batch.length === 0) break;
      pipeline.push({ batch, preparing: prepareBatch(batch) });
    }
  };
  await refill();
  while (pipeline.length > 0) {
    const { batch, preparing } = pipeline.shift()!;
    const prepared = await preparing;
    await refill();
    for (const { chunk, state, action } of batch) {
      const ready = prepared.get(chunk.index);
      if (action === 'done' || send === undefined || (action === 'send' && ready === undefined)) {
        push(chunk, Promise.resolve(passive(chunk)));
      } else {
        await acquire();
        const release = releaser();
        let promise: Promise<RowOutcome[]>;
        if (stopped()) {
          release();
          promise = Promise.resolve(ready ? unsend(chunk) : passive(chunk));
        } else {
          promise = ready
            ? sendPrepared(chunk, state, ready, release)
            : reconcileChunk(chunk, state!, release);
          promise.then(release, release);
        }
        push(chunk, promise);
      }
      await flush(false);
    }
  }
  await flush(true);
  return result;
}
