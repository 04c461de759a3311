// A tiny in-memory gateway behind the GatewayClient interface, for engine and reconciliation unit
// tests: refunds and captures with per-call fault injection, and a ledger of money movements.
import { GatewayError, TransportError, UnknownOutcomeError } from '../../../src/errors.js';
import { type GatewayClient, type GatewayResponse, sendBatchWith } from '../../../src/gateway/client.js';
import type { OperationName } from '../../../src/gateway/endpoints.js';

export interface FakeOrder {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  status: string;
  refunded: number;
}

export interface FakeRefund {
  transaction_id: string;
  order_no: string;
  amount: string;
  currency: string;
  refund_amount: string;
  refund_reason: string;
  refund_reference_id: string;
  refund_date: string;
}

/** What to do with the n-th money-moving call (0-based). */
export type Fault =
  | 'ok'
  | 'lost_after_commit'
  | 'lost_before_commit'
  | 'unreachable'
  | 'reject_whole'
  | 'reject_malformed'
  | 'auth'
  | 'drop_one_result'
  /** Answers as lost at once and commits the batch `lateMs` later (a gateway that commits late). */
  | 'commit_late'
  /** Processes the batch, then answers return_status 0 with every per-order result (the spec allows it). */
  | 'status_zero'
  /** Applies the batch, then answers HTTP 409 (E2005) — an error answer after the work was done. */
  | 'http409_after_commit'
  /** The same with E9001 in the body: not a refusal once the batch was applied. */
  | 'http409_e9001_after_commit'
  /** HTTP 400 (E1005), nothing applied. */
  | 'http400_before_commit';

/** Faults answered by rejecting the whole request (return_status 0), with this message. */
const WHOLE_REJECTIONS: Partial<Record<Fault, string>> = {
  reject_whole: 'E9001:temporarily unavailable',
  reject_malformed: 'E1005:refund_orders[0].amount is malformed',
  auth: 'E1001:invalid signature',
};

export interface FakeGateway {
  client: GatewayClient;
  orders: Map<string, FakeOrder>;
  refunds: FakeRefund[];
  ledger: Array<{ kind: string; transaction_id: string }>;
  calls: Array<{ op: string; body: Record<string, unknown> }>;
  faults: (callIndex: number, op: string) => Fault;
  /** commit_late's delay (ms). */
  lateMs: number;
}

function gwTime(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/[-T:]/g, '');
}

