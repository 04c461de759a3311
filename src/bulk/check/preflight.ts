// Ask the gateway before sending (issue 12): which rows of the file does the gateway already show
// done? Refunds: every transaction of the file is looked up with refund search, and a row is done
// when the gateway has a refund of that transaction with the row's amount and reason (each refund
// vouches for one row). Reasons compare by meaning (reason.ts): "Goodwill" is "goodwill" (issue 23).
// A row whose transaction has a refund of the same amount with any other reason, vouching for no
// row, is possibly done ("goodwill gesture" re-typed for "goodwill"): refused like a done row.
// Capture, cancel, review: the order is already in the state the row asks for.
// What the gateway had before the run — every refund reference of the file's transactions — is
// kept in the journal: reconciliation then knows a refund as this run's by it being new, not by
// comparing clocks. Read-only requests only; they may be retried freely.

import { GatewayError, GatewayRejectedError, TransportError } from '../../errors.js';
import { elementMatches } from '../../gateway/batch-rules.js';
import type { GatewayClient } from '../../gateway/client.js';
import { assertAccepted } from '../../gateway/client.js';
import { ENDPOINTS } from '../../gateway/endpoints.js';
import { PAYMENT_STATUS_LABELS } from '../../gateway/status.js';
import { parseGatewayTime } from '../../gateway/time.js';
import type { OrderRecord, RefundRecord } from '../../gateway/types.js';
import { formatMoney, parseAmount } from '../../money/amount.js';
import { runOrderedPool } from '../../ordered-pool.js';
import { quote } from '../../quote.js';
import { wireElement } from '../engine/chunk.js';
import { sameMoney } from '../engine/reconcile.js';
import { OPERATIONS } from '../operations.js';
import { sameReason } from '../plan/reason.js';
import type { LookUpBatch } from '../plan/row-cache.js';
import type { BatchOperation, BulkRow } from '../types.js';

/** Tries per look-up, over and above the transport's own retries of a read. */
export const LOOKUP_TRIES = 5;

/**
 * Failures the transport already tried three times, each costing a whole --timeout (an answer that
 * trickles, or never ends): tried again here they made 5 × 3 slow attempts per look-up.
 */
const SLOW_FAILURES = new Set(['timeout', 'too_large']);

/**
 * A look-up that failed for a passing reason (unreachable, 5xx, a garbled or wrongly signed answer,
 * "temporarily unavailable") is made again, with a growing pause: a file of thousands of rows needs
 * every one of its look-ups, and a read changes nothing. Refused credentials or a request the
 * gateway rejects for what it says fail at once.
 */
export async function persist<T>(lookUp: () => Promise<T>, sleep = defaultSleep): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await lookUp();
    } catch (err) {
      // A definite 4xx (other than 429, too many requests) would be refused the same way again.
      const status = err instanceof GatewayError ? err.status : undefined;
      const definite = status !== undefined && status >= 400 && status < 500 && status !== 429;
      const slow = err instanceof GatewayError && err.code !== undefined && SLOW_FAILURES.has(err.code);
      const passing =
        err instanceof TransportError ||
        (err instanceof GatewayRejectedError
          ? err.code === 'E9001'
          : err instanceof GatewayError && !definite);
      if (!passing || slow || attempt >= LOOKUP_TRIES) throw err;
      await sleep(Math.min(4000, 250 * 2 ** (attempt - 1)));
    }
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A row the gateway already shows done, and where that was seen. */
export interface DoneRow {
  line: number;
  /** Refunds: the reference id of the refund that vouches for the row. */
  ref?: string;
  /** `refund 1000123-01 of 2026-11-23 10:15:02`, `the order is already 3000 captured`. */
  where: string;
  /**
   * Refunds: the gateway has a refund of the row's transaction and amount with another reason, which
   * vouches for no other row. It may be this row typed another way: refused like a done row.
   */
  possible?: true;
  /** A possibly done row's transaction. */
  tx?: string;
}

/** A row to send whose order has refunds at the gateway already (none of which is this row's). */
export interface PartlyRefunded {
  line: number;
  /** `order ORD-1001 has 1 other refund at the gateway (USD 2.00): USD 98.00 left to refund`. */
  where: string;
}

export interface PreflightResult {
  /** Refund runs: transaction_id → the refund reference ids the gateway had before the run. */
  before: Record<string, string[]>;
  /** Rows done, and (refunds) possibly done, in line order. */
  done: DoneRow[];
  /** Refund runs: rows not done whose order has other refunds, with the balance left, in line order. */
  partly: PartlyRefunded[];
  /** Read-only requests made. */
  requests: number;
}

