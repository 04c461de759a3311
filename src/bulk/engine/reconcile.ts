// Reconciliation: what did the gateway do with rows whose request may have reached it but whose
// answer was lost? Only read-only requests (refund search, query), which may be retried freely.
// Which request, and what counts as done, is the operation's `reconcile` rule (operations.ts):
// refunds are matched to refund records (transaction, amount, reason; new since the run's preflight,
// or for older runs dated after the intent), each record used once, and a row sent more than once
// that matches two new records is `duplicated`; capture/cancel/review are decided by the order's
// payment_status now.
import { allowedFrom, elementMatches } from '../../gateway/batch-rules.js';
import type { GatewayClient } from '../../gateway/client.js';
import { assertAccepted } from '../../gateway/client.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { ENDPOINTS } from '../../gateway/endpoints.js';
import { PAYMENT_STATUS_LABELS } from '../../gateway/status.js';
import { formatGatewayTime, parseGatewayTime } from '../../gateway/time.js';
import type { RefundRecord } from '../../gateway/types.js';
import { parseAmount } from '../../money/amount.js';
import { quote } from '../../quote.js';
import { type DoneRule, OPERATIONS } from '../operations.js';
import { reasonEchoes, reasonKey, sameReason } from '../plan/reason.js';
import type { RowOutcome, WireElement } from '../types.js';

export interface ReconcileItem {
  line: number;
  element: WireElement;
  /** ISO 8601 time the chunk's intent was written (just before it was sent). */
  sentAt: string;
}

export interface ReconcileOptions {
  /** refund_reference_ids already attributed elsewhere: never matched; matched ones are added. */
  claimed?: Set<string>;
  /**
   * The refund references each transaction had before the run (preflight). When known, a refund is
   * this run's by being new — no clock is compared; else (runs made before preflight) by its date.
   */
  before?: Readonly<Record<string, readonly string[]>>;
}

/** Runs made before preflight only: how far behind ours the gateway's clock may be. */
export const DEFAULT_SKEW_MS = 120_000;

function statusText(code: string): string {
  const label = PAYMENT_STATUS_LABELS[code];
  return label ? `${code} ${label}` : code || '(none)';
}

/** The same amount of money, however each side spelled it (`5` and `5.00`). */
export function sameMoney(a: unknown, b: string | undefined, currency: string | undefined): boolean {
  if (typeof a !== 'string' || b === undefined) return false;
  if (a === b) return true;
  const pa = parseAmount(a, currency ?? '');
  const pb = parseAmount(b, currency ?? '');
  return pa.ok && pb.ok && pa.minor === pb.minor;
}

function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function unknownAll(items: ReconcileItem[], err: unknown): RowOutcome[] {
  const why = err instanceof Error ? err.message : String(err);
  return items.map((it) => ({
    line: it.line,
    outcome: 'unknown',
    detail: `outcome unknown and the gateway could not be asked (${why}); resume the run later to reconcile`,
    fields: {},
  }));
}

/** One outcome per item, in item order. Never throws: what cannot be established stays `unknown`. */
export async function reconcile(
  op: BatchOperation,
  client: GatewayClient,
  items: ReconcileItem[],
  opts: ReconcileOptions = {},
): Promise<RowOutcome[]> {
  if (items.length === 0) return [];
  const rule = OPERATIONS[op].reconcile;
  const limit = ENDPOINTS[rule.by].limit;
  const byLine = new Map<number, RowOutcome>();
  // Group by distinct transaction ids so that no request names more than `limit` of them.
  const ids = [...new Set(items.map((it) => it.element.transaction_id!))];
  for (const idBatch of batches(ids, limit)) {
    const wanted = new Set(idBatch);
    const these = items.filter((it) => wanted.has(it.element.transaction_id!));
    let outcomes: RowOutcome[];
    try {
      outcomes =
        rule.by === 'refundSearch'
          ? await reconcileRefunds(client, idBatch, these, opts)
          : await reconcileByState(op, rule.done, client, idBatch, these);
    } catch (err) {
      outcomes = unknownAll(these, err);
    }
    for (const o of outcomes) byLine.set(o.line, o);
  }
  return items.map((it) => byLine.get(it.line)!);
}

