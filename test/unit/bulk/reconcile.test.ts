import { describe, expect, it } from 'vitest';
import { reconcile } from '../../../src/bulk/engine/reconcile.js';
import type { GatewayClient } from '../../../src/gateway/client.js';

function el(id: string, refund: string, reason = 'damaged') {
  return {
    transaction_id: id,
    order_no: `O-${id}`,
    currency: 'USD',
    amount: '10.00',
    refund_amount: refund,
    refund_reason: reason,
  };
}

function clientReturning(data: unknown, calls: unknown[] = []): GatewayClient {
  return {
    baseUrl: 'http://fake',
    merchantId: 'm',
    accountId: 'a',
    async send(op: string, body: unknown) {
      calls.push({ op, body });
      if (data instanceof Error) throw data;
      return { status: 200, data, signature: 'valid', durationMs: 1 };
    },
    async raw() {
      throw new Error('unused');
    },
    async close() {},
  } as unknown as GatewayClient;
}

const sentAt = '2026-11-22T01:00:00.000Z';
const rec = (id: string, amount: string, date: string, ref: string, reason = 'damaged') => ({
  transaction_id: id,
  order_no: `O-${id}`,
  refund_amount: amount,
  refund_reason: reason,
  refund_date: date,
  refund_reference_id: ref,
  refund_reference: `R-${ref}`,
  refund_status: '1',
});

describe('refund reconciliation', () => {
  it('matches transaction, amount, reason and a date after the intent, each record once', async () => {
    const calls: Array<{ op: string; body: Record<string, string> }> = [];
    const client = clientReturning(
      {
        return_status: '1',
        return_message: 'OK',
        refund_orders: [
          rec('T1', '10.00', '20261121000000', 'T1-01'), // before the intent: an older refund
          rec('T1', '10.00', '20261122010001', 'T1-02'),
          rec('T2', '5.0', '20261122010005', 'T2-01'), // same money, other notation
          rec('T3', '10.00', '20261122010005', 'T3-01', 'other reason'),
          rec('T4', '10.00', '20261122005930', 'T4-01'), // 30 s before: clock skew tolerated
        ],
      },
      calls,
    );
    const claimed = new Set<string>();
    const items = [
      { line: 2, element: el('T1', '10.00'), sentAt },
      { line: 3, element: el('T1', '10.00'), sentAt },
      { line: 4, element: el('T2', '5.00'), sentAt },
      { line: 5, element: el('T3', '10.00'), sentAt },
      { line: 6, element: el('T4', '10.00'), sentAt },
    ];
    const out = await reconcile('refund', client, items, { claimed });
    expect(out.map((o) => [o.line, o.outcome, o.fields.refund_reference_id])).toEqual([
      [2, 'succeeded', 'T1-02'],
      [3, 'failed', undefined],
      [4, 'succeeded', 'T2-01'],
      [5, 'failed', undefined],
      [6, 'succeeded', 'T4-01'],
    ]);
    expect(claimed).toEqual(new Set(['T1-02', 'T2-01', 'T4-01']));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.op).toBe('refundSearch');
    expect(calls[0]!.body.transaction_id).toBe('T1,T2,T3,T4');
    expect(calls[0]!.body.start_date).toBe('20261122005800');
  });

  it('does not take a refund already attributed to another row of the run', async () => {
    const client = clientReturning({
      return_status: '1',
      return_message: 'OK',
      refund_orders: [rec('T1', '10.00', '20261122010001', 'T1-01')],
    });
    const out = await reconcile('refund', client, [{ line: 2, element: el('T1', '10.00'), sentAt }], {
      claimed: new Set(['T1-01']),
    });
    expect(out[0]!.outcome).toBe('failed');
  });

  describe('reasons as a gateway echoes them (issue 23 item 5)', () => {
    const date = '20261122010001';
    const search = (...records: ReturnType<typeof rec>[]) =>
      clientReturning({ return_status: '1', return_message: 'OK', refund_orders: records });
    const before = { T1: [] as string[] };

    it('a reason upper-cased, re-spaced or cut short still matches a new refund of the amount', async () => {
      const client = search(
        rec('T1', '10.00', date, 'T1-01', 'CUSTOMER  REQUEST'),
        rec('T2', '10', date, 'T2-01', 'Customer asked for a'),
        rec('T3', '10.00', date, 'T3-01', ''),
      );
      const items = [
        { line: 2, element: el('T1', '10.00', 'customer request'), sentAt },
        { line: 3, element: el('T2', '10.00', 'Customer asked for a refund: parcel lost'), sentAt },
        { line: 4, element: el('T3', '10.00', 'goodwill'), sentAt },
      ];
      const out = await reconcile('refund', client, items, { claimed: new Set(), before: {} });
      expect(out.map((o) => [o.outcome, o.fields.refund_reference_id])).toEqual([
        ['succeeded', 'T1-01'],
        ['succeeded', 'T2-01'],
        ['succeeded', 'T3-01'],
      ]);
    });

    it("a reason that is not the row's, nor cut from it, does not match", async () => {
      const client = search(rec('T1', '10.00', date, 'T1-01', 'goodwill gesture'));
      const out = await reconcile(
        'refund',
        client,
        [{ line: 2, element: el('T1', '10.00', 'goodwill'), sentAt }],
        {
          claimed: new Set(),
          before,
        },
      );
      expect(out[0]).toMatchObject({ outcome: 'failed', absent: true });
    });

    it('two rows of one amount, "goodwill" and "goodwill gesture", echoed whole: each takes its own refund', async () => {
      const client = search(
        rec('T1', '10.00', date, 'T1-01', 'GOODWILL GESTURE'),
        rec('T1', '10.00', date, 'T1-02', 'Goodwill'),
      );
      const items = [
        { line: 2, element: el('T1', '10.00', 'goodwill'), sentAt },
        { line: 3, element: el('T1', '10.00', 'goodwill gesture'), sentAt },
      ];
      const out = await reconcile('refund', client, items, { claimed: new Set(), before });
      expect(out.map((o) => [o.outcome, o.fields.refund_reference_id])).toEqual([
        ['succeeded', 'T1-02'],
        ['succeeded', 'T1-01'],
      ]);
    });

    it('reasons cut to the same text: a refund either row could own is ambiguous, both unknown, never absent', async () => {
      const client = search(rec('T1', '10.00', date, 'T1-01', 'goodwill'));
      const items = [
        { line: 2, element: el('T1', '10.00', 'goodwill: late delivery'), sentAt },
        { line: 3, element: el('T1', '10.00', 'goodwill: damaged box'), sentAt },
      ];
      const claimed = new Set<string>();
      const out = await reconcile('refund', client, items, { claimed, before });
      expect(out.map((o) => o.outcome)).toEqual(['unknown', 'unknown']);
      expect(out.some((o) => o.absent)).toBe(false);
      expect(out[0]!.detail).toMatch(/ambiguous: refund search shows T1-01 .*line 3/);
      expect(out[1]!.detail).toMatch(/line 2/);
      expect(claimed.size).toBe(0);
    });

    it("the other row's refund already claimed (its answer came): the one left is this row's", async () => {
      const client = search(
        rec('T1', '10.00', date, 'T1-01', 'goodwill'),
        rec('T1', '10.00', date, 'T1-02', 'goodwill'),
      );
      const out = await reconcile(
        'refund',
        client,
        [{ line: 2, element: el('T1', '10.00', 'goodwill: late delivery'), sentAt }],
        { claimed: new Set(['T1-01']), before },
      );
      expect(out[0]).toMatchObject({ outcome: 'succeeded', fields: { refund_reference_id: 'T1-02' } });
    });
  });

  it('leaves rows unknown when the gateway cannot be asked', async () => {
    const client = clientReturning(new Error('connection refused'));
    const out = await reconcile('refund', client, [{ line: 2, element: el('T1', '10.00'), sentAt }], {
      claimed: new Set(),
    });
    expect(out[0]!.outcome).toBe('unknown');
    expect(out[0]!.detail).toMatch(/connection refused/);
  });

  it('leaves rows unknown when the search is rejected', async () => {
    const client = clientReturning({
      return_status: '0',
      return_message: 'E9001:temporarily unavailable',
      refund_orders: [],
    });
    const out = await reconcile('refund', client, [{ line: 2, element: el('T1', '10.00'), sentAt }], {
      claimed: new Set(),
    });
    expect(out[0]!.outcome).toBe('unknown');
  });

  it('asks about at most 100 transactions per request', async () => {
    const calls: Array<{ op: string; body: Record<string, string> }> = [];
    const client = clientReturning({ return_status: '1', return_message: 'OK', refund_orders: [] }, calls);
    const items = Array.from({ length: 250 }, (_, i) => ({
      line: i + 2,
      element: el(`T${i}`, '1.00'),
      sentAt,
    }));
    const out = await reconcile('refund', client, items, { claimed: new Set() });
    expect(out).toHaveLength(250);
    expect(calls.map((c) => c.body.transaction_id!.split(',').length)).toEqual([100, 100, 50]);
  });
});

