import { describe, expect, it } from 'vitest';
import { chunk, planRequests } from '../../../src/query/plan.js';
import { buildSelection } from '../../../src/query/selection.js';

const ids = (n: number, prefix = 'ORD-') => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

describe('chunk', () => {
  it('cuts into pieces of at most the size, keeping order', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 100)).toEqual([]);
    expect(chunk(ids(100), 100)).toHaveLength(1);
    expect(chunk(ids(101), 100).map((c) => c.length)).toEqual([100, 1]);
  });
  it('refuses a size below 1', () => {
    expect(() => chunk([1], 0)).toThrow(RangeError);
  });
});

describe('planRequests', () => {
  it('sends 250 order numbers as 100 + 100 + 50, comma-separated, each value once', () => {
    const plans = planRequests(buildSelection({ orderNo: ids(250) }), 100);
    expect(plans.map((p) => p.values.length)).toEqual([100, 100, 50]);
    expect(plans[0]!.body).toEqual({ order_no: ids(100).join(',') });
    expect(plans.flatMap((p) => p.values)).toEqual(ids(250));
    expect(plans.every((p) => p.field === 'order_no')).toBe(true);
  });

  it('keeps order numbers and transaction ids in separate requests, each with the range', () => {
    const sel = buildSelection({
      orderNo: ['A,B'],
      transactionId: ['T1'],
      from: '2026-11-01',
      to: '2026-11-30',
      utc: true,
    });
    expect(planRequests(sel, 100).map((p) => p.body)).toEqual([
      { order_no: 'A,B', start_date: '20261101000000', end_date: '20261130235959' },
      { transaction_id: 'T1', start_date: '20261101000000', end_date: '20261130235959' },
    ]);
  });

  it('makes a range without a list one request', () => {
    const plans = planRequests(buildSelection({ from: '20261101000000', utc: true }), 100);
    expect(plans).toEqual([{ values: [], body: { start_date: '20261101000000' } }]);
  });
});
