// /v1/retrievalTrans (order query) and /v1/retrievalRefund (refund search): form bodies, selection
// by order_no / transaction_id lists and a transaction_date / refund_date range (design.md §1.2).
import { ENDPOINTS } from '../gateway/endpoints.js';
import { formatGatewayTime } from '../gateway/time.js';
import type { OrderRecord, RefundRecord } from '../gateway/types.js';
import {
  authenticate,
  jsonReply,
  normaliseIp,
  type Reply,
  type SandboxContext,
  signInPlace,
} from './context.js';
import { formatAmount, parseCompactTime, Rejection } from './fields.js';
import type { Order, Refund } from './store.js';

type Form = Record<string, string>;

interface Selection {
  orderNos: string[];
  transactionIds: string[];
  from: number;
  to: number;
}

function list(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The selection form's fields (design.md §1.2): anything else is refused, as a real gateway would. */
const FORM_FIELDS: readonly string[] = [
  'merchant_id',
  'account_id',
  'encryption_data',
  'order_no',
  'transaction_id',
  'start_date',
  'end_date',
];

function select(form: Form, limit: number): Selection {
  for (const field of Object.keys(form)) {
    if (!FORM_FIELDS.includes(field)) throw new Rejection('E1005', `${field} is not a field of this request`);
  }
  const orderNos = list(form.order_no);
  const transactionIds = list(form.transaction_id);
  if (orderNos.length + transactionIds.length > limit) {
    throw new Rejection(
      'E1004',
      `${orderNos.length + transactionIds.length} values, at most ${limit} per request`,
    );
  }
  const bound = (field: 'start_date' | 'end_date', fallback: number): number => {
    const v = form[field];
    if (v === undefined || v === '') return fallback;
    const t = parseCompactTime(v);
    if (t === undefined) throw new Rejection('E1005', `${field} must be a UTC time YYYYMMDDhhmmss`);
    return t;
  };
  // end_date is inclusive to the second.
  return {
    orderNos,
    transactionIds,
    from: bound('start_date', -Infinity),
    to: bound('end_date', Infinity - 1) + 999,
  };
}

/**
 * Orders of the account named by the lists, in request order, without repeats; an asked-for value
 * that names none stays as `field:value`, made only then (a look-up names 100 transactions, and a
 * bulk run makes a thousand look-ups).
 */
function listedOrders(ctx: SandboxContext, sel: Selection, accountId: string): Array<Order | string> {
  const seen = new Set<Order>();
  const out: Array<Order | string> = [];
  const scan = (values: string[], index: Map<string, Order>, field: string) => {
    for (const value of values) {
      const order = index.get(value);
      if (order === undefined || order.account_id !== accountId) out.push(`${field}:${value}`);
      else if (!seen.has(order)) {
        seen.add(order);
        out.push(order);
      }
    }
  };
  scan(sel.orderNos, ctx.store.byOrderNo, 'order_no');
  scan(sel.transactionIds, ctx.store.byTransactionId, 'transaction_id');
  return out;
}

export function handleQuery(ctx: SandboxContext, form: Form, remoteIp: string): Reply {
  const head = { merchant_id: form.merchant_id ?? '', account_id: form.account_id ?? '' };
  const reject = (message: string, status = 200) =>
    jsonReply({ ...head, return_status: '0', return_message: message, orders_list: [] }, status);
  try {
    authenticate(ctx, form);
    if (!ctx.registeredIps.has(normaliseIp(remoteIp))) {
      return reject(`E1003:caller IP ${remoteIp} is not registered`, 403);
    }
    const sel = select(form, ENDPOINTS.query.limit);
    const records: OrderRecord[] = [];
    if (sel.orderNos.length + sel.transactionIds.length > 0) {
      for (const hit of listedOrders(ctx, sel, form.account_id!)) {
        if (typeof hit === 'string') records.push(notFound(hit));
        else if (hit.created >= sel.from && hit.created <= sel.to) records.push(orderRecord(ctx, hit));
      }
    } else {
      // No list: the newest orders in the range.
      const orders = ctx.store.orders;
      for (let i = orders.length - 1; i >= 0 && records.length < ENDPOINTS.query.limit; i--) {
        const o = orders[i]!;
        if (o.account_id === form.account_id && o.created >= sel.from && o.created <= sel.to) {
          records.push(orderRecord(ctx, o));
        }
      }
    }
    return jsonReply({ ...head, return_status: '1', return_message: 'OK', orders_list: records });
  } catch (err) {
    if (err instanceof Rejection) return reject(err.message);
    throw err;
  }
}

const EMPTY_DELIVERY = {
  delivery_address: '',
  delivery_city: '',
  delivery_country: '',
  delivery_firstname: '',
  delivery_lastname: '',
  delivery_postal_code: '',
  delivery_state: '',
};

export function orderRecord(ctx: SandboxContext, o: Order): OrderRecord {
  const d = o.details;
  const sub = d?.subscription;
  return {
    order_no: o.order_no,
    transaction_id: o.transaction_id,
    reference_no: d?.reference_no ?? '',
    amount: formatAmount(o.amount, ctx.currencies.get(o.currency) ?? 2),
    currency: o.currency,
    payment_status: o.status,
    query_result: '1',
    is3ds: d?.is3ds ? '1' : '0',
    transaction_date: formatGatewayTime(o.created),
    website: d?.website ?? '',
    shopper_email: d?.shopper_email ?? '',
    shopper_phone: d?.shopper_phone ?? '',
    delivery_information: { ...EMPTY_DELIVERY, ...d?.delivery },
    antifraud_provider: 'sandbox-screening',
    fraud_check_result: [{ check_items: 'risk_score', status: d?.risk === 'REJECT' ? 'REJECT' : 'ACCEPT' }],
    subscription_result: {
      contract_name: sub?.contract_name ?? '',
      recurring_deduction_period: sub?.period ?? '',
      recurring_deduction_time: sub?.time ?? '',
      recurring_id: sub?.recurring_id ?? '',
      recurring_status: sub ? '1' : '',
    },
  };
}

/** An asked-for order that does not exist (or belongs to another account): query_result 0. */
function notFound(asked: string): OrderRecord {
  const [field, value] = [asked.slice(0, asked.indexOf(':')), asked.slice(asked.indexOf(':') + 1)];
  return {
    order_no: field === 'order_no' ? value : '',
    transaction_id: field === 'transaction_id' ? value : '',
    reference_no: '',
    amount: '',
    currency: '',
    payment_status: '',
    query_result: '0',
    is3ds: '',
    transaction_date: '',
    website: '',
    shopper_email: '',
    shopper_phone: '',
    delivery_information: { ...EMPTY_DELIVERY },
    antifraud_provider: '',
    fraud_check_result: [],
    subscription_result: {
      contract_name: '',
      recurring_deduction_period: '',
      recurring_deduction_time: '',
      recurring_id: '',
      recurring_status: '',
    },
  };
}

export function handleRefundSearch(ctx: SandboxContext, form: Form): Reply {
  const envelope = (status: string, message: string, records: RefundRecord[]) =>
    jsonReply(
      signInPlace(ctx, {
        merchant_id: form.merchant_id ?? '',
        account_id: form.account_id ?? '',
        return_status: status,
        return_message: message,
        encryption_data: '',
        refund_orders: records,
      }),
    );
  try {
    authenticate(ctx, form);
    const sel = select(form, ENDPOINTS.refundSearch.limit);
    const inRange = (r: Refund) => r.date >= sel.from && r.date <= sel.to;
    const records: RefundRecord[] = [];
    if (sel.orderNos.length + sel.transactionIds.length > 0) {
      for (const hit of listedOrders(ctx, sel, form.account_id!)) {
        if (typeof hit === 'string') continue;
        for (const r of ctx.store.refundsByTransactionId.get(hit.transaction_id) ?? []) {
          if (inRange(r)) records.push(refundRecord(ctx, hit, r));
        }
      }
    } else {
      const refunds = ctx.store.refunds;
      for (let i = refunds.length - 1; i >= 0 && records.length < ENDPOINTS.refundSearch.limit; i--) {
        const r = refunds[i]!;
        const order = ctx.store.byTransactionId.get(r.transaction_id);
        if (order && order.account_id === form.account_id && inRange(r))
          records.push(refundRecord(ctx, order, r));
      }
    }
    return envelope('1', 'OK', records);
  } catch (err) {
    if (err instanceof Rejection) return envelope('0', err.message, []);
    throw err;
  }
}

function refundRecord(ctx: SandboxContext, o: Order, r: Refund): RefundRecord {
  const digits = ctx.currencies.get(o.currency) ?? 2;
  return {
    transaction_id: o.transaction_id,
    order_no: o.order_no,
    amount: formatAmount(o.amount, digits),
    currency: o.currency,
    refund_status: '1',
    payment_status: o.status,
    refund_amount: formatAmount(r.refund_amount, digits),
    refund_reference: r.refund_reference,
    refund_reason: r.refund_reason,
    refund_reference_id: r.refund_reference_id,
    refund_date: formatGatewayTime(r.date),
    // Refunds settle at once in the sandbox.
    refund_processing_date: formatGatewayTime(r.date),
  };
}