/** `20261123101502` → `2026-11-23 10:15:02` (the gateway's UTC time, as a person reads it). */
function gatewayDate(d: unknown): string {
  const at = parseGatewayTime(String(d ?? ''));
  return at ? at.toISOString().slice(0, 19).replace('T', ' ') : String(d ?? '');
}

/** What one look-up found: the refund records of a search, or the orders of a query. */
interface Found {
  refunds: RefundRecord[];
  orders: OrderRecord[];
}

/**
 * Rows that can be read by position: the row cache of pass 1 (row-cache.ts). The look-ups need only
 * the transaction ids of nearly every row, and the whole row only where the gateway answers with a
 * refund (or a done order) for it; from here each row's id costs a tenth of the whole row.
 */
export interface RowsByPosition<R> {
  readonly size: number;
  transactionIdAt(i: number): string;
  rowAt(i: number): R;
  /** The look-ups already cut as pass 1 read the rows (row-cache.ts `cutLookUps`), if any. */
  lookUpBatches?(limit: number): readonly LookUpBatch[] | undefined;
}

export type PreflightRows<R> = AsyncIterable<R> | Iterable<R> | RowsByPosition<R>;

/** One look-up request: its distinct transaction ids (joined by commas), and its rows when they are needed. */
interface Batch<R> {
  ids: string;
  rows: () => R[];
}

/** The ids of one look-up, cut by pass 1 or here: consecutive rows, at most `limit` distinct ids. */
export function lookUpLimit(op: BatchOperation): number {
  return ENDPOINTS[OPERATIONS[op].reconcile.by].limit ?? Number.POSITIVE_INFINITY;
}

function byPosition<R>(rows: PreflightRows<R>): rows is RowsByPosition<R> {
  return typeof (rows as RowsByPosition<R>).transactionIdAt === 'function';
}

/** Batches of rows by position, made without building a row (synchronous: no promise per row). */
function* batchesByPosition<R>(rows: RowsByPosition<R>, limit: number): Generator<Batch<R>> {
  const cut = (from: number, to: number, ids: string): Batch<R> => ({
    ids,
    rows: () => {
      const out: R[] = [];
      for (let i = from; i < to; i++) out.push(rows.rowAt(i));
      return out;
    },
  });
  // Cut by pass 1 already (the same rule as below): the ids need not be read back.
  const prebuilt = rows.lookUpBatches?.(limit);
  if (prebuilt !== undefined) {
    for (const b of prebuilt) yield cut(b.from, b.to, b.ids);
    return;
  }
  let from = 0;
  let ids = new Set<string>();
  for (let i = 0; i < rows.size; i++) {
    const id = rows.transactionIdAt(i);
    if (!ids.has(id) && ids.size === limit) {
      yield cut(from, i, [...ids].join(','));
      from = i;
      ids = new Set();
    }
    ids.add(id);
  }
  if (from < rows.size) yield cut(from, rows.size, [...ids].join(','));
}

/** Batches of a stream of rows (a file read again, or the rows a resumed run has not sent). */
async function* batchesOfStream<R extends BulkRow>(
  rows: AsyncIterable<R> | Iterable<R>,
  limit: number,
): AsyncGenerator<Batch<R>> {
  let batch: R[] = [];
  let ids = new Set<string>();
  const cut = (kept: R[], set: Set<string>): Batch<R> => ({ ids: [...set].join(','), rows: () => kept });
  for await (const row of rows) {
    if (!ids.has(row.transaction_id) && ids.size === limit) {
      yield cut(batch, ids);
      batch = [];
      ids = new Set();
    }
    ids.add(row.transaction_id);
    batch.push(row);
  }
  if (batch.length > 0) yield cut(batch, ids);
}

/**
 * Rows in batches whose distinct transaction ids fit one look-up request, in file order. Both
 * sources cut the same batches from the same rows.
 */
function batches<R extends BulkRow>(rows: PreflightRows<R>, limit: number) {
  return byPosition(rows) ? batchesByPosition(rows, limit) : batchesOfStream(rows, limit);
}

/** Look-ups in flight at most, per request a run may have in flight. */
export const LOOK_UP_FACTOR = 4;
/** …and at most this many, unless the run's own concurrency is higher. */
export const MAX_LOOK_UPS = 16;

