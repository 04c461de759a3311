// The per-chunk protocol of a bulk run, one chunk at a time: write the intent (durably) → send →
// match the answer to the rows → settle what the answer did not → record the outcomes.
// A row whose request may have reached the gateway is never sent again blindly: it is settled by
// asking (read-only refund search or query), and sent again only once the gateway shows no trace of
// it at least the settle time after the request left (a gateway may commit late). So a 500, a
// dropped connection or a timeout ends in `succeeded` without the operator's help, and `failed` is
// kept for the gateway refusing the row itself. Scheduling is the engine's (engine.ts).
// One file, though long: every step reads the chunk's state the others left (intent, sends, lost
// answers, claims), and the never-twice argument is easiest to check where it is read in one place.
import {
  AuthError,
  GatewayError,
  GatewayRejectedError,
  InterruptedError,
  RouteError,
  TransportError,
  UnknownOutcomeError,
} from '../../errors.js';
import type { GatewayClient } from '../../gateway/client.js';
import { assertAccepted } from '../../gateway/client.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { backoffMs, DEFAULT_RETRY_POLICY, isRefusal } from '../../gateway/retry.js';
import type { BatchOrderOf } from '../../gateway/types.js';
import type { RunJournal } from '../../lifecycle/journal.js';
import { OPERATIONS } from '../operations.js';
import type { BulkRow, Chunk, RowOutcome, WireElement } from '../types.js';
import { chunkLines, matchResults, sameOutcome, wireElement } from './chunk.js';
import { toOutcomeTable } from './outcome-table.js';
import { type ReconcileItem, type ReconcileOptions, reconcile } from './reconcile.js';
import type { BulkRecordWritten, IntentRecord } from './records.js';
import { journaledOutcomes, mergeOutcomes, notSent, pending } from './replay.js';
import { type ChunkState, sendsOf } from './run-state.js';

/** `route`: a redirect or a proxy refusing the tunnel — the address is wrong, not the credentials. */
/**
 * Why a run stopped sending: Ctrl-C, the gateway unreachable, credentials or address refused, the
 * journal unwritable, or `busy`: a chunk still refused as too many requests (429 / E9001) after its
 * refusal budget — every later chunk would wait out the same budget in turn.
 */
export type StopReason = 'interrupted' | 'unreachable' | 'auth' | 'route' | 'journal' | 'busy';

/**
 * A chunk's intent, durable: what will be sent. The wire elements are built from `rows` when the
 * request is (the engine writes intents well ahead of sending them, engine.ts).
 */
export interface Prepared {
  lines: number[];
  /** The rows of `lines`, in order. */
  rows: () => readonly BulkRow[];
  sentAt: string;
}

export interface ProtocolOptions {
  op: BatchOperation;
  client: GatewayClient;
  journal: RunJournal<BulkRecordWritten>;
  /** The run must stop dispatching: why, and the error behind it (auth, journal, unreachable). */
  onStop: (reason: StopReason, error: Error) => void;
  now?: (() => Date) | undefined;
  /** The refund references each transaction had before the run (preflight): reconcile by identity. */
  before?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Refund references this run has already attributed to a row (from its journal). */
  claimed?: Set<string> | undefined;
  /**
   * How long after a request was sent a row not found at the gateway is proven not applied (ms).
   * Before that the gateway may still commit it (a late commit), so the row waits.
   */
  settleMs: number;
  /** Requests per row in this process at most: a row proven not applied is sent again until then. */
  maxAttempts: number;
  /** The pause before sending a refused chunk again, for its n-th time (tests: no wait). */
  refusalDelayMs?: (retry: number) => number;
  /** Interrupted (Ctrl-C): rows waiting to settle stop waiting and stay unknown for a resume. */
  signal?: AbortSignal | undefined;
  /** The run is stopping (interrupted, or the gateway or journal failed): nothing is sent again. */
  stopping?: (() => boolean) | undefined;
  /** Rows start (+n) or stop (-n) waiting out the settle time; `ms` is the wait. For the screen. */
  waiting?: ((rows: number, ms: number) => void) | undefined;
}

/**
 * Rows of a chunk still to send: those without a settled, unknown or pending outcome; undefined when
 * the chunk's state holds no row outcomes, which means every row (its rows are then not built yet).
 */