export function fakeGateway(orderCount: number, status = '3000'): FakeGateway {
  const orders = new Map<string, FakeOrder>();
  for (let i = 1; i <= orderCount; i++) {
    const id = `T${String(i).padStart(5, '0')}`;
    orders.set(id, {
      transaction_id: id,
      order_no: `O${i}`,
      currency: 'USD',
      amount: '10.00',
      status,
      refunded: 0,
    });
  }
  let moneyCalls = 0;
  const gw: FakeGateway = {
    orders,
    refunds: [],
    ledger: [],
    calls: [],
    faults: () => 'ok',
    lateMs: 100,
    client: undefined as unknown as GatewayClient,
  };

  function refundOne(el: Record<string, string>): Record<string, string> {
    const o = orders.get(el.transaction_id!);
    const base = { ...el, refund_reference: '', refund_reference_id: '' };
    if (!o) return { ...base, refund_status: '0', refund_message: 'E2001:order not found' };
    const amt = Math.round(Number(el.refund_amount) * 100);
    if (o.status !== '3000' && o.status !== '4100') {
      return { ...base, refund_status: '0', refund_message: `E2003:not allowed in state ${o.status}` };
    }
    if (o.refunded + amt > Math.round(Number(o.amount) * 100)) {
      return { ...base, refund_status: '0', refund_message: 'E2004:refund exceeds the refundable balance' };
    }
    o.refunded += amt;
    o.status = o.refunded === Math.round(Number(o.amount) * 100) ? '4000' : '4100';
    const seq = gw.refunds.filter((r) => r.transaction_id === o.transaction_id).length + 1;
    const ref = `${o.transaction_id}-${String(seq).padStart(2, '0')}`;
    gw.refunds.push({
      transaction_id: o.transaction_id,
      order_no: o.order_no,
      amount: o.amount,
      currency: o.currency,
      refund_amount: el.refund_amount!,
      refund_reason: el.refund_reason!,
      refund_reference_id: ref,
      refund_date: gwTime(new Date()),
    });
    gw.ledger.push({ kind: 'refund', transaction_id: o.transaction_id });
    return {
      ...base,
      refund_status: '1',
      refund_message: '0000:Refund accepted',
      refund_reference: `R${ref}`,
      refund_reference_id: ref,
    };
  }

  function captureOne(el: Record<string, string>): Record<string, string> {
    const o = orders.get(el.transaction_id!);
    if (!o) return { ...el, capture_status: '0', error_message: 'E2001:order not found' };
    if (o.status !== '2000') return { ...el, capture_status: '0', error_message: `E2003:state ${o.status}` };
    o.status = '3000';
    gw.ledger.push({ kind: 'capture', transaction_id: o.transaction_id });
    return { ...el, capture_status: '1', error_message: '' };
  }

  const envelope = { merchant_id: '800001', account_id: '800001001', encryption_data: 'x' };

  gw.client = {
    baseUrl: 'http://fake',
    merchantId: '800001',
    accountId: '800001001',
    async send<K extends OperationName>(op: K, body: unknown): Promise<GatewayResponse<never>> {
      const b = body as Record<string, unknown>;
      gw.calls.push({ op, body: b });
      const respond = (data: unknown) =>
        ({ status: 200, data, signature: 'valid', durationMs: 1 }) as unknown as GatewayResponse<never>;
      if (op === 'refundSearch') {
        const ids = new Set(String(b.transaction_id ?? '').split(','));
        const since = String(b.start_date ?? '');
        const found = gw.refunds
          .filter((r) => ids.has(r.transaction_id) && (since === '' || r.refund_date >= since))
          .map((r) => ({
            ...r,
            refund_status: '1',
            payment_status: orders.get(r.transaction_id)!.status,
            refund_reference: `R${r.refund_reference_id}`,
            refund_processing_date: '',
          }));
        return respond({ ...envelope, return_status: '1', return_message: 'OK', refund_orders: found });
      }
      if (op === 'query') {
        const ids = String(b.transaction_id ?? '').split(',');
        const list = ids.flatMap((id) => {
          const o = orders.get(id);
          return o
            ? [{ transaction_id: o.transaction_id, order_no: o.order_no, payment_status: o.status }]
            : [];
        });
        return respond({ ...envelope, return_status: '1', return_message: 'OK', orders_list: list });
      }
      const fault = gw.faults(moneyCalls++, op);
      if (fault === 'unreachable') throw new TransportError('connection refused');
      if (fault === 'lost_before_commit') throw new UnknownOutcomeError('socket hang up', 'reset');
      const rejection = WHOLE_REJECTIONS[fault];
      if (rejection !== undefined) {
        return respond({ ...envelope, return_status: '0', return_message: rejection, [`${op}_orders`]: [] });
      }
      if (fault === 'http400_before_commit') {
        throw new GatewayError('the gateway rejected the request (HTTP 400: E1005: malformed)', {
          status: 400,
          code: 'E1005',
        });
      }
      const arrayName = `${op}_orders`;
      const elements = b[arrayName] as Record<string, string>[];
      if (fault === 'commit_late') {
        setTimeout(() => {
          for (const el of elements) op === 'refund' ? refundOne(el) : captureOne(el);
        }, gw.lateMs);
        throw new UnknownOutcomeError('HTTP 500', 'http_500');
      }
      let results = elements.map((el) => (op === 'refund' ? refundOne(el) : captureOne(el)));
      if (fault === 'lost_after_commit') throw new UnknownOutcomeError('timed out', 'timeout');
      if (fault === 'http409_after_commit' || fault === 'http409_e9001_after_commit') {
        const code = fault === 'http409_after_commit' ? 'E2005' : 'E9001';
        throw new GatewayError(`the gateway rejected the request (HTTP 409: ${code}: conflict)`, {
          status: 409,
          code,
        });
      }
      if (fault === 'drop_one_result') results = results.slice(1);
      // Shuffle: results must be matched by key, not position.
      results = [...results].reverse();
      if (fault === 'status_zero') {
        return respond({
          ...envelope,
          return_status: '0',
          return_message: 'E9999:partly processed',
          [arrayName]: results,
        });
      }
      return respond({ ...envelope, return_status: '1', return_message: 'OK', [arrayName]: results });
    },
    sendBatch: (op, elements, opts) => sendBatchWith(gw.client.send, op, elements, opts),
    async raw() {
      throw new Error('not used');
    },
    async close() {},
  };
  return gw;
}
