// The pace of one process's requests (`--rate N`, profile key `rate`): a token bucket of N tokens a
// second holding ONE token at most, so requests leave evenly spaced (1000/N ms, and RATE_MARGIN
// more) and no burst can put more than N into any second. Every attempt of every request of the process takes a token
// (the one transport holds the one limiter), retries included: a retry is a request to the gateway.

import { whenAborted } from './abort-watch.js';

export interface RateLimiter {
  /** Resolves when this request may leave; rejects with the signal's reason when it aborts first. */
  take(signal?: AbortSignal): Promise<void>;
}

/** No limit: every request leaves at once. */
export const UNLIMITED: RateLimiter = { take: async () => undefined };

/**
 * How much slower than N a second requests leave: the gateway counts them as they arrive, and a
 * request a little slower on the way than the next one would otherwise put N + 1 into its second.
 */
export const RATE_MARGIN = 1.05;

export function createRateLimiter(
  perSecond: number | undefined,
  now: () => number = () => performance.now(),
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = abortableSleep,
): RateLimiter {
  if (perSecond === undefined || !(perSecond > 0) || !Number.isFinite(perSecond)) return UNLIMITED;
  const interval = (1000 / perSecond) * RATE_MARGIN;
  // When the last request really left. Callers take turns in order (one queue); each waits until an
  // interval has passed since the one before it left — measured after the wait, not planned before
  // it, so a timer that fires late never lets the next request leave right behind it.
  let last = Number.NEGATIVE_INFINITY;
  let queue: Promise<void> = Promise.resolve();
  return {
    take(signal) {
      const turn = queue.then(async () => {
        for (let wait = last + interval - now(); wait > 0; wait = last + interval - now()) {
          await sleep(Math.ceil(wait), signal);
        }
        last = now();
      });
      queue = turn.catch(() => {});
      return turn;
    },
  };
}

/** The limiter's wait: a stop ends it at once, rejecting with the stop's reason. */
async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await wakeable(ms, signal);
  signal?.throwIfAborted();
}

/**
 * A wait between attempts that a stop ends at once (the loop then reports the request not sent):
 * a Retry-After of up to 10 s outlived the second Ctrl-C, which promises to stop within a second.
 */
export function wakeable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    let unwatch: (() => void) | undefined;
    const done = () => {
      clearTimeout(timer);
      unwatch?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal) unwatch = whenAborted(signal, done);
  });
}