export function rowsToSend<R extends BulkRow>(
  chunk: Chunk<R>,
  state: ChunkState | undefined,
): R[] | undefined {
  if (state?.rows === undefined) return undefined;
  const byLine = new Map(state.rows.map((o) => [o.line, o]));
  return chunk.rows.filter((r) => {
    const o = byLine.get(r.line);
    return o === undefined || o.outcome === 'not_sent';
  });
}

const NONE: ReadonlySet<number> = new Set();

/** The pool slot a chunk's job holds: freed early, taken again to send once more. */
export interface Slot {
  release: () => void;
  reacquire: () => Promise<() => void>;
}

interface Holding {
  free: () => void;
  take: () => Promise<void>;
}

/** Rows of a request whose answer did not settle them: to be asked about at the gateway. */
interface Lost {
  items: ReconcileItem[];
  /** The rows of the same request that the answer did settle. */
  answered: RowOutcome[];
  /** The journal record that will hold the chunk's rows. */
  type: 'outcome' | 'reconciled';
  /** Why the answer was lost, for the rows' detail. */
  why: string;
  /** performance.now() from which "not found" proves "not applied" (sent + settle time). */
  deadline: number;
}

/** Resolves true after `ms`, or false within a fifth of a second of `signal` aborting. */
async function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  const end = performance.now() + ms;
  for (;;) {
    if (signal?.aborted) return false;
    const left = end - performance.now();
    if (left <= 0) return true;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, 200)));
  }
}

/**
 * Requests for one chunk the gateway may refuse whole (429 past the transport's own retries, or
 * E9001 "temporarily unavailable") before its rows are left not_sent for a resumed run. A refusal
 * means not processed (gateway/retry.ts), so the same request is sent again, after a growing pause.
 */
export const CHUNK_REFUSALS = 5;

/**
 * The whole-request rejections that say nothing about the orders: the rows stay unsent. For a batch,
 * InterruptedError means it never left: an abort once it was written is a lost answer (transport.ts).
 */
function leftUnsent(err: unknown): boolean {
  return (
    err instanceof AuthError ||
    err instanceof TransportError ||
    err instanceof InterruptedError ||
    turnedAway(err)
  );
}

/**
 * A refusal (gateway/retry.ts): HTTP 429, or `E9001` as the whole answer of an HTTP 200. Any other
 * answer above 2xx once the bytes may have left — a 400, 408, 409, 413 … — says nothing sure about
 * the orders (a gateway or a proxy in front of it may answer so after the batch was applied): a
 * lost answer, settled at the gateway (issue 23).
 */
function turnedAway(err: unknown): boolean {
  if (!(err instanceof GatewayError)) return false;
  return err.status === 429 || (err instanceof GatewayRejectedError && isRefusal(undefined, err.code));
}

export class ChunkProtocol {
  /** Requests sent by this process (money-moving ones). */
  requests = 0;
  /** Read-only reconciliation passes made by this process. */
  reconciled = 0;
  /** Rows this process sent again after proving their request not applied (each row once). */
  get resent(): number {
    return this.resentRows.size;
  }
  private readonly resentRows = new Set<number>();
  private readonly now: () => Date;
  private readonly claimed: Set<string>;
  /** Requests this process made for a row, where more than one (rows sent again). */
  private readonly attempts = new Map<number, number>();

  constructor(private readonly o: ProtocolOptions) {
    this.claimed = o.claimed ?? new Set();
    this.now = o.now ?? (() => new Date());
  }

