import { describe, expect, it } from 'vitest';
import type { RawRecord } from '../../../src/lifecycle/records.js';
import type { PayoutItem } from '../../../src/payout/plan.js';
import { parsePayoutRecord } from '../../../src/payout/records.js';
import { payoutKey, priorPayouts, reuseRequestIds } from '../../../src/payout/reuse.js';

const item = (line: number, amount: string, id?: string): PayoutItem => ({
  line,
  request: { payment_amount: amount, payment_currency: 'EUR', ...(id ? { request_id: id } : {}) },
  minor: 100n,
  currency: 'EUR',
  requestIdFrom: id ? 'input' : 'generated',
});

let n = 0;
const newId = () => `new-${++n}`;
const where = { file: 'p.csv', runId: 'RUN-1' };

function journal(rows: Array<[line: number, amount: string, id: string, outcome?: string]>) {
  const records: Array<{ type: string; [k: string]: unknown }> = [
    {
      type: 'plan',
      items: rows.map(([line, amount, id]) => ({
        line,
        request_id: id,
        key: payoutKey({ payment_amount: amount, payment_currency: 'EUR' }),
      })),
    },
  ];
  for (const [line, , id, outcome] of rows) {
    if (outcome === undefined) continue;
    records.push({ type: 'intent', line, request_id: id });
    if (outcome !== 'intent') records.push({ type: 'result', line, request_id: id, outcome });
  }
  return priorPayouts(records.map((r) => parsePayoutRecord(r as RawRecord)!));
}

describe('payoutKey', () => {
  it('ignores request_id and key order', () => {
    expect(payoutKey({ a: '1', b: { c: '2', d: '3' }, request_id: 'x' })).toBe(
      payoutKey({ b: { d: '3', c: '2' }, a: '1' }),
    );
    expect(payoutKey({ a: '1' })).not.toBe(payoutKey({ a: '2' }));
  });
});

describe('reuseRequestIds', () => {
  it('gives unchanged payouts their earlier ids, even when rows moved', () => {
    const prior = journal([
      [2, '10.00', 'A', 'completed'],
      [3, '20.00', 'B', 'completed'],
    ]);
    const items = [item(2, '5.00'), item(3, '10.00'), item(4, '20.00')];
    const r = reuseRequestIds(items, prior, newId, where);
    expect(r.conflicts).toEqual([]);
    expect(r.reused).toBe(2);
    expect(items.map((i) => i.request.request_id)).toEqual([expect.stringMatching(/^new-/), 'A', 'B']);
    expect(items.map((i) => i.requestIdFrom)).toEqual(['generated', 'journal', 'journal']);
  });

  it('matches identical rows one to one', () => {
    const prior = journal([
      [2, '10.00', 'A', 'completed'],
      [3, '10.00', 'B', 'completed'],
    ]);
    const items = [item(2, '10.00'), item(3, '10.00'), item(4, '10.00')];
    reuseRequestIds(items, prior, newId, where);
    expect(items.map((i) => i.request.request_id)).toEqual(['A', 'B', expect.stringMatching(/^new-/)]);
  });

  it('refuses a line that changed after its payout completed or got no answer', () => {
    const prior = journal([
      [2, '10.00', 'A', 'completed'],
      [3, '20.00', 'B', 'intent'],
      [4, '30.00', 'C', 'failed'],
      [5, '40.00', 'D'],
    ]);
    const items = [item(2, '11.00'), item(3, '21.00'), item(4, '31.00'), item(5, '41.00'), item(6, '50.00')];
    // Line 7 is unchanged, so this is the same batch, edited.
    const r = reuseRequestIds(items, [...prior, ...journal([[7, '50.00', 'E', 'completed']])], newId, where);
    expect(r.conflicts.map((c) => c.line)).toEqual([2, 3]);
    expect(r.conflicts[0]!.message).toMatch(/COMPLETED \(request_id A\)/);
  });

  it('treats a file reused for a wholly new batch as new payouts', () => {
    const prior = journal([[2, '10.00', 'A', 'completed']]);
    const items = [item(2, '99.00')];
    const r = reuseRequestIds(items, prior, newId, where);
    expect(r).toEqual({ reused: 0, conflicts: [] });
    expect(items[0]!.request.request_id).toMatch(/^new-/);
  });

  it('keeps ids given in the input and never hands them to another row', () => {
    const prior = journal([[2, '10.00', 'A', 'completed']]);
    const items = [item(2, '10.00', 'A'), item(3, '10.00')];
    reuseRequestIds(items, prior, newId, where);
    expect(items[0]!.request.request_id).toBe('A');
    expect(items[1]!.request.request_id).toMatch(/^new-/);
  });
});
