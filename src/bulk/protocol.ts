// The per-chunk protocol of a bulk run, one chunk at a time: write the intent (durably) → send →
// match the answer to the rows → reconcile what the answer did not settle → record the outcomes.
// Never sends a row twice: a request whose bytes may have left is only ever reconciled (read-only
// queries). Rows are sent again only when a resumed run finds, by asking the gateway, that the
// crashed process's request for them never took effect. Scheduling is the engine's (engine.ts).
import { AuthError, GatewayError, TransportError, UnknownOutcomeError } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import { assertAccepted } from '../gateway/client.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import type { BatchOrderOf } from '../gateway/types.js';
import type { RunJournal } from '../runs/journal.js';
import { matchResults, sameOutcome, wireElement } from './chunk.js';
import { OPERATIONS } from './operations.js';
import { toOutcomeTable } from './outcome-table.js';
import { type ReconcileItem, type ReconcileOptions, reconcile } from './reconcile.js';
import type { BulkRecordWritten, IntentRecord } from './records.js';
import { journaledOutcomes, mergeOutcomes, NOT_SENT_DETAIL, notSent, pending } from './replay.js';
import type { ChunkState } from './run-state.js';
import type { BulkRow, Chunk, RowOutcome, WireElement } from './types.js';

export type StopReason = 'interrupted' | 'unreachable' | 'auth' | 'journal';

/** A chunk's intent, durable: what will be sent. */
export interface Prepared {
  lines: number[];
  elements: WireElement[];
  sentAt: string;
}

export interface ProtocolOptions {
  op: BatchOperation;
  client: GatewayClient;
  journal: RunJournal<BulkRecordWritten>;
  /** The run must stop dispatching: why, and the error behind it (auth, journal, unreachable). */
  onStop: (reason: StopReason, error: Error) => void;
  /** Reconciliation clock-skew tolerance (ms), for runs made before preflight. */
  skewMs?: number | undefined;
  now?: (() => Date) | undefined;
  /** The refund references each transaction had before the run (preflight): reconcile by identity. */
  before?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Refund references this run has already attributed to a row (from its journal). */
  claimed?: Set<string> | undefined;
}

/** Rows of a chunk still to send: those without a settled, unknown or pending outcome. */
export function rowsToSend<R extends BulkRow>(chunk: Chunk<R>, state: ChunkState | undefined): R[] {
  if (state?.rows === undefined) return chunk.rows;
  const byLine = new Map(state.rows.map((o) => [o.line, o]));
  return chunk.rows.filter((r) => {
    const o = byLine.get(r.line);
    return o === undefined || o.outcome === 'not_sent';
  });
}

/** After a lost answer, an order the gateway shows untouched is reported failed — never re-sent. */
function settleLost(o: RowOutcome): RowOutcome {
  const { absent: _absent, ...rest } = o;
  return rest;
}

/** The whole-request rejections that say nothing about the orders: the rows stay unsent. */
function leftUnsent(err: unknown): boolean {
  return (
    err instanceof AuthError ||
    err instanceof TransportError ||
    (err instanceof GatewayError && (err.code === 'E9001' || err.status === 429))
  );
}

export class ChunkProtocol {
  /** Requests sent by this process (money-moving ones). */
  requests = 0;
  /** Read-only reconciliation passes made by this process. */
  reconciled = 0;
  private readonly now: () => Date;
  private readonly claimed: Set<string>;

  constructor(private readonly o: ProtocolOptions) {
    this.claimed = o.claimed ?? new Set();
    this.now = o.now ?? (() => new Date());
  }

  /**
   * Write the intents of several chunks in one durable append before any of them may be sent; an
   * empty map when the journal could not be written (then the run stops: nothing may be sent).
   */
  async prepareMany<R extends BulkRow>(
    items: ReadonlyArray<{ chunk: Chunk<R>; rows: R[] }>,
  ): Promise<Map<number, Prepared>> {
    const out = new Map<number, Prepared>();
    if (items.length === 0) return out;
    const { op } = this.o;
    const sentAt = () => this.now().toISOString();
    let made: Array<{ index: number; prepared: Prepared; record: IntentRecord }>;
    try {
      made = items.map(({ chunk, rows }) => {
        const lines = rows.map((r) => r.line);
        const prepared = { lines, elements: rows.map((r) => wireElement(op, r)), sentAt: sentAt() };
        // The elements are not journaled: they are a pure function of the rows, which the run's
        // input snapshot (same SHA-256) gives back byte for byte; 40 % of the journal's bytes.
        const record: IntentRecord = { type: 'intent', chunk: chunk.index, lines, sentAt: prepared.sentAt };
        return { index: chunk.index, prepared, record };
      });
      await this.o.journal.append(made.map((m) => m.record));
    } catch (err) {
      this.o.onStop('journal', err as Error);
      return out;
    }
    for (const m of made) out.set(m.index, m.prepared);
    return out;
  }

