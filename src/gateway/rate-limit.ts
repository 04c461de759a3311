// The pace of one process's requests (`--rate N`, profile key `rate`): a token bucket of N tokens a
// second holding ONE token at most, so requests leave evenly spaced 1000/N ms apart and no burst
// can put more than N into any second. Every attempt of every request of the process takes a token
// (the one transport holds the one limiter), retries included: a retry is a request to the gateway.

export interface RateLimiter {
  /** Resolves when this request may leave; rejects with the signal's reason when it aborts first. */
  take(signal?: AbortSignal): Promise<void>;
}

/** No limit: every request leaves at once. */
export const UNLIMITED: RateLimiter = { take: async () => undefined };

export function createRateLimiter(
  perSecond: number | undefined,
  now: () => number = () => performance.now(),
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = abortableSleep,
): RateLimiter {
  if (perSecond === undefined || !(perSecond > 0) || !Number.isFinite(perSecond)) return UNLIMITED;
  const interval = 1000 / perSecond;
  // When the next request may leave; reserved synchronously, so concurrent callers queue in order.
  let next = Number.NEGATIVE_INFINITY;
  return {
    async take(signal) {
      const at = Math.max(now(), next);
      next = at + interval;
      const wait = at - now();
      if (wait > 0) await sleep(Math.ceil(wait), signal);
    },
  };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const t = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
