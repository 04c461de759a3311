import { describe, expect, it } from 'vitest';
import { createRateLimiter, RATE_MARGIN } from '../../../src/gateway/rate-limit.js';

describe('rate limiter (--rate)', () => {
  /** A clock that sleeping moves on, by `late` ms more than asked (a timer that fires late). */
  function fakeTime(late = 0) {
    const t = { clock: 1000, waits: [] as number[], leaves: [] as number[] };
    const sleep = async (ms: number) => {
      t.waits.push(ms);
      t.clock += ms + late;
    };
    return { t, now: () => t.clock, sleep };
  }

  it('spaces requests a little over 1000/N ms apart, concurrent callers in order, no burst', async () => {
    const { t, now, sleep } = fakeTime();
    const limiter = createRateLimiter(4, now, sleep);
    await Promise.all([0, 1, 2, 3].map(() => limiter.take().then(() => t.leaves.push(t.clock))));
    // 1000/4 = 250 ms, and 5 % more (RATE_MARGIN): 262.5, slept as 263.
    expect(t.waits).toEqual([263, 263, 263]);
    expect(t.leaves).toEqual([1000, 1263, 1526, 1789]);
  });

  // CI saw 11 requests in one second at the gateway with --rate 10: a timer that fired late let
  // the next request, whose slot had been reserved from the planned time, leave right after it.
  it('spaces requests from when each really left, when a timer fires late', async () => {
    const { t, now, sleep } = fakeTime(90);
    const limiter = createRateLimiter(10, now, sleep);
    await Promise.all(Array.from({ length: 12 }, () => limiter.take().then(() => t.leaves.push(t.clock))));
    for (let i = 1; i < t.leaves.length; i++) {
      expect(t.leaves[i]! - t.leaves[i - 1]!).toBeGreaterThanOrEqual(100 * RATE_MARGIN);
    }
    // Never more than 10 in any second.
    for (const from of t.leaves)
      expect(t.leaves.filter((x) => x >= from && x < from + 1000).length).toBeLessThanOrEqual(10);
  });

  it('lets a request leave at once after a quiet interval', async () => {
    const { t, now, sleep } = fakeTime();
    const limiter = createRateLimiter(10, now, sleep);
    await limiter.take();
    t.clock += 500;
    await limiter.take();
    await limiter.take();
    expect(t.waits).toEqual([105]);
  });

  it('is no limit without a positive rate', async () => {
    const waits: number[] = [];
    const limiter = createRateLimiter(
      undefined,
      () => 0,
      async (ms) => {
        waits.push(ms);
      },
    );
    for (let i = 0; i < 10; i++) await limiter.take();
    expect(waits).toEqual([]);
  });

  it('stops waiting when the signal aborts', async () => {
    const limiter = createRateLimiter(1);
    await limiter.take();
    const ctl = new AbortController();
    const waiting = limiter.take(ctl.signal);
    ctl.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
