import { describe, expect, it } from 'vitest';
import type { PlannedRequest } from '../../../src/query/plan.js';
import { fetchWholeRange, halve, windowOf } from '../../../src/query/whole-range.js';

interface Rec {
  transaction_id: string;
  id: string;
  at: number;
}

const T0 = Date.parse('2026-11-01T00:00:00Z');
const parse = (s: string) =>
  Date.UTC(
    +s.slice(0, 4),
    +s.slice(4, 6) - 1,
    +s.slice(6, 8),
    +s.slice(8, 10),
    +s.slice(10, 12),
    +s.slice(12, 14),
  );

/** A gateway like the spec's: a range alone gives the newest `limit`; a list gives all of those orders. */
function fakeGateway(records: Rec[], limit = 100) {
  const sent: PlannedRequest[] = [];
  const send = async (plan: PlannedRequest): Promise<Rec[]> => {
    sent.push(plan);
    const from = parse(plan.body.start_date!);
    const to = parse(plan.body.end_date!) + 999;
    const inRange = records.filter((r) => r.at >= from && r.at <= to);
    if (plan.body.transaction_id) {
      const ids = new Set(plan.body.transaction_id.split(','));
      return inRange.filter((r) => ids.has(r.transaction_id));
    }
    return inRange.slice(-limit).reverse();
  };
  return { send, sent };
}

const hooks = (send: (p: PlannedRequest) => Promise<Rec[]>) => ({
  limit: 100,
  concurrency: 3,
  send,
  transactionOf: (r: Rec) => r.transaction_id,
  identity: (r: Rec) => r.id,
});

describe('whole range', () => {
  it('halves on whole seconds and covers the window exactly', () => {
    const [a, b] = halve({ from: T0, to: T0 + 9000 });
    expect(a).toEqual({ from: T0, to: T0 + 4000 });
    expect(b).toEqual({ from: T0 + 5000, to: T0 + 9000 });
    expect(halve({ from: T0, to: T0 + 1000 })).toEqual([
      { from: T0, to: T0 },
      { from: T0 + 1000, to: T0 + 1000 },
    ]);
    expect(windowOf(new Date(T0 + 400), new Date(T0 + 2999))).toEqual({ from: T0, to: T0 + 2000 });
  });

  it('finds every record once, however they crowd, and names a full second', async () => {
    const records: Rec[] = [];
    for (let i = 0; i < 1000; i++)
      records.push({ transaction_id: `T${i % 400}`, id: `R${i}`, at: T0 + Math.floor(i * 37.3) * 1000 });
    // 130 records of 5 orders in one second.
    for (let i = 0; i < 130; i++) records.push({ transaction_id: `C${i % 5}`, id: `C${i}`, at: T0 + 77_000 });
    records.sort((a, b) => a.at - b.at);
    const gw = fakeGateway(records);
    const out = await fetchWholeRange({ from: T0, to: T0 + 86_399_000 }, hooks(gw.send));
    expect(out.records.map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort());
    expect(out.saturated).toEqual([{ second: T0 + 77_000, found: 130 }]);
    expect(out.requests).toBe(gw.sent.length);
  });

  it('throws the first failure and starts nothing after it', async () => {
    let calls = 0;
    const send = async () => {
      calls++;
      throw new Error('boom');
    };
    await expect(fetchWholeRange({ from: T0, to: T0 + 10_000 }, hooks(send))).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});