describe('state reconciliation', () => {
  const orders = (list: Array<[string, string]>) => ({
    return_status: '1',
    return_message: 'OK',
    orders_list: list.map(([id, status]) => ({
      transaction_id: id,
      order_no: `O-${id}`,
      payment_status: status,
    })),
  });

  it('decides capture, cancel and review by the resulting payment_status', async () => {
    const capture = await reconcile(
      'capture',
      clientReturning(
        orders([
          ['T1', '3000'],
          ['T2', '2000'],
          ['T3', '4100'],
        ]),
      ),
      ['T1', 'T2', 'T3', 'T9'].map((id, i) => ({ line: i + 2, element: el(id, '10.00'), sentAt })),
      { claimed: new Set() },
    );
    expect(capture.map((o) => o.outcome)).toEqual(['succeeded', 'failed', 'succeeded', 'failed']);
    expect(capture[3]!.detail).toMatch(/does not know/);

    const cancel = await reconcile(
      'cancel',
      clientReturning(
        orders([
          ['T1', '5000'],
          ['T2', '2000'],
        ]),
      ),
      ['T1', 'T2'].map((id, i) => ({ line: i + 2, element: el(id, '10.00'), sentAt })),
      { claimed: new Set() },
    );
    expect(cancel.map((o) => o.outcome)).toEqual(['succeeded', 'failed']);

    const review = await reconcile(
      'review',
      clientReturning(
        orders([
          ['T1', '2000'],
          ['T2', '5000'],
          ['T3', '2100'],
          ['T4', '2100'],
        ]),
      ),
      [
        { line: 2, element: { ...el('T1', '0'), review_flag: '1' }, sentAt },
        { line: 3, element: { ...el('T2', '0'), review_flag: '0' }, sentAt },
        { line: 4, element: { ...el('T3', '0'), review_flag: '1' }, sentAt },
        { line: 5, element: { ...el('T4', '0'), review_flag: '0' }, sentAt },
      ],
      { claimed: new Set() },
    );
    expect(review.map((o) => o.outcome)).toEqual(['succeeded', 'succeeded', 'failed', 'failed']);
  });
});