/**
 * How many look-ups go at once for a run of `concurrency`: reads change nothing and may be retried
 * freely, so more of them are kept in flight than the run's sends. With only as many as the sends,
 * client and gateway took turns (each idle while the other worked) and the look-ups of 100,000 rows
 * took about twice as long.
 */
export function lookUpConcurrency(concurrency: number): number {
  return Math.max(concurrency, Math.min(concurrency * LOOK_UP_FACTOR, MAX_LOOK_UPS));
}

/** Batches cut while pass 1 still reads (look-ahead.ts), over rows read by position as they come. */
async function* batchesAsCut<R>(
  rows: RowsByPosition<R>,
  cut: AsyncIterable<LookUpBatch>,
): AsyncGenerator<Batch<R>> {
  for await (const b of cut) {
    yield {
      ids: b.ids,
      rows: () => {
        const out: R[] = [];
        for (let i = b.from; i < b.to; i++) out.push(rows.rowAt(i));
        return out;
      },
    };
  }
}

export interface PreflightOptions {
  /** The batches as pass 1 cuts them (look-ahead.ts), instead of cutting them from `rows` here. */
  cut?: AsyncIterable<LookUpBatch>;
  /** The pause between tries of a look-up (persist). */
  sleep?: (ms: number) => Promise<void>;
}

/** `concurrency`: the run's (--concurrency); the look-ups use `lookUpConcurrency` of it. */
export async function preflight<R extends BulkRow>(
  op: BatchOperation,
  client: GatewayClient,
  rows: PreflightRows<R>,
  concurrency: number,
  options: PreflightOptions = {},
): Promise<PreflightResult> {
  const rule = OPERATIONS[op].reconcile;
  const result: PreflightResult = { before: {}, done: [], partly: [], requests: 0 };
  // A refund vouches for at most one row: two rows of one file asking for the same refund are
  // refused by validation, but an earlier refund must not make two different rows look done.
  const vouched = new Set<string>();
  // Rows not done whose transaction has refunds, and those refunds: compared once every row that
  // matches a refund exactly has taken it (a later batch may hold the exact row of an order).
  const unmatched: Unmatched[] = [];
  const refundsOf = new Map<string, RefundRecord[]>();
  // Every state that means done for some element of this operation (query rule only).
  const doneStates = new Set<string>(rule.by === 'query' ? rule.done.flatMap((d) => d.states) : []);

  await runOrderedPool<Batch<R>, undefined, Found>({
    source:
      options.cut !== undefined && byPosition(rows)
        ? batchesAsCut(rows, options.cut)
        : batches(rows, lookUpLimit(op)),
    concurrency: lookUpConcurrency(concurrency),
    dispatch: (batch) => ({
      job: () =>
        persist(async () => {
          const ids = batch.ids;
          result.requests++;
          if (rule.by === 'refundSearch') {
            const res = await client.send('refundSearch', { transaction_id: ids });
            assertAccepted(res.data, client);
            return {
              refunds: Array.isArray(res.data.refund_orders) ? res.data.refund_orders : [],
              orders: [],
            };
          }
          const res = await client.send('query', { transaction_id: ids });
          assertAccepted(res.data, client);
          return { refunds: [], orders: Array.isArray(res.data.orders_list) ? res.data.orders_list : [] };
        }, options.sleep),
    }),
    emit: (batch, { refunds, orders }) => {
      if (rule.by === 'refundSearch') {
        for (const r of refunds) {
          const tx = String(r.transaction_id ?? '');
          const ref = String(r.refund_reference_id ?? '');
          if (tx === '' || ref === '') continue;
          // Nearly every transaction has one refund: an array of one, not one grown by push to 17
          // slots (a re-run of 100,000 rows all refunded kept 13.6 MB of such arrays).
          const list = result.before[tx];
          if (list === undefined) result.before[tx] = [ref];
          else if (!list.includes(ref)) list.push(ref);
        }
        // Most transactions of a file have no refund yet: only those that have one are compared,
        // and a batch without any refund is not even read as rows.
        if (refunds.length === 0) return;
        const refunded = new Set(refunds.map((r) => String(r.transaction_id ?? '')));
        for (const row of batch.rows()) {
          if (!refunded.has(row.transaction_id)) continue;
          const el = wireElement(op, row);
          const found = refunds.find(
            (r) =>
              r.transaction_id === row.transaction_id &&
              String(r.refund_status ?? '1') !== '0' &&
              !vouched.has(String(r.refund_reference_id ?? '')) &&
              sameMoney(r.refund_amount, el.refund_amount, row.currency) &&
              sameReason(String(r.refund_reason ?? ''), el.refund_reason),
          );
          if (found === undefined) {
            unmatched.push({
              line: row.line,
              tx: row.transaction_id,
              orderNo: row.order_no,
              currency: row.currency,
              orderMinor: row.amountMinor,
              amount: el.refund_amount,
            });
            if (!refundsOf.has(row.transaction_id)) {
              refundsOf.set(
                row.transaction_id,
                refunds.filter((r) => r.transaction_id === row.transaction_id),
              );
            }
            continue;
          }
          vouched.add(String(found.refund_reference_id ?? ''));
          result.done.push({
            line: row.line,
            ref: String(found.refund_reference_id ?? ''),
            where: `refund ${String(found.refund_reference_id ?? '') || '(no reference id)'} of ${gatewayDate(found.refund_date)}`,
          });
        }
        return;
      }
      if (rule.by !== 'query') return;
      // Most orders are not in a done state: a batch without one is not read as rows.
      if (!orders.some((o) => doneStates.has(String(o.payment_status ?? '')))) return;
      const byId = new Map(orders.map((o) => [String(o.transaction_id ?? ''), o]));
      for (const row of batch.rows()) {
        const order = byId.get(row.transaction_id);
        if (!order || (row.order_no && order.order_no && order.order_no !== row.order_no)) continue;
        const status = String(order.payment_status ?? '');
        // Most orders are not in a done state: no element is built for them.
        if (!doneStates.has(status)) continue;
        const el = wireElement(op, row);
        const states = rule.done.find((d) => elementMatches(d.when, el))?.states ?? [];
        if (!(states as readonly string[]).includes(status)) continue;
        const label = PAYMENT_STATUS_LABELS[status];
        result.done.push({
          line: row.line,
          where: `the order is already ${status}${label ? ` ${label}` : ''}`,
        });
      }
    },
  });
  possiblyDone(unmatched, refundsOf, vouched, result);
  result.done.sort((a, b) => a.line - b.line);
  result.partly.sort((a, b) => a.line - b.line);
  return result;
}