  /**
   * Write the intents of several chunks in one durable append before any of them may be sent; an
   * empty map when the journal could not be written (then the run stops: nothing may be sent).
   */
  async prepareMany<R extends BulkRow>(
    items: ReadonlyArray<{ chunk: Chunk<R>; rows?: R[] | undefined }>,
  ): Promise<Map<number, Prepared>> {
    const out = new Map<number, Prepared>();
    if (items.length === 0) return out;
    const sentAt = () => this.now().toISOString();
    let made: Array<{ index: number; prepared: Prepared; record: IntentRecord }>;
    try {
      made = items.map(({ chunk, rows }) => {
        // No rows given: the whole chunk, whose rows are read only when it is sent.
        const lines = rows ? rows.map((r) => r.line) : chunkLines(chunk);
        const prepared: Prepared = { lines, rows: rows ? () => rows : () => chunk.rows, sentAt: sentAt() };
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
   * Send prepared rows and journal the whole chunk's outcomes (earlier settled rows kept). Rows
   * whose answer was lost are settled (settle()), and rows proven not applied are sent again, up to
   * `maxAttempts` requests per row in this process. `slot.release` frees the slot as soon as the
   * gateway's part is over, and while rows wait to settle.
   */
  async send<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    p: Prepared,
    slot: Slot,
  ): Promise<RowOutcome[]> {
    return this.until(chunk, state, slot, { prepared: p });
  }

  /**
   * Settle a chunk an earlier process left open: rows with an unknown outcome, every row of an
   * intent left without outcome by a crash, and rows proven not applied that were not sent again.
   * They are checked at the gateway no earlier than `settleMs` after the request was sent (by the
   * journal's time); rows found not applied are then sent again, as in send().
   */
  async settleEarlier<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState,
    slot: Slot,
  ): Promise<RowOutcome[]> {
    const { op } = this.o;
    const intent = state.intent!;
    const chunkLines = new Set(chunk.rows.map((r) => r.line));
    if (!intent.lines.every((l) => chunkLines.has(l))) {
      // The file no longer matches its journal (the snapshot makes this unreachable in practice).
      slot.release();
      return sameOutcome(
        [...chunkLines],
        'unknown',
        'the input file no longer matches the journal of this run',
      );
    }
    const openLines = new Set(state.open && !state.notSent ? intent.lines : []);
    const previous = new Map((state.rows ?? []).map((o) => [o.line, o]));
    // Journals written before intents dropped their elements still carry them.
    const journaled = new Map(intent.elements?.map((el, i) => [intent.lines[i]!, el]));
    const lost: ReconcileItem[] = [];
    for (const row of chunk.rows) {
      const was = previous.get(row.line)?.outcome;
      if (
        openLines.has(row.line) ||
        was === 'unknown' ||
        (was === 'not_sent' && sendsOf(state, row.line) > 0)
      ) {
        const element = journaled.get(row.line) ?? wireElement(op, row);
        lost.push({ line: row.line, element, sentAt: intent.sentAt });
      }
    }
    // By the journal's clock, from the latest moment the request can have left (the intent is written
    // ahead of the send, so its own time is too early); after a crash only now bounds it.
    const elapsed = this.now().getTime() - Date.parse(state.sentBy ?? this.now().toISOString());
    const left = Number.isFinite(elapsed)
      ? Math.min(this.o.settleMs, Math.max(0, this.o.settleMs - elapsed))
      : this.o.settleMs;
    // This process has sent none of them yet: each gets its full --max-attempts.
    for (const it of lost) this.attempts.set(it.line, 0);
    const settling = new Set(lost.map((it) => it.line));
    const unsent = new Set(
      chunk.rows
        .filter((r) => previous.get(r.line)?.outcome === 'not_sent' && !settling.has(r.line))
        .map((r) => r.line),
    );
    return this.until(
      chunk,
      state,
      slot,
      {
        lost: {
          items: lost,
          answered: [],
          type: 'reconciled',
          why: 'the run was interrupted',
          deadline: performance.now() + left,
        },
      },
      unsent,
    );
  }

  /** Send (or settle) until every row of the chunk has a definite outcome or no attempt is left. */
  private async until<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    slot: Slot,
    start: { prepared: Prepared } | { lost: Lost },
    /** Rows of a resumed chunk that no request has reached: sent with the first rows sent again. */
    unsent: ReadonlySet<number> = NONE,
  ): Promise<RowOutcome[]> {
    let fresh = unsent;
    let release = slot.release;
    let holding = true;
    const hold: Holding = {
      free: () => {
        if (holding) release();
        holding = false;
      },
      take: async () => {
        if (!holding) release = await slot.reacquire();
        holding = true;
      },
    };
    try {
      let current = state;
      let next: { prepared: Prepared } | { lost: Lost } = start;
      for (;;) {
        let lost: Lost;
        if ('prepared' in next) {
          const tried = await this.attempt(chunk, current, next.prepared);
          if ('rows' in tried) return tried.rows;
          lost = tried;
        } else lost = next.lost;
        const settled = await this.settle(lost, hold);
        const mayResend = !(this.o.stopping?.() ?? this.o.signal?.aborted);
        const { rows, again } = this.conclude(
          chunk,
          current,
          [...lost.answered, ...settled],
          lost.why,
          mayResend,
          fresh,
        );
        fresh = NONE;
        this.o.journal.appendLazy({
          type: lost.type,
          chunk: chunk.index,
          ...toOutcomeTable(rows, OPERATIONS[this.o.op].messageField),
        });
        current = { ...(current ?? { notSent: false }), rows, open: false };
        if (again.length === 0) return rows;
        await hold.take();
        // Stopped while waiting for a slot: nothing more leaves; a resume asks before sending.
        if (this.o.stopping?.()) return rows;
        const prepared = (await this.prepareMany([{ chunk, rows: again }])).get(chunk.index);
        if (prepared === undefined) return rows;
        next = { prepared };
      }
    } finally {
      hold.free();
    }
  }

  /**
   * One request for prepared rows. Its outcomes are journaled here when the answer settles every
   * row (or the request was refused or never left); rows whose answer was lost are returned.
   */
  private async attempt<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    p: Prepared,
  ): Promise<{ rows: RowOutcome[] } | Lost> {
    const { op, journal } = this.o;
    const { lines, sentAt } = p;
    let elements: WireElement[];
    try {
      elements = p.rows().map((r) => wireElement(op, r));
    } catch (err) {
      // Nothing left: the request was never built (validated rows make this unreachable).
      return { rows: this.notSentAfter(chunk, state, lines, err as Error) };
    }
    const items = (pick: (i: number) => boolean) =>
      lines.flatMap((line, i) => (pick(i) ? [{ line, element: elements[i]!, sentAt }] : []));
    let outcomes: RowOutcome[];
    try {
      const res = await this.sendUnlessRefused(elements);
      outcomes = matchResults(op, lines, elements, res.results);
      // A reference the answer gave a row is that row's: reconciling a lost row never takes it.
      for (const o of outcomes) {
        const ref = o.outcome === 'succeeded' ? o.fields.refund_reference_id : undefined;
        if (ref) this.claimed.add(ref);
      }
      if (outcomes.some((o) => o.outcome === 'unknown')) {
        return {
          items: items((i) => outcomes[i]!.outcome === 'unknown'),
          answered: outcomes.filter((o) => o.outcome !== 'unknown'),
          type: 'outcome',
          why: 'the gateway answered without a clear result for it',
          // From when the answer was found lost: the transport may have retried a connection that
          // never carried the request, so the request itself can have left long after it began.
          deadline: performance.now() + this.o.settleMs,
        };
      }
    } catch (err) {
      // Credentials refused, gateway busy, request never reached it: a resumed run sends the rows.
      if (leftUnsent(err)) return { rows: this.notSentAfter(chunk, state, lines, err as Error) };
      if (err instanceof GatewayRejectedError) {
        // HTTP 200, return_status 0 and no per-order result: the contract's whole-request
        // rejection (design.md §1.3) — nothing moved, and the same request would be refused again.
        outcomes = sameOutcome(lines, 'failed', err.message);
      } else {
        // UnknownOutcomeError, an HTTP error answer (4xx) after the bytes may have left, or anything
        // unexpected: settled by asking the gateway, never by sending blindly.
        const reason =
          err instanceof UnknownOutcomeError
            ? err.reason
            : err instanceof GatewayError && err.status !== undefined
              ? `http_${err.status}`
              : 'error';
        const message = err instanceof Error ? err.message : String(err);
        journal.appendLazy({ type: 'unknown', chunk: chunk.index, reason, message });
        return {
          items: items(() => true),
          answered: [],
          type: 'reconciled',
          why: message,
          deadline: performance.now() + this.o.settleMs,
        };
      }
    }
    const all = mergeOutcomes(chunk, state, outcomes, pending);
    // Not fsync'd on its own: lost in a crash, the chunk is simply reconciled on resume.
    journal.appendLazy({
      type: 'outcome',
      chunk: chunk.index,
      ...toOutcomeTable(all, OPERATIONS[op].messageField),
    });
    return { rows: all };
  }