  /**
   * Send prepared rows and journal the whole chunk's outcomes (earlier settled rows kept).
   * `release` frees the slot as soon as the gateway's part is over.
   */
  async send<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    p: Prepared,
    release: () => void,
  ): Promise<RowOutcome[]> {
    const { op, client, journal } = this.o;
    const { lines, elements, sentAt } = p;
    let outcomes: RowOutcome[];
    let type: 'outcome' | 'reconciled' = 'outcome';
    try {
      this.requests++;
      // Elements are built field by field from the operations table (chunk.ts wireElement), which a
      // test holds to the gateway's element shapes; their static type is the table's, not the API's.
      const res = await client.sendBatch(op, elements as unknown as readonly BatchOrderOf[typeof op][]);
      // Each element's status is independent of return_status (gateway-api.md): when the answer has
      // per-order results they decide their rows, whatever return_status says; only an answer
      // without any is a whole-request rejection.
      if (res.results.length === 0) assertAccepted(res.data, client);
      outcomes = matchResults(op, lines, elements, res.results);
      const missing = outcomes.flatMap((o, i) =>
        o.outcome === 'unknown' ? [{ line: o.line, element: elements[i]!, sentAt }] : [],
      );
      if (missing.length > 0) {
        const found = new Map((await this.reconcile(missing)).map((o) => [o.line, settleLost(o)]));
        outcomes = outcomes.map((o) => found.get(o.line) ?? o);
      }
    } catch (err) {
      // Credentials refused, gateway busy, request never reached it: a resumed run sends the rows.
      if (leftUnsent(err)) {
        release();
        return this.notSentAfter(chunk, state, lines, err as Error);
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
        outcomes = (await this.reconcile(items)).map(settleLost);
        type = 'reconciled';
      }
    }
    // The outcome's fsync need not hold the slot: a crash before it lands leaves an intent without
    // outcome, which a resumed run reconciles.
    release();
    const all = mergeOutcomes(chunk, state, outcomes, pending);
    // Not fsync'd on its own: lost in a crash, the chunk is simply reconciled on resume.
    journal.appendLazy({ type, chunk: chunk.index, ...toOutcomeTable(all, OPERATIONS[op].messageField) });
    return all;
  }

  private notSentAfter<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    lines: number[],
    err: Error,
  ): RowOutcome[] {
    const message = err.message;
    this.o.journal.appendLazy({ type: 'not_sent', chunk: chunk.index, message });
    if (err instanceof AuthError) this.o.onStop('auth', err);
    else if (err instanceof TransportError) this.o.onStop('unreachable', err);
    const detail =
      err instanceof AuthError
        ? `not processed: ${message}; fix the credentials, then resume the run`
        : err instanceof TransportError
          ? `not sent: ${message}; resume the run to send it`
          : `not processed: ${message}; resume the run to send it again`;
    return mergeOutcomes(chunk, state, sameOutcome(lines, 'not_sent', detail), (line) =>
      notSent(line, detail),
    );
  }

  private reconcile(items: ReconcileItem[]): Promise<RowOutcome[]> {
    this.reconciled++;
    // A refund found is attributed to one row of the run at most, across chunks and resumes.
    const opts: ReconcileOptions = { claimed: this.claimed };
    if (this.o.skewMs !== undefined) opts.skewMs = this.o.skewMs;
    if (this.o.before !== undefined) opts.before = this.o.before;
    return reconcile(this.o.op, this.o.client, items, opts);
  }

  /**
   * Reconcile a chunk of an earlier process: rows with an unknown outcome, or every row of an intent
   * left without outcome by a crash. After a crash, rows the gateway shows untouched were never
   * processed (the process that might have sent them is gone), so they are sent now — the one case
   * where a row whose intent was written is sent again, and only after checking.
   */
  async settleEarlier<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState,
    release: () => void,
    mayContinue: () => boolean,
  ): Promise<RowOutcome[]> {
    const { op } = this.o;
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
    const found = (await this.reconcile(items)).map((o): RowOutcome => {
      if (!o.absent || !crashed) return settleLost(o);
      return notSent(o.line, 'not processed by the gateway (checked after an interruption): sent again');
    });
    const rows = mergeOutcomes(chunk, state, found, (line) => notSent(line, NOT_SENT_DETAIL));
    this.o.journal.appendLazy({
      type: 'reconciled',
      chunk: chunk.index,
      ...toOutcomeTable(rows, OPERATIONS[op].messageField),
    });
    const after: ChunkState = { ...state, rows, open: false };
    const again = rowsToSend(chunk, after);
    if (again.length === 0 || !mayContinue()) {
      release();
      return rows;
    }
    const p = (await this.prepareMany([{ chunk, rows: again }])).get(chunk.index);
    if (p === undefined) {
      release();
      return rows;
    }
    return this.send(chunk, after, p, release);
  }

  /** Mark a prepared intent as never sent (the run stopped between its intent and its send). */
  unsend<R extends BulkRow>(chunk: Chunk<R>, state: ChunkState | undefined): RowOutcome[] {
    this.o.journal.appendLazy({
      type: 'not_sent',
      chunk: chunk.index,
      message: 'the run stopped before sending it',
    });
    return journaledOutcomes(chunk, state);
  }
}
