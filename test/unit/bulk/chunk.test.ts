import { describe, expect, it } from 'vitest';
import {
  chunkRows,
  chunkSize,
  matchResults,
  requestCount,
  wireElement,
} from '../../../src/bulk/engine/chunk.js';
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

  describe('odd answers (issue 23 item 8): failed only for a clear refusal of exactly one row', () => {
    const els = [0, 1, 2, 3, 4].map((i) =>
      wireElement('refund', row(i, { refundMinor: 500n, refund_reason: 'late' })),
    );
    const ok = (el: (typeof els)[number]) => ({
      ...el,
      refund_status: '1',
      refund_message: '0000:Refund accepted',
      refund_reference_id: `${el.transaction_id}-01`,
    });
    const at = [2, 3, 4, 5, 6];

    it('a status missing, unknown, or contradicting its message is unknown; status 0 with an error code is failed', () => {
      const { refund_status: _none, ...noStatus } = ok(els[0]!);
      const results = [
        noStatus,
        { ...ok(els[1]!), refund_status: '2' },
        { ...ok(els[2]!), refund_status: '1', refund_message: 'E2004:refund exceeds the refundable balance' },
        { ...ok(els[3]!), refund_status: '0', refund_message: '0000:Refund accepted' },
        { ...ok(els[4]!), refund_status: '0', refund_message: 'E2003:operation not allowed in state 2000' },
      ];
      const out = matchResults('refund', at, els, results);
      expect(out.map((o) => o.outcome)).toEqual(['unknown', 'unknown', 'unknown', 'unknown', 'failed']);
      expect(out[0]!.detail).toMatch(/no refund_status/);
      expect(out[1]!.detail).toMatch(/refund_status "2"/);
      expect(out[4]!.detail).toMatch(/^E2003/);
      // The same when the results come in another order (the indexed path).
      expect(matchResults('refund', at, els, [...results].reverse()).map((o) => o.outcome)).toEqual(
        out.map((o) => o.outcome),
      );
    });

    it('each result twice, the first copy status 0: unknown, never failed', () => {
      const results = els.flatMap((el) => [
        { ...ok(el), refund_status: '0', refund_message: 'E2004:refund exceeds the refundable balance' },
        ok(el),
      ]);
      const out = matchResults('refund', at, els, results);
      expect(out.every((o) => o.outcome === 'unknown' && /2 results/.test(o.detail))).toBe(true);
    });

    it("a result whose amount is not the row's is no answer to it", () => {
      const out = matchResults('refund', at, els, [
        ...els.slice(1).map(ok),
        { ...ok(els[0]!), refund_amount: '4.00', refund_status: '0', refund_message: 'E2004:balance' },
      ]);
      expect(out[0]).toMatchObject({ outcome: 'unknown' });
      expect(out[0]!.detail).toMatch(/another amount/);
      expect(out.slice(1).every((o) => o.outcome === 'succeeded')).toBe(true);
    });

    it('partial refunds of one order, out of order, "30" for "30.00": each row keeps its own outcome and reference', () => {
      const a = wireElement(
        'refund',
        row(9, { amountMinor: 10000n, refundMinor: 3000n, refund_reason: 'part one' }),
      );
      const b = wireElement(
        'refund',
        row(9, { amountMinor: 10000n, refundMinor: 7000n, refund_reason: 'part two' }),
      );
      const results = [
        { ...b, amount: '100', refund_amount: '70', refund_status: '0', refund_message: 'E2004:balance' },
        {
          ...a,
          amount: '100',
          refund_amount: '30',
          refund_status: '1',
          refund_message: '0000:ok',
          refund_reference_id: 'T9-02',
        },
      ];
      const out = matchResults('refund', [7, 8], [a, b], results);
      expect(out.map((o) => [o.outcome, o.fields.refund_reference_id])).toEqual([
        ['succeeded', 'T9-02'],
        ['failed', undefined],
      ]);
    });

    it('two rows of one amount whose reasons the answer cuts to the same text: ambiguous, both unknown', () => {
      const a = wireElement(
        'refund',
        row(9, { refundMinor: 300n, refund_reason: 'goodwill: late delivery' }),
      );
      const b = wireElement('refund', row(9, { refundMinor: 300n, refund_reason: 'goodwill: damaged box' }));
      const results = [a, b].map((el, i) => ({
        ...el,
        refund_reason: 'goodwill',
        refund_status: i === 0 ? '1' : '0',
        refund_message: i === 0 ? '0000:ok' : 'E2004:balance',
      }));
      const out = matchResults('refund', [7, 8], [a, b], results);
      expect(out.map((o) => o.outcome)).toEqual(['unknown', 'unknown']);
      expect(out[0]!.detail).toMatch(/ambiguous.*line 8/);
      // Echoed whole, upper-cased: each its own.
      const whole = [b, a].map((el) => ({
        ...el,
        refund_reason: el.refund_reason!.toUpperCase(),
        refund_status: '1',
        refund_message: '0000:ok',
      }));
      expect(matchResults('refund', [7, 8], [a, b], whole).map((o) => o.outcome)).toEqual([
        'succeeded',
        'succeeded',
      ]);
    });
  });
});
