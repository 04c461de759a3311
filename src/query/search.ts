// Core of `payops query` and `payops refunds search`: plan the requests, send them with bounded
// concurrency through the gateway client, and arrange what came back. Returns data; prints nothing.

import { assertAccepted, type GatewayClient, type RequestBody } from '../gateway/client.js';
import { ENDPOINTS } from '../gateway/endpoints.js';
import type { OrderRecord, RefundRecord } from '../gateway/types.js';
import type { Logger } from '../io.js';
import { arrange, type NotFound } from './arrange.js';
import { type PlannedRequest, planRequests } from './plan.js';
import { mapLimit } from './pool.js';
import { isRangeOnly, type Selection } from './selection.js';
import { fetchWholeRange, type WholeRangeResult, windowOf } from './whole-range.js';

export interface SearchDeps {
  client: GatewayClient;
  concurrency: number;
  log: Logger;
  signal?: AbortSignal;
  /** `--all`: called after each request of a whole-range fetch. */
  onProgress?: (state: { records: number; requests: number; pending: number }) => void;
}

/** `--all`: seconds that held more records than one request returns (see whole-range.ts). */
export type Saturated = WholeRangeResult<unknown>['saturated'];

export interface QueryOutcome {
  orders: OrderRecord[];
  notFound: NotFound[];
  /** Requests sent, refund searches included. */
  requests: number;
  /** A range-only search that came back full: the gateway returns at most `limit` records. */
  mayHaveMore: boolean;
  limit: number;
  /** Refund records by transaction_id, for every order shown (with `withRefunds`). */
  refunds?: Map<string, RefundRecord[]>;
  /** `--all` only. */
  saturated?: Saturated;
  /** The refunds were looked up because one order will be shown as a card, not because they were asked for. */
  refundsForCard?: boolean;
}

export interface RefundSearchOutcome {
  refunds: RefundRecord[];
  /** Asked-for orders with no refund record. */
  notFound: NotFound[];
  requests: number;
  mayHaveMore: boolean;
  limit: number;
  /** `--all` only. */
  saturated?: Saturated;
}

type SearchOp = 'query' | 'refundSearch';

async function sendAll<K extends SearchOp>(
  deps: SearchDeps,
  op: K,
  plans: PlannedRequest[],
): Promise<K extends 'query' ? OrderRecord[] : RefundRecord[]> {
  const arrayName = ENDPOINTS[op].batchArray;
  deps.log.verbose(`${op}: ${plans.length} request${plans.length === 1 ? '' : 's'}`);
  const pages = await mapLimit(plans, deps.concurrency, async (plan) => {
    const body = plan.body as RequestBody<K>;
    const res = await deps.client.send(op, body, deps.signal ? { signal: deps.signal } : {});
    assertAccepted(res.data, deps.client);
    const list = (res.data as unknown as Record<string, unknown>)[arrayName];
    return Array.isArray(list) ? list : [];
  });
  return pages.flat() as K extends 'query' ? OrderRecord[] : RefundRecord[];
}