/** A refund row the gateway showed no exact refund for, although its transaction has refunds. */
interface Unmatched {
  line: number;
  tx: string;
  orderNo: string;
  currency: string;
  orderMinor: bigint;
  amount: string | undefined;
}

/**
 * Rows whose transaction has a refund of the same amount that no row took: possibly done (a reason
 * typed another way), each such refund for one row, in line order. The other rows are listed with
 * what is left to refund of their order.
 */
function possiblyDone(
  rows: Unmatched[],
  refundsOf: ReadonlyMap<string, RefundRecord[]>,
  vouched: Set<string>,
  result: PreflightResult,
): void {
  rows.sort((a, b) => a.line - b.line);
  for (const row of rows) {
    // Refunds the gateway refused (status 0) moved nothing.
    const live = (refundsOf.get(row.tx) ?? []).filter((r) => String(r.refund_status ?? '1') !== '0');
    const maybe = live.find(
      (r) =>
        !vouched.has(String(r.refund_reference_id ?? '')) &&
        sameMoney(r.refund_amount, row.amount, row.currency),
    );
    if (maybe !== undefined) {
      const ref = String(maybe.refund_reference_id ?? '');
      vouched.add(ref);
      result.done.push({
        line: row.line,
        ref,
        possible: true,
        tx: row.tx,
        where: `refund ${ref || '(no reference id)'} of ${gatewayDate(maybe.refund_date)}, reason ${quote(String(maybe.refund_reason ?? ''))} (the same amount, another reason)`,
      });
      continue;
    }
    if (live.length === 0) continue;
    let refunded = 0n;
    for (const r of live) {
      const p = parseAmount(String(r.refund_amount ?? ''), row.currency);
      if (p.ok) refunded += p.minor;
    }
    const left = row.orderMinor > refunded ? row.orderMinor - refunded : 0n;
    const others = live.length === 1 ? '1 other refund' : `${live.length} other refunds`;
    result.partly.push({
      line: row.line,
      where: `order ${row.orderNo} has ${others} at the gateway (${formatMoney(refunded, row.currency)}): ${formatMoney(left, row.currency)} left to refund`,
    });
  }
}
