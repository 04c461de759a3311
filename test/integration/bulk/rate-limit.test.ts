// Rate limits (issue 16): a gateway answering 429 with Retry-After above its rate, and --rate capping
// payops's own pace — both judged on the sandbox's side (its ledger, and the requests it accepted in
// each second, GET /_sandbox/pace).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectHonest,
  payops,
  REFUND_HEADER,
  readResults,
  refundRows,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

interface Pace {
  per_second: Record<string, number>;
  max_per_second: number;
  refused: number;
}

async function pace(): Promise<Pace> {
  const res = await fetch(`${suite.gw.url}/_sandbox/pace`);
  return (await res.json()) as Pace;
}

async function refundFile(rows: number) {
  const orders = await suite.gw.createOrders(rows);
  return writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
}

describe('rate limits', { timeout: 240_000 }, () => {
  it('5,000 refunds against a gateway limited to 20 requests a second: exit 0, each refunded once, never above the limit', async () => {
    const file = await refundFile(5000);
    await suite.gw.faults({ mode: 'rate_limit', rps: 20 });
    const out = join(suite.dir, 'results.csv');
    const run = await payops(['refund', '--file', file, '--yes', '--out', out, '--concurrency', '8'], {
      env: suite.gw.env(suite.dir),
      timeoutMs: 220_000,
    });
    const seen = await pace();
    await suite.gw.faults({ mode: 'none' });
    expect(run.code, run.stderr).toBe(0);
    const results = readResults(out);
    expect(results).toHaveLength(5000);
    const honest = expectHonest(results, await suite.gw.ledger());
    expect(honest.problems).toEqual([]);
    expect(honest.succeeded).toBe(5000);
    // The limit struck (requests were refused and sent again), and no second held more than it.
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.max_per_second).toBeLessThanOrEqual(20);
  });

  it('--rate 10 never sends more than 10 requests in a second', async () => {
    const file = await refundFile(1000);
    const out = join(suite.dir, 'results.csv');
    const run = await payops(
      ['refund', '--file', file, '--yes', '--out', out, '--concurrency', '8', '--rate', '10'],
      { env: suite.gw.env(suite.dir), timeoutMs: 120_000 },
    );
    const seen = await pace();
    expect(run.code, run.stderr).toBe(0);
    expect(readResults(out).every((r) => r.outcome === 'succeeded')).toBe(true);
    const seconds = Object.values(seen.per_second);
    // Enough requests to fill several seconds (20 refund chunks and the look-ups before them).
    expect(seconds.reduce((a, b) => a + b, 0)).toBeGreaterThan(20);
    expect(seen.max_per_second).toBeLessThanOrEqual(10);
  });

  it('--rate is checked: a bad value is a usage error before anything is sent', async () => {
    const file = await refundFile(5);
    const run = await payops(['refund', '--file', file, '--yes', '--rate', '0'], {
      env: suite.gw.env(suite.dir),
    });
    expect(run.code).toBe(2);
    expect(Object.keys((await pace()).per_second)).toHaveLength(0);
  });
});
