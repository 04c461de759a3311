import { describe, expect, it } from 'vitest';
import {
  fraudSummary,
  notFoundLines,
  orderDataRows,
  orderTable,
  refundDataRows,
  withStatusLabel,
} from '../../../src/query/rows.js';
import type { QueryOutcome, RefundSearchOutcome } from '../../../src/query/search.js';
import { order, refund } from './fixtures.js';

const outcome = (over: Partial<QueryOutcome> = {}): QueryOutcome => ({
  orders: [order()],
  notFound: [{ field: 'order_no', value: 'NOPE' }],
  requests: 1,
  mayHaveMore: false,
  limit: 100,
  ...over,
});

describe('data rows', () => {
  it('keep every field as returned, add the label after payment_status, and list not-found rows', () => {
    const rows = orderDataRows(outcome(), {});
    const keys = Object.keys(rows[0]!);
    expect(keys.slice(0, 8)).toEqual([
      'found',
      'order_no',
      'transaction_id',
      'reference_no',
      'amount',
      'currency',
      'payment_status',
      'payment_status_label',
    ]);
    expect(rows[0]).toMatchObject({ ...order(), found: true, payment_status_label: 'partially refunded' });
    expect(rows[1]).toEqual({ found: false, order_no: 'NOPE' });
  });

  it('use the profile labels', () => {
    expect(withStatusLabel({ payment_status: '3000' }, { '3000': 'settled' })).toEqual({
      payment_status: '3000',
      payment_status_label: 'settled',
    });
    expect(withStatusLabel({ payment_status: '7777' }, {}).payment_status_label).toBe('unknown');
  });

  it('attach refunds to each order (an empty list when it has none) with --with-refunds', () => {
    const rows = orderDataRows(
      outcome({
        orders: [order(), order({ transaction_id: 'T2', order_no: 'O2' })],
        notFound: [],
        refunds: new Map([['T100', [refund(1)]]]),
      }),
      {},
    );
    expect((rows[0]!.refunds as unknown[]).length).toBe(1);
    expect(rows[0]!.refunds).toEqual([{ ...withStatusLabel(refund(1), {}) }]);
    expect(rows[1]!.refunds).toEqual([]);
  });

  it('refund rows carry found and the label too', () => {
    const o: RefundSearchOutcome = {
      refunds: [refund(1), refund(2)],
      notFound: [{ field: 'transaction_id', value: 'T9' }],
      requests: 1,
      mayHaveMore: false,
      limit: 100,
    };
    const rows = refundDataRows(o, {});
    expect(rows.map((r) => r.refund_reference_id ?? r.transaction_id)).toEqual(['T100-01', 'T100-02', 'T9']);
    expect(rows[0]).toMatchObject({ found: true, payment_status_label: 'partially refunded' });
    expect(rows[2]).toEqual({ found: false, transaction_id: 'T9' });
  });
});

describe('table', () => {
  it('shows key columns with labels, money and a fraud summary', () => {
    const t = orderTable(outcome({ refunds: new Map([['T100', [refund(1), refund(2)]]]) }), {});
    expect(t.head).toEqual([
      'order_no',
      'transaction_id',
      'status',
      'amount',
      'date (local)',
      '3DS',
      'fraud',
      'refunds',
    ]);
    expect(t.rows[0]).toEqual([
      'ORD-1',
      'T100',
      '4100 partially refunded',
      'USD 1,234.50',
      expect.stringMatching(/^2026-11-2\d \d\d:\d\d$/),
      'yes',
      'REJECT (1 of 2)',
      'T100-01 T100-02',
    ]);
  });

  it('summarises fraud checks', () => {
    expect(fraudSummary([])).toBe('—');
    expect(fraudSummary(undefined)).toBe('—');
    expect(fraudSummary([{ check_items: 'a', status: 'accept' }])).toBe('ACCEPT');
  });
});

describe('notFoundLines', () => {
  it('says, when only order numbers were not found, that a transaction id needs --transaction-id', () => {
    expect(notFoundLines([{ field: 'order_no', value: 'T0000000003' }], 'orders')).toEqual([
      'not found:',
      '  order_no T0000000003',
      'hint: looked up as an order number; as a transaction id: payops query --transaction-id T0000000003',
    ]);
  });
  it('lists one asked-for value a line under a count', () => {
    expect(notFoundLines([], 'orders')).toEqual([]);
    expect(
      notFoundLines(
        [
          { field: 'order_no', value: 'A' },
          { field: 'transaction_id', value: 'T' },
        ],
        'orders',
      ),
    ).toEqual(['not found:', '  order_no A', '  transaction_id T']);
    expect(notFoundLines([{ field: 'order_no', value: 'A' }], 'refunds')).toEqual([
      'without refund records:',
      '  order_no A',
    ]);
  });
});
