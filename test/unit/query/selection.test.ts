import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { buildSelection, isRangeOnly, splitValues } from '../../../src/query/selection.js';

describe('splitValues', () => {
  it('accepts repeated flags and comma-separated lists, trims, skips empty pieces', () => {
    expect(splitValues(['A', 'B, C', 'D,,', ' E '])).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(splitValues(undefined)).toEqual([]);
  });
});

describe('buildSelection', () => {
  it('merges flags and file values, each value once in first-asked order', () => {
    const sel = buildSelection(
      { orderNo: ['B,A', 'B'], transactionId: ['T2'] },
      { orderNos: ['A', 'C'], transactionIds: ['T1', 'T2'] },
    );
    expect(sel).toEqual({ orderNos: ['B', 'A', 'C'], transactionIds: ['T2', 'T1'] });
    expect(isRangeOnly(sel)).toBe(false);
  });

  it('refuses nothing to look up', () => {
    expect(() => buildSelection({})).toThrow(UsageError);
    expect(() => buildSelection({ orderNo: [] })).toThrow(/nothing to look up/);
  });

  it('refuses an id given by a flag that holds an invisible character, naming it and showing it escaped', () => {
    // A zero-width space pasted into ORD-1001: the not-found line read "order_no ORD-1001".
    expect(() => buildSelection({ orderNo: ['ORD-\u200b1001'] })).toThrow(UsageError);
    expect(() => buildSelection({ orderNo: ['ORD-\u200b1001'] })).toThrow(
      /--order-no: "ORD-\\u200b1001" contains an invisible character \(U\+200B\)/,
    );
    expect(() => buildSelection({ transactionId: ['T1,T\u202e2'] })).toThrow(/--transaction-id: .*U\+202E/);
    expect(() => buildSelection({ transactionId: ['T\u{e0041}1'] })).toThrow(/U\+E0041/);
  });

  it('refuses a flag whose value is only commas', () => {
    expect(() => buildSelection({ orderNo: [','] })).toThrow(/--order-no was given without a value/);
  });

  it('refuses --from after --to', () => {
    expect(() => buildSelection({ from: '2026-11-02', to: '2026-11-01', utc: true })).toThrow(/after --to/);
  });

  it('accepts a one-day range written as the same date twice', () => {
    const sel = buildSelection({ from: '2026-11-01', to: '2026-11-01', utc: true });
    expect(sel.start?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(sel.end?.toISOString()).toBe('2026-11-01T23:59:59.000Z');
    expect(isRangeOnly(sel)).toBe(true);
  });

  it('passes bad dates on as UsageError', () => {
    expect(() => buildSelection({ from: '2026/11/01' })).toThrow(UsageError);
  });
});
