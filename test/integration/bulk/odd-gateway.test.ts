// Issue 23 items 5 and 8: a gateway that answers within the specification but not as the sandbox
// does — reasons echoed otherwise, per-order results missing a status, duplicated, out of order,
// amounts spelled otherwise, an HTTP error after the batch was applied. The odd gateway is a proxy
// in front of the real sandbox that rewrites its answers and signs them again
// (test/helpers/odd-gateway.ts); every test is judged by the sandbox's ledger.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eachElement, type OddGateway, type Rewrite, startOddGateway } from '../../helpers/odd-gateway.js';
import {
  expectHonest,
  journalRecords,
  type LedgerEntry,
  type Order,
  payops,
  REFUND_HEADER,
  readResults,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

let rewrite: Rewrite = () => undefined;
let odd: OddGateway;
beforeAll(async () => {
  odd = await startOddGateway(suite.gw.url, (req, answer) => rewrite(req, answer));
});
afterAll(async () => {
  await odd?.close();
});
beforeEach(() => {
  rewrite = () => undefined;
});

const REFUND = '/v1/refund';
const SEARCH = '/v1/retrievalRefund';

function env() {
  return suite.gw.env(suite.dir, { PAYOPS_BASE_URL: odd.url });
}

async function orders(count: number, amount?: string): Promise<Order[]> {
  const res = await fetch(`${suite.gw.url}/_sandbox/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count, state: '3000', currency: 'USD', ...(amount ? { amount } : {}) }),
  });
  if (!res.ok) throw new Error(`orders: HTTP ${res.status}`);
  return (await res.json()) as Order[];
}

/** Rows refunding a quarter of each order: a row refunded twice shows in the ledger, not as E2004. */
function quarterRows(list: Order[], reason: string): string[][] {
  return list.map((o) => {
    const cents = BigInt(o.amount.replace('.', '')) / 4n;
    const part = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
    return [o.transaction_id, o.order_no, o.currency, o.amount, part, reason];
  });
}

function run(file: string, out: string, extra: string[] = []) {
  return payops(['refund', '--file', file, '--yes', '--out', out, '--concurrency', '2', ...extra], {
    env: env(),
  });
}

/** No transaction refunded more than once, and each row's outcome what the ledger shows. */
function judge(results: Record<string, string>[], ledger: LedgerEntry[]) {
  const honest = expectHonest(results, ledger);
  return honest;
}

describe('item 5: a gateway that echoes refund reasons otherwise, with lost answers', () => {
  it('refund search upper-cases refund_reason, drop_after_commit 0.5: every row refunded once, resume sends nothing', async () => {
    const all = await orders(150);
    const file = writeCsv(
      join(suite.dir, 'refunds.csv'),
      REFUND_HEADER,
      quarterRows(all, 'customer request'),
    );
    const out = join(suite.dir, 'results.csv');
    rewrite = (req, answer) =>
      req.path === SEARCH
        ? eachElement(answer, 'refund_orders', (el) => ({
            ...el,
            refund_reason: String(el.refund_reason ?? '').toUpperCase(),
          }))
        : undefined;
    await suite.gw.faults({ mode: 'drop_after_commit', rate: 0.5, seed: 5, paths: [REFUND] });
    const first = await run(file, out);
    expect(journalRecords(suite.dir, 'unknown'), first.stderr).toBeGreaterThan(0);
    const results = readResults(out);
    const honest = judge(results, await suite.gw.ledger());
    expect(honest.problems, first.stderr).toEqual([]);
    expect(honest.succeeded).toBe(150);
    expect(first.code, first.stderr).toBe(0);

    await suite.gw.faults({ mode: 'none' });
    const before = (await suite.gw.ledger()).length;
    const again = await payops(['refund', '--file', file, '--yes', '--resume'], { env: env() });
    expect([0, 2], again.stderr).toContain(again.code);
    const ledger = await suite.gw.ledger();
    expect(ledger.length).toBe(before);
    expect([...refundsByTransaction(ledger).values()].every((l) => l.length === 1)).toBe(true);
  });

  it('refund search truncates reasons to 20 characters, lost answers: every row refunded once, succeeded', async () => {
    const all = await orders(200);
    const rows = quarterRows(all, 'Customer asked for a refund: parcel lost in transit');
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
    const out = join(suite.dir, 'results.csv');
    rewrite = (req, answer) =>
      req.path === SEARCH
        ? eachElement(answer, 'refund_orders', (el) => ({
            ...el,
            refund_reason: String(el.refund_reason ?? '').slice(0, 20),
          }))
        : undefined;
    await suite.gw.faults({ mode: 'drop_after_commit', rate: 0.5, seed: 3, paths: [REFUND] });
    const r = await run(file, out);
    expect(journalRecords(suite.dir, 'unknown'), r.stderr).toBeGreaterThan(0);
    const honest = judge(readResults(out), await suite.gw.ledger());
    expect(honest.problems, r.stderr).toEqual([]);
    expect(honest.succeeded).toBe(200);
    expect(r.code, r.stderr).toBe(0);
  });

  it('two partial refunds of one amount whose reasons the gateway cuts to the same text, both lost: unknown, never sent again', async () => {
    const all = await orders(5, '100.00');
    const rows = all.flatMap((o) => [
      [o.transaction_id, o.order_no, o.currency, o.amount, '20.00', 'goodwill: late delivery'],
      [o.transaction_id, o.order_no, o.currency, o.amount, '20.00', 'goodwill: damaged box'],
    ]);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
    const out = join(suite.dir, 'results.csv');
    rewrite = (req, answer) =>
      req.path === SEARCH
        ? eachElement(answer, 'refund_orders', (el) => ({
            ...el,
            refund_reason: String(el.refund_reason ?? '').slice(0, 8),
          }))
        : undefined;
    await suite.gw.faults({ mode: 'drop_after_commit', rate: 1, paths: [REFUND] });
    const r = await run(file, out);
    expect(r.code, r.stderr).toBe(3);
    const results = readResults(out);
    expect(results.map((x) => x.outcome)).toEqual(rows.map(() => 'unknown'));
    expect(results[0]!.outcome_detail).toMatch(/ambiguous/);
    const once = async () => {
      const ledger = (await suite.gw.ledger()).filter((e) => e.kind === 'refund');
      expect(ledger).toHaveLength(10);
      for (const list of refundsByTransaction(ledger).values()) expect(list).toHaveLength(2);
    };
    await once();
    // A resumed run asks again, finds the same ambiguity, and sends nothing.
    await suite.gw.faults({ mode: 'none' });
    const again = await payops(['refund', '--file', file, '--yes', '--resume', '--out', out], { env: env() });
    expect(again.code, again.stderr).toBe(3);
    expect(readResults(out).map((x) => x.outcome)).toEqual(rows.map(() => 'unknown'));
    await once();
  });
});

describe('item 5: a reference answered to one row is never taken for another', () => {
  it('"goodwill gesture" answered, "goodwill" of the same amount left without a result, reasons echoed cut to 8: each row its own refund', async () => {
    const all = await orders(5, '100.00');
    const rows = all.flatMap((o) => [
      [o.transaction_id, o.order_no, o.currency, o.amount, '20.00', 'goodwill gesture'],
      [o.transaction_id, o.order_no, o.currency, o.amount, '20.00', 'goodwill'],
    ]);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
    const out = join(suite.dir, 'results.csv');
    rewrite = (req, answer) => {
      if (req.path === SEARCH)
        return eachElement(answer, 'refund_orders', (el) => ({
          ...el,
          refund_reason: String(el.refund_reason ?? '').slice(0, 8),
        }));
      if (req.path !== REFUND) return undefined;
      const list = answer.body?.refund_orders;
      if (!Array.isArray(list)) return undefined;
      const kept = list.filter((el: Record<string, unknown>) => el.refund_reason !== 'goodwill');
      return { status: answer.status, body: { ...answer.body, refund_orders: kept } };
    };
    const r = await run(file, out);
    const results = readResults(out);
    // Two refunds of 20.00 per order in the ledger, the sandbox numbering them in request order:
    // the first row's is -01, the second's -02 — each row reported with its own.
    const ledger = (await suite.gw.ledger()).filter((e) => e.kind === 'refund');
    expect(ledger).toHaveLength(10);
    for (const list of refundsByTransaction(ledger).values()) expect(list).toHaveLength(2);
    expect(results.map((x) => [x.outcome, x.refund_reference_id])).toEqual(
      rows.map((row, i) => ['succeeded', `${row[0]}-0${(i % 2) + 1}`]),
    );
    expect(r.code, r.stderr).toBe(0);
  });
});

/** The refund row of (transaction, refund amount in cents) in the ledger, how many times. */
function ledgerCount(ledger: LedgerEntry[], tid: string, amount: string): LedgerEntry[] {
  return ledger.filter(
    (e) => e.kind === 'refund' && e.transaction_id === tid && cents(e.refund_amount ?? '') === cents(amount),
  );
}

function cents(amount: string): bigint {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole!) * 100n + BigInt((frac + '00').slice(0, 2));
}

/**
 * Every row judged by the ledger: succeeded ⇔ refunded once with that amount; failed ⇒ not
 * refunded; nothing refunded twice; each succeeded row's reference id the ledger's own.
 */
function judgeRows(results: Record<string, string>[], ledger: LedgerEntry[]): string[] {
  const problems: string[] = [];
  for (const r of results) {
    const found = ledgerCount(ledger, r.transaction_id!, r.refund_amount!);
    const what = `${r.transaction_id} ${r.refund_amount}`;
    if (found.length > 1) problems.push(`${what} refunded ${found.length} times`);
    if (r.outcome === 'succeeded') {
      if (found.length !== 1) problems.push(`${what} reported succeeded, ledger has ${found.length}`);
      else if (r.refund_reference_id !== found[0]!.refund_reference_id)
        problems.push(`${what} reference ${r.refund_reference_id}, ledger ${found[0]!.refund_reference_id}`);
    } else if (r.outcome === 'failed') {
      if (found.length > 0) problems.push(`${what} reported failed (${r.outcome_detail}), but refunded`);
    } else problems.push(`${what} outcome ${r.outcome}: ${r.outcome_detail}`);
  }
  return problems;
}

describe('item 8: odd per-order answers are settled at the gateway, never read as failed', () => {
  const shapes: Array<[string, Rewrite]> = [
    [
      'a result without refund_status',
      (req, answer) =>
        req.path === REFUND
          ? eachElement(answer, 'refund_orders', (el, i) => {
              if (i % 2 === 1) return undefined;
              const { refund_status: _gone, ...rest } = el;
              return rest;
            })
          : undefined,
    ],
    [
      'refund_status "2"',
      (req, answer) =>
        req.path === REFUND
          ? eachElement(answer, 'refund_orders', (el, i) =>
              i % 3 === 0 ? { ...el, refund_status: '2' } : el,
            )
          : undefined,
    ],
    [
      'each result twice, the first copy status 0',
      (req, answer) => {
        if (req.path !== REFUND) return undefined;
        const list = answer.body?.refund_orders;
        if (!Array.isArray(list)) return undefined;
        const twice = list.flatMap((el: Record<string, unknown>) => [
          { ...el, refund_status: '0', refund_message: 'E2004:refund exceeds the refundable balance' },
          el,
        ]);
        return { status: answer.status, body: { ...answer.body, refund_orders: twice } };
      },
    ],
    [
      'HTTP 409, 400, 408, 413 after the batch was applied',
      (() => {
        let n = 0;
        const statuses = [409, 400, 408, 413];
        return (req: { path: string }) => {
          if (req.path !== REFUND) return undefined;
          const status = statuses[n++ % statuses.length]!;
          return {
            status,
            body:
              status === 400
                ? { code: 'E1005', message: 'E1005:malformed request' }
                : status === 409
                  ? { return_status: '0', return_message: 'E2005:conflict' }
                  : undefined,
          };
        };
      })(),
    ],
  ];

  it.each(shapes)(
    '%s: no row failed that the ledger shows done, none refunded twice',
    async (_name, shape) => {
      const all = await orders(160);
      const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, quarterRows(all, 'odd answers'));
      const out = join(suite.dir, 'results.csv');
      rewrite = shape;
      const r = await run(file, out);
      expect(odd.rewritten.get(REFUND) ?? 0).toBeGreaterThan(0);
      const results = readResults(out);
      expect(judgeRows(results, await suite.gw.ledger()), r.stderr).toEqual([]);
      expect(results.filter((x) => x.outcome === 'succeeded')).toHaveLength(160);
      expect(r.code, r.stderr).toBe(0);
    },
  );

  it('partial refunds of one order in one chunk, answered out of order with "30" for "30.00": outcomes and reference ids stay with their rows', async () => {
    const all = await orders(10, '100.00');
    // An earlier refund of 10.00 leaves 90.00: of the rows 30.00 and 70.00, the second is refused
    // (E2004), so a swap shows as a refunded row reported failed.
    const earlier = writeCsv(
      join(suite.dir, 'earlier.csv'),
      REFUND_HEADER,
      all.map((o) => [o.transaction_id, o.order_no, o.currency, o.amount, '10.00', 'earlier']),
    );
    const first = await run(earlier, join(suite.dir, 'earlier-results.csv'));
    expect(first.code, first.stderr).toBe(0);
    const rows = all.flatMap((o) => [
      [o.transaction_id, o.order_no, o.currency, o.amount, '30.00', 'part one'],
      [o.transaction_id, o.order_no, o.currency, o.amount, '70.00', 'part two'],
    ]);
    const file = writeCsv(join(suite.dir, 'parts.csv'), REFUND_HEADER, rows);
    const out = join(suite.dir, 'results.csv');
    const spell = (v: unknown) => String(v ?? '').replace(/\.?0+$/, '');
    rewrite = (req, answer) => {
      if (req.path !== REFUND) return undefined;
      const list = answer.body?.refund_orders;
      if (!Array.isArray(list)) return undefined;
      const odd = [...list].reverse().map((el: Record<string, unknown>) => ({
        ...el,
        amount: spell(el.amount),
        refund_amount: spell(el.refund_amount),
      }));
      return { status: answer.status, body: { ...answer.body, refund_orders: odd } };
    };
    const r = await run(file, out);
    expect(odd.rewritten.get(REFUND) ?? 0).toBeGreaterThan(0);
    const results = readResults(out);
    expect(judgeRows(results, await suite.gw.ledger()), r.stderr).toEqual([]);
    expect(results.map((x) => [x.refund_amount, x.outcome])).toEqual(
      rows.map((row) => [row[4], row[4] === '30.00' ? 'succeeded' : 'failed']),
    );
    expect(results.filter((x) => x.outcome === 'failed').every((x) => /E2004/.test(x.outcome_detail!))).toBe(
      true,
    );
    expect(r.code, r.stderr).toBe(1);
  });
});