  /**
   * One chunk's request, sent again while the gateway refuses it whole (429 / E9001: not processed)
   * and the refusal budget lasts; the last refusal is thrown, as any other error of the send.
   */
  private async sendUnlessRefused(elements: WireElement[]) {
    const { op, client } = this.o;
    for (let refused = 1; ; refused++) {
      try {
        this.requests++;
        // Elements are built field by field from the operations table (chunk.ts wireElement), which a
        // test holds to the gateway's element shapes; their static type is the table's, not the API's.
        const res = await client.sendBatch(op, elements as unknown as readonly BatchOrderOf[typeof op][]);
        // Each element's status is independent of return_status (gateway-api.md): when the answer has
        // per-order results they decide their rows, whatever return_status says; only an answer
        // without any is a whole-request rejection.
        if (res.results.length === 0) assertAccepted(res.data, client);
        return res;
      } catch (err) {
        const refusal = turnedAway(err);
        if (!refusal || refused >= CHUNK_REFUSALS || this.o.stopping?.()) throw err;
        const wait = this.o.refusalDelayMs?.(refused) ?? backoffMs(refused, DEFAULT_RETRY_POLICY);
        if (!(await sleep(wait, this.o.signal))) throw err;
      }
    }
  }

  /**
   * What the gateway did with rows whose answer was lost. Asked at once (a request applied before
   * its answer was lost is found now); what is not found yet is asked again once the settle time
   * since the request has passed — the slot is freed meanwhile, and an interruption leaves those
   * rows unknown for a resumed run. Only that later check may prove a row not applied (`absent`).
   */
  private async settle(lost: Lost, hold: Holding): Promise<RowOutcome[]> {
    if (lost.items.length === 0) return [];
    const conclusive = performance.now() >= lost.deadline;
    const first = await this.reconcile(lost.items);
    const later = new Set(
      first.filter((o) => o.outcome === 'unknown' || (o.absent && !conclusive)).map((o) => o.line),
    );
    if (later.size === 0) return first;
    const wait = lost.deadline - performance.now();
    if (wait > 0) {
      hold.free();
      this.o.waiting?.(later.size, wait);
      const slept = await sleep(wait, this.o.signal);
      this.o.waiting?.(-later.size, 0);
      if (!slept) {
        // Interrupted while waiting: not concluded either way; the journal says sent, no answer.
        return first.map((o) => (later.has(o.line) ? pending(o.line) : o));
      }
      await hold.take();
    }
    const again = new Map(
      (await this.reconcile(lost.items.filter((it) => later.has(it.line)))).map((o) => [o.line, o]),
    );
    return first.map((o) => again.get(o.line) ?? o);
  }