async function reconcileRefunds(
  client: GatewayClient,
  ids: string[],
  items: ReconcileItem[],
  opts: ReconcileOptions,
): Promise<RowOutcome[]> {
  const skew = DEFAULT_SKEW_MS;
  const earliest = Math.min(...items.map((it) => Date.parse(it.sentAt)));
  // Whole seconds: gateway times have no fraction.
  const since = Math.floor((earliest - skew) / 1000) * 1000;
  const { before } = opts;
  const res = await client.send('refundSearch', {
    transaction_id: ids.join(','),
    ...(before ? {} : { start_date: formatGatewayTime(since) }),
  });
  assertAccepted(res.data, client);
  const records = Array.isArray(res.data.refund_orders) ? res.data.refund_orders : [];
  const used = new Set<number>();
  const isNew = (r: RefundRecord, it: ReconcileItem): boolean => {
    if (before) return !(before[r.transaction_id ?? ''] ?? []).includes(r.refund_reference_id ?? '');
    const notBefore = Math.floor((Date.parse(it.sentAt) - skew) / 1000) * 1000;
    return (parseGatewayTime(r.refund_date)?.getTime() ?? Number.NaN) >= notBefore;
  };
  // The records that can be each row's own refund: its transaction, its amount in minor units, new
  // since the run began, not another row's, and a reason the gateway's echo can be of the row's
  // (reason.ts: compared by meaning; a gateway may upper-case, trim or truncate it). Records whose
  // reason means exactly the row's are preferred to ones that are only a cut-short echo of it.
  const byTransaction = new Map<string, number[]>();
  records.forEach((r, i) => {
    const list = byTransaction.get(r.transaction_id ?? '');
    if (list) list.push(i);
    else byTransaction.set(r.transaction_id ?? '', [i]);
  });
  const own = items.map((it): number[] => {
    const el = it.element;
    const fits: number[] = [];
    for (const i of byTransaction.get(el.transaction_id ?? '') ?? []) {
      const r = records[i]!;
      if (
        String(r.refund_status ?? '1') !== '0' &&
        sameMoney(r.refund_amount, el.refund_amount, el.currency) &&
        reasonEchoes(el.refund_reason, r.refund_reason) &&
        isNew(r, it) &&
        !(r.refund_reference_id && opts.claimed?.has(r.refund_reference_id))
      )
        fits.push(i);
    }
    const exact = fits.filter((i) => sameReason(el.refund_reason, records[i]!.refund_reason));
    return exact.length > 0 ? exact : fits;
  });
  // Which rows (by what they mean: transaction, amount, reason) each record can belong to. A record
  // two different rows can claim — two partial refunds of one amount whose reasons the gateway cut
  // to the same text — proves neither: both rows stay unknown, and are never sent again.
  const meaning = items.map((it) => rowMeaning(it.element));
  const owners = new Map<number, Set<string>>();
  own.forEach((list, n) => {
    for (const i of list) {
      const set = owners.get(i) ?? new Set<string>();
      set.add(meaning[n]!);
      owners.set(i, set);
    }
  });
  return items.map((it, n): RowOutcome => {
    const el = it.element;
    const all = own[n]!.filter((i) => !used.has(i));
    const shared = all.filter((i) => owners.get(i)!.size > 1);
    if (shared.length > 0) {
      const others = items.flatMap((o, m) =>
        meaning[m] !== meaning[n] && own[m]!.some((i) => shared.includes(i)) ? [o.line] : [],
      );
      return ambiguous(it, shared, records, others);
    }
    // A file never holds the same refund twice (validate.ts), so two new refunds that match one row
    // mean it was applied twice — a request committed after payops found it not applied, or someone
    // else refunding the same during the run. Said loudly, with every reference; only with a
    // preflight record, without which "new" cannot be told from "made before".
    if (all.length > 1 && before) {
      for (const i of all) used.add(i);
      return duplicated(
        it,
        all.map((i) => records[i]!),
        opts.claimed,
      );
    }
    const idx = all[0] ?? -1;
    if (idx < 0) {
      return {
        line: it.line,
        outcome: 'failed',
        detail: before
          ? `not refunded: the gateway has no new refund of ${el.refund_amount} ${el.currency} for this order (checked by refund search)`
          : `not refunded: the gateway has no refund of ${el.refund_amount} ${el.currency} for this order since the request was sent (checked by refund search)`,
        fields: {},
        absent: true,
      };
    }
    used.add(idx);
    const r = records[idx]!;
    if (r.refund_reference_id) opts.claimed?.add(r.refund_reference_id);
    return {
      line: it.line,
      outcome: 'succeeded',
      detail: `refunded (found by refund search: ${r.refund_reference_id || 'no reference id'}, ${r.refund_date})`,
      fields: {
        refund_status: String(r.refund_status ?? ''),
        refund_reference: String(r.refund_reference ?? ''),
        refund_reference_id: String(r.refund_reference_id ?? ''),
      },
    };
  });
}

