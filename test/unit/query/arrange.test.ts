import { describe, expect, it } from 'vitest';
import { arrange } from '../../../src/query/arrange.js';
import { mapLimit } from '../../../src/query/pool.js';
import { buildSelection } from '../../../src/query/selection.js';

const rec = (order_no: string, transaction_id: string, extra = '') => ({ order_no, transaction_id, extra });
const id = (r: { order_no: string; transaction_id: string }) => `${r.transaction_id}/${r.order_no}`;

describe('arrange', () => {
  it('puts records in asked order, each once, and lists what was not returned', () => {
    const sel = buildSelection({ orderNo: ['B', 'X', 'A'], transactionId: ['TA', 'TZ'] });
    const got = arrange(sel, [rec('A', 'TA'), rec('B', 'TB'), rec('A', 'TA')], id);
    expect(got.items.map((r) => r.order_no)).toEqual(['B', 'A']);
    expect(got.notFound).toEqual([
      { field: 'order_no', value: 'X' },
      { field: 'transaction_id', value: 'TZ' },
    ]);
  });

  it('keeps records nobody asked for, after the rest', () => {
    const sel = buildSelection({ orderNo: ['A'] });
    const got = arrange(sel, [rec('Q', 'TQ'), rec('A', 'TA')], id);
    expect(got.items.map((r) => r.order_no)).toEqual(['A', 'Q']);
  });

  it('keeps the gateway order for a range-only selection', () => {
    const sel = buildSelection({ from: '2026-11-01', utc: true });
    const got = arrange(sel, [rec('Z', 'T1'), rec('A', 'T2')], id);
    expect(got.items.map((r) => r.order_no)).toEqual(['Z', 'A']);
    expect(got.notFound).toEqual([]);
  });

  it('sorts several records of one order with the given comparator', () => {
    const sel = buildSelection({ transactionId: ['T1'] });
    const got = arrange(
      sel,
      [rec('A', 'T1', '02'), rec('A', 'T1', '01')],
      (r) => r.extra,
      (a, b) => a.extra.localeCompare(b.extra),
    );
    expect(got.items.map((r) => r.extra)).toEqual(['01', '02']);
  });
});

describe('mapLimit', () => {
  it('never runs more than the limit at once and keeps input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 1, 1], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 10, 10]);
    expect(peak).toBe(3);
  });

  it('stops starting work after a failure and throws the first error', async () => {
    const started: number[] = [];
    await expect(
      mapLimit([1, 2, 3, 4, 5], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });
});
