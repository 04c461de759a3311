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

export interface SearchDeps {
  client: GatewayClient;
  concurrency: number;
  log: Logger;
  signal?: AbortSignal;
}

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

const byReference = (a: RefundRecord, b: RefundRecord) =>
  a.refund_reference_id < b.refund_reference_id ? -1 : a.refund_reference_id > b.refund_reference_id ? 1 : 0;

const refundIdentity = (r: RefundRecord) => `${r.transaction_id}\u0000${r.refund_reference_id}`;

export async function searchRefunds(deps: SearchDeps, sel: Selection): Promise<RefundSearchOutcome> {
  const limit = ENDPOINTS.refundSearch.limit;
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
   * exactly one comes back (a card shows its refunds without being asked: issue 15).
   */
  opts: { withRefunds?: boolean; refundsForCard?: boolean } = {},
): Promise<QueryOutcome> {
  const limit = ENDPOINTS.query.limit;
  const plans = planRequests(sel, limit);
  // query_result 0 is the gateway's per-order "no such order" (design.md §1.3): not an order to show.
  const records = (await sendAll(deps, 'query', plans)).filter((r) => r.query_result !== '0');
  const { items, notFound } = arrange(sel, records, (r) => `${r.transaction_id}\u0000${r.order_no}`);
  const outcome: QueryOutcome = {
    orders: items,
    notFound,
    requests: plans.length,
    mayHaveMore: isRangeOnly(sel) && records.length >= limit,
    limit,
  };
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