/** A row by what it means: transaction, amount in minor units, reason by meaning. */
function rowMeaning(el: WireElement): string {
  const parsed = parseAmount(el.refund_amount ?? '', el.currency ?? '');
  const money = parsed.ok ? String(parsed.minor) : (el.refund_amount ?? '');
  return `${el.transaction_id ?? ''}\u0000${money}\u0000${reasonKey(el.refund_reason)}`;
}

/**
 * A row whose refund cannot be told from another row's (`shared` records fit both): unknown, with
 * the refunds and the other rows named, for a person to settle.
 */
function ambiguous(
  it: ReconcileItem,
  shared: readonly number[],
  records: readonly RefundRecord[],
  others: readonly number[],
): RowOutcome {
  const refs = shared.map((i) => String(records[i]!.refund_reference_id ?? '') || 'no reference id');
  const echoed = String(records[shared[0]!]!.refund_reason ?? '');
  const lines = others.length > 0 ? `line ${others.join(', line ')}` : 'another row';
  return {
    line: it.line,
    outcome: 'unknown',
    detail: `ambiguous: refund search shows ${refs.join(', ')} with the reason ${quote(echoed)}, which could be this row's refund or ${lines}'s; not sent again — check the order at the gateway (payops refunds search --transaction-id ${it.element.transaction_id ?? ''})`,
    fields: {},
  };
}

function duplicated(it: ReconcileItem, found: RefundRecord[], claimed: Set<string> | undefined): RowOutcome {
  for (const r of found) if (r.refund_reference_id) claimed?.add(r.refund_reference_id);
  const refs = found.map((r) => String(r.refund_reference_id ?? '') || 'no reference id');
  const first = found[0]!;
  return {
    line: it.line,
    outcome: 'duplicated',
    detail: `refunded ${found.length} times since the run began (${refs.join(', ')}): the gateway applied a request after payops had found it not applied, or someone else refunded it too; ask the gateway to reverse the extra refund`,
    fields: {
      refund_status: String(first.refund_status ?? ''),
      refund_reference: String(first.refund_reference ?? ''),
      refund_reference_id: refs.join(' '),
    },
  };
}

/** payment_status values that mean the operation took effect for this element. */
function doneStates(done: readonly DoneRule[], element: WireElement): readonly string[] {
  return done.find((rule) => elementMatches(rule.when, element))?.states ?? [];
}

async function reconcileByState(
  op: BatchOperation,
  done: readonly DoneRule[],
  client: GatewayClient,
  ids: string[],
  items: ReconcileItem[],
): Promise<RowOutcome[]> {
  const res = await client.send('query', { transaction_id: ids.join(',') });
  assertAccepted(res.data, client);
  const orders = Array.isArray(res.data.orders_list) ? res.data.orders_list : [];
  const byId = new Map(orders.map((o) => [o.transaction_id, o]));
  const doneWord = OPERATIONS[op].words.done;
  // From these the operation can still take effect: not done means it certainly did not happen.
  const eligible: readonly string[] = allowedFrom(op);
  return items.map((it): RowOutcome => {
    const el = it.element;
    const order = byId.get(el.transaction_id!);
    if (!order || (el.order_no && order.order_no && order.order_no !== el.order_no)) {
      return {
        line: it.line,
        outcome: 'failed',
        detail: `not ${doneWord}: the gateway does not know this order (checked by query)`,
        fields: {},
      };
    }
    const status = String(order.payment_status ?? '');
    const ok = doneStates(done, el).includes(status);
    const out: RowOutcome = {
      line: it.line,
      outcome: ok ? 'succeeded' : 'failed',
      detail: ok
        ? `${doneWord}: the order is now ${statusText(status)} (checked by query)`
        : `not ${doneWord}: the order is ${statusText(status)} (checked by query)`,
      fields: {},
    };
    if (!ok && eligible.includes(status)) out.absent = true;
    return out;
  });
}
