import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../src/gateway/rate-limit.js';

describe('rate limiter (--rate)', () => {
  it('spaces requests 1000/N ms apart, concurrent callers in order, no burst', async () => {
    const waits: number[] = [];
    // The clock stands still: callers arriving together each wait one interval more.
    const limiter = createRateLimiter(
      4,
      () => 1000,
      async (ms) => {
        waits.push(ms);
      },
    );
    await Promise.all([0, 1, 2, 3].map(() => limiter.take()));
    expect(waits).toEqual([250, 500, 750]);
  });

  it('lets a request leave at once after a quiet interval', async () => {
    let clock = 0;
    const waits: number[] = [];
    const limiter = createRateLimiter(
      10,
      () => clock,
      async (ms) => {
        waits.push(ms);
      },
    );
    await limiter.take();
    clock = 500;
    await limiter.take();
    await limiter.take();
    expect(waits).toEqual([100]);
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
