import { describe, expect, it } from 'vitest';
import { chunkRows, chunkSize, matchResults, requestCount, wireElement } from '../../../src/bulk/chunk.js';
import type { BulkRow } from '../../../src/bulk/types.js';

const row = (i: number, extra: Partial<BulkRow> = {}): BulkRow => ({
  line: i + 1,
  transaction_id: `T${i}`,
  order_no: `O${i}`,
  currency: 'USD',
  amountMinor: 1050n,
  ...extra,
});

describe('chunking', () => {
  it('takes the per-request limit from the endpoints table', () => {
    expect(chunkSize('refund')).toBe(50);
    expect(chunkSize('capture')).toBe(50);
    expect(chunkSize('cancel')).toBe(50);
    expect(chunkSize('review')).toBe(100);
    expect(requestCount(1000, 'refund')).toBe(20);
    expect(requestCount(1001, 'refund')).toBe(21);
    expect(requestCount(0, 'review')).toBe(0);
    expect(requestCount(101, 'review')).toBe(2);
  });

  it('groups rows in order into numbered chunks, the last one short, from rows in memory or streamed', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => row(i));
    async function* streamed() {
      for (const r of rows) yield r;
    }
    for (const source of [rows, streamed()]) {
      const chunks = [];
      for await (const c of chunkRows(source, 50)) chunks.push(c);
      expect(chunks.map((c) => [c.index, c.rows.length])).toEqual([
        [0, 50],
        [1, 50],
        [2, 20],
      ]);
      expect(chunks.flatMap((c) => c.rows.map((r) => r.line))).toEqual(rows.map((r) => r.line));
    }
  });

  it('yields nothing for no rows', async () => {
    const chunks = [];
    for await (const c of chunkRows([], 50)) chunks.push(c);
    expect(chunks).toEqual([]);
  });
});

describe('wire elements', () => {
  it('formats amounts canonically per currency and adds the operation fields', () => {
    expect(wireElement('capture', row(1))).toEqual({
      transaction_id: 'T1',
      order_no: 'O1',
      currency: 'USD',
      amount: '10.50',
    });
    expect(wireElement('refund', row(1, { refundMinor: 500n, refund_reason: 'late' }))).toMatchObject({
      amount: '10.50',
      refund_amount: '5.00',
      refund_reason: 'late',
    });
    expect(wireElement('review', row(1, { currency: 'JPY', amountMinor: 1200n, review_flag: '0' }))).toEqual({
      transaction_id: 'T1',
      order_no: 'O1',
      currency: 'JPY',
      amount: '1200',
      review_flag: '0',
    });
  });
});

describe('matching results to rows', () => {
  const elements = [0, 1, 2].map((i) => wireElement('capture', row(i)));
  const lines = [2, 3, 4];

  it('matches by transaction_id and order_no, not by position', () => {
    const results = [
      { ...elements[2], capture_status: '0', error_message: 'E2003:state 5000' },
      { ...elements[0], capture_status: '1', error_message: '' },
      { ...elements[1], capture_status: '1', error_message: '' },
    ];
    const out = matchResults('capture', lines, elements, results);
    expect(out.map((o) => [o.line, o.outcome])).toEqual([
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'failed'],
    ]);
    expect(out[2]!.detail).toBe('E2003:state 5000');
    expect(out[2]!.fields).toEqual({ capture_status: '0', error_message: 'E2003:state 5000' });
  });

  it('gives the same outcomes for results in request order as for the same results shuffled', () => {
    const many = Array.from({ length: 50 }, (_, i) => wireElement('capture', row(i)));
    const manyLines = many.map((_, i) => i + 2);
    const results = many.map((el, i) => ({
      ...el,
      capture_status: i % 7 === 0 ? '0' : '1',
      error_message: i % 7 === 0 ? `E2003:state ${i}` : '',
    }));
    const inOrder = matchResults('capture', manyLines, many, results);
    const shuffled = matchResults('capture', manyLines, many, [...results].reverse());
    expect(inOrder).toEqual(shuffled);
    expect(inOrder.filter((o) => o.outcome === 'failed').map((o) => o.line)).toEqual([
      2, 9, 16, 23, 30, 37, 44, 51,
    ]);
    // A result in the right place for the wrong order is not taken on position.
    const swapped = results.map((r, i) => (i === 3 ? { ...r, order_no: 'OTHER' } : r));
    expect(matchResults('capture', manyLines, many, swapped)[3]!.outcome).toBe('unknown');
  });

  it('leaves a row without a result unknown, and ignores results for other orders', () => {
    const results = [
      { ...elements[0], capture_status: '1', error_message: '' },
      { ...elements[1], order_no: 'OTHER', capture_status: '1', error_message: '' },
    ];
    const out = matchResults('capture', lines, elements, results);
    expect(out.map((o) => o.outcome)).toEqual(['succeeded', 'unknown', 'unknown']);
  });

  it('uses each result once and tells partial refunds of one order apart by amount', () => {
    const a = wireElement('refund', row(7, { refundMinor: 100n, refund_reason: 'x' }));
    const b = wireElement('refund', row(7, { refundMinor: 200n, refund_reason: 'x' }));
    const results = [
      { ...b, refund_status: '1', refund_message: '0000:ok', refund_reference_id: 'T7-02' },
      { ...a, refund_status: '1', refund_message: '0000:ok', refund_reference_id: 'T7-01' },
    ];
    const out = matchResults('refund', [5, 6], [a, b], results);
    expect(out.map((o) => o.fields.refund_reference_id)).toEqual(['T7-01', 'T7-02']);
    const once = matchResults('refund', [5, 6], [a, a], [results[1]]);
    expect(once.map((o) => o.outcome)).toEqual(['succeeded', 'unknown']);
  });
});
