// The sandbox's state machine, derived from the table it shares with the CLI (gateway/batch-rules.ts):
// for every batch operation, every kind of element its transitions name (review flag, full or
// partial refund) and every starting payment_status, the sandbox accepts the operation exactly when a
// transition of the table starts there, and the order lands where that transition ends; otherwise
// it answers E2003 and the order does not move. Real HTTP over loopback, as the other sandbox tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_RULES, type Transition } from '../../../src/gateway/batch-rules.js';
import { BATCH_OPERATIONS, type BatchOperation, ENDPOINTS } from '../../../src/gateway/endpoints.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../../src/gateway/status.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());

type Row = Record<string, string>;

/** One kind of element of an operation: what a transition of the table asks of it. */
interface Variant {
  name: string;
  when: Readonly<Record<string, string>>;
  balance?: 'left' | 'none';
}

function variants(op: BatchOperation): Variant[] {
  const seen = new Map<string, Variant>();
  for (const t of BATCH_RULES[op].transitions) {
    const name = [
      ...Object.entries(t.when ?? {}).map(([k, v]) => `${k} ${v}`),
      t.balance && `balance ${t.balance}`,
    ]
      .filter(Boolean)
      .join(', ');
    seen.set(name, { name: name || 'any element', when: t.when ?? {}, balance: t.balance });
  }
  return [...seen.values()];
}

/** The table's answer, read from its raw rows: the transition an element of `v` takes from `from`. */
function expected(op: BatchOperation, v: Variant, from: PaymentStatus): Transition | undefined {
  return BATCH_RULES[op].transitions.find(
    (t) =>
      t.from.includes(from) &&
      Object.entries(t.when ?? {}).every(([k, value]) => v.when[k] === value) &&
      (t.balance === undefined || t.balance === v.balance),
  );
}

async function paymentStatus(transactionId: string): Promise<string | undefined> {
  const q = await client.search('/v1/retrievalTrans', { transaction_id: transactionId });
  return (q.json.orders_list as Row[] | undefined)?.[0]?.payment_status;
}

/** What is still refundable of an order, in cents (amounts here are USD). */
async function refundableCents(order: Row): Promise<number> {
  const s = await client.search('/v1/retrievalRefund', { transaction_id: order.transaction_id! });
  const refunded = ((s.json.refund_orders as Row[] | undefined) ?? []).reduce(
    (sum, r) => sum + Math.round(Number(r.refund_amount) * 100),
    0,
  );
  return Math.round(Number(order.amount) * 100) - refunded;
}

const cents = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;

/** The request element: the order's fields, the variant's, and a refund amount that fits its balance. */
async function element(op: BatchOperation, v: Variant, order: Row): Promise<Row> {
  const el: Row = {};
  for (const f of BATCH_RULES[op].elementFields) el[f] = order[f] ?? v.when[f] ?? 'transition test';
  if ('refund_amount' in el) {
    const balance = await refundableCents(order);
    // 'none': all that is left (the whole amount when nothing is, so that the request stays well formed).
    el.refund_amount = cents(v.balance === 'left' ? 100 : balance > 0 ? balance : 1000);
  }
  return el;
}

describe.each(BATCH_OPERATIONS.map((op) => [op] as const))('%s', (op) => {
  const endpoint = ENDPOINTS[op];
  const cases = variants(op).flatMap((v) => PAYMENT_STATUSES.map((from) => [v.name, from, v] as const));

  it('the table names at least one transition', () => {
    expect(cases.some(([, from, v]) => expected(op, v, from) !== undefined)).toBe(true);
  });

  it.each(cases)('%s, from %s: as the table says', async (_name, from, v) => {
    const [created] = (await client.createOrders(1, from, 'USD', { amount: '10.00' })) as Row[];
    const order = created!;
    expect(await paymentStatus(order.transaction_id!)).toBe(from);
    const el = await element(op, v, order);

    const a = await client.batch(endpoint.path, endpoint.batchArray, [el]);
    expect(a.json.return_status).toBe('1');
    const result = (a.json[endpoint.batchArray] as Row[])[0]!;
    const after = await paymentStatus(order.transaction_id!);
    const move = expected(op, v, from);
    if (move) {
      expect({ status: result[endpoint.statusField], after }).toEqual({ status: '1', after: move.to });
    } else {
      expect({
        status: result[endpoint.statusField],
        code: result[BATCH_RULES[op].messageField]?.split(':')[0],
        after,
      }).toEqual({ status: '0', code: 'E2003', after: from });
    }
  });
});