  /**
   * A chunk's rows after settling: found ones as found; rows proven not applied are sent again while
   * this process has attempts left for them, and otherwise left `not_sent` for a resumed run.
   */
  private conclude<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    settled: RowOutcome[],
    why: string,
    mayResend: boolean,
    fresh: ReadonlySet<number>,
  ): { rows: RowOutcome[]; again: R[] } {
    const againLines = new Set<number>();
    const updates = settled.map((o): RowOutcome => {
      if (!o.absent) return o;
      const tries = this.attempts.get(o.line) ?? 1;
      if (tries < this.o.maxAttempts && mayResend) {
        this.attempts.set(o.line, tries + 1);
        this.resentRows.add(o.line);
        againLines.add(o.line);
        return notSent(o.line, `not applied (${why}; ${o.detail}): sent again`);
      }
      return notSent(
        o.line,
        mayResend
          ? `not applied after ${tries} request${tries === 1 ? '' : 's'} (last: ${why}; ${o.detail}); resume the run to send it again`
          : `not applied (${why}; ${o.detail}); the run stopped: resume it to send it again`,
      );
    });
    const rows = mergeOutcomes(chunk, state, updates, pending);
    // Rows of the chunk no request has reached yet go with them (a resumed chunk).
    if (mayResend)
      for (const o of rows) if (o.outcome === 'not_sent' && fresh.has(o.line)) againLines.add(o.line);
    return { rows, again: chunk.rows.filter((r) => againLines.has(r.line)) };
  }

  private notSentAfter<R extends BulkRow>(
    chunk: Chunk<R>,
    state: ChunkState | undefined,
    lines: number[],
    err: Error,
  ): RowOutcome[] {
    const message = err.message;
    this.o.journal.appendLazy({ type: 'not_sent', chunk: chunk.index, message });
    if (err instanceof RouteError) this.o.onStop('route', err);
    else if (err instanceof AuthError) this.o.onStop('auth', err);
    else if (err instanceof TransportError) this.o.onStop('unreachable', err);
    else if (turnedAway(err)) this.o.onStop('busy', err);
    const detail =
      err instanceof RouteError
        ? `not processed: ${message}; fix the address, then resume the run`
        : err instanceof AuthError
          ? `not processed: ${message}; fix the credentials, then resume the run`
          : err instanceof TransportError || err instanceof InterruptedError
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
    if (this.o.before !== undefined) opts.before = this.o.before;
    return reconcile(this.o.op, this.o.client, items, opts);
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