/** `--all`: every record of the selection's date range (whole-range.ts), each once. */
async function sendWholeRange<K extends SearchOp>(
  deps: SearchDeps,
  op: K,
  sel: Selection,
  identity: (r: K extends 'query' ? OrderRecord : RefundRecord) => string,
): Promise<WholeRangeResult<K extends 'query' ? OrderRecord : RefundRecord>> {
  type R = K extends 'query' ? OrderRecord : RefundRecord;
  if (!sel.start || !sel.end) throw new RangeError('a whole-range search needs both ends of the range');
  return fetchWholeRange<R>(windowOf(sel.start, sel.end), {
    limit: ENDPOINTS[op].limit,
    concurrency: deps.concurrency,
    send: async (plan) => (await sendAll(deps, op, [plan])) as R[],
    transactionOf: (r) => r.transaction_id,
    identity,
    ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
}

/** Oldest first, then by id: a whole range reads like a ledger. */
function byDate<R>(dateOf: (r: R) => string, idOf: (r: R) => string): (a: R, b: R) => number {
  return (a, b) => {
    const [da, db] = [dateOf(a), dateOf(b)];
    if (da !== db) return da < db ? -1 : 1;
    const [ia, ib] = [idOf(a), idOf(b)];
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  };
}

const byReference = (a: RefundRecord, b: RefundRecord) =>
  a.refund_reference_id < b.refund_reference_id ? -1 : a.refund_reference_id > b.refund_reference_id ? 1 : 0;

const refundIdentity = (r: RefundRecord) => `${r.transaction_id}\u0000${r.refund_reference_id}`;

export async function searchRefunds(
  deps: SearchDeps,
  sel: Selection,
  opts: { all?: boolean } = {},
): Promise<RefundSearchOutcome> {
  const limit = ENDPOINTS.refundSearch.limit;
  if (opts.all) {
    const whole = await sendWholeRange(deps, 'refundSearch', sel, refundIdentity);
    const refunds = whole.records.sort(
      byDate(
        (r) => r.refund_date,
        (r) => r.refund_reference_id,
      ),
    );
    return {
      refunds,
      notFound: [],
      requests: whole.requests,
      mayHaveMore: false,
      limit,
      saturated: whole.saturated,
    };
  }
  const plans = planRequests(sel, limit);
  const records = await sendAll(deps, 'refundSearch', plans);
  const { items, notFound } = arrange(sel, records, refundIdentity, byReference);
  return {
    refunds: items,
    notFound,
    requests: plans.length,
    mayHaveMore: isRangeOnly(sel) && records.length >= limit,
    limit,
  };
}

export async function queryOrders(
  deps: SearchDeps,
  sel: Selection,
  /**
   * `withRefunds`: the refunds of every order shown. `refundsForCard`: those of the order when
   * exactly one comes back (a card shows its refunds without being asked: issue 15). `all`: every
   * order of the range (--all).
   */
  opts: { withRefunds?: boolean; refundsForCard?: boolean; all?: boolean } = {},
): Promise<QueryOutcome> {
  const limit = ENDPOINTS.query.limit;
  const orderIdentity = (r: OrderRecord) => `${r.transaction_id}\u0000${r.order_no}`;
  let outcome: QueryOutcome;
  if (opts.all) {
    const whole = await sendWholeRange(deps, 'query', sel, orderIdentity);
    const orders = whole.records
      .filter((r) => r.query_result !== '0')
      .sort(
        byDate(
          (r) => r.transaction_date,
          (r) => r.transaction_id,
        ),
      );
    outcome = { orders, notFound: [], requests: whole.requests, mayHaveMore: false, limit };
    outcome.saturated = whole.saturated;
  } else {
    const plans = planRequests(sel, limit);
    // query_result 0 is the gateway's per-order "no such order" (design.md §1.3): not an order to show.
    const records = (await sendAll(deps, 'query', plans)).filter((r) => r.query_result !== '0');
    const { items, notFound } = arrange(sel, records, orderIdentity);
    outcome = {
      orders: items,
      notFound,
      requests: plans.length,
      mayHaveMore: isRangeOnly(sel) && records.length >= limit,
      limit,
    };
  }
  const items = outcome.orders;
  const forCard = !opts.withRefunds && Boolean(opts.refundsForCard) && items.length === 1;
  if ((opts.withRefunds && items.length > 0) || forCard) {
    // The refunds of exactly the orders shown, by transaction id; the date range of a query is on
    // transaction_date and does not apply to refund dates.
    const refundSel: Selection = {
      orderNos: [],
      transactionIds: [...new Set(items.map((o) => o.transaction_id))],
    };
    const refundPlans = planRequests(refundSel, ENDPOINTS.refundSearch.limit);
    const refunds = await sendAll(deps, 'refundSearch', refundPlans);
    const { items: arranged } = arrange(refundSel, refunds, refundIdentity, byReference);
    const map = new Map<string, RefundRecord[]>();
    for (const r of arranged) map.set(r.transaction_id, [...(map.get(r.transaction_id) ?? []), r]);
    outcome.refunds = map;
    if (forCard) outcome.refundsForCard = true;
    outcome.requests += refundPlans.length;
  }
  return outcome;
}
