// The sandbox's one clock: every timestamp it writes (transaction_date, refund_date, ledger `at`,
// payout created_at / last_updated_at, card expiry checks) reads `now()`, so that shifting it plays
// a gateway whose clock runs ahead of or behind the client's (POST /_sandbox/clock). Timestamps
// already recorded keep their value: only what happens from then on is stamped on the shifted clock.
import { Rejection } from './fields.js';

/** ±10 years: far enough for any clock skew a test wants, near enough to stay a real date. */
export const MAX_CLOCK_OFFSET_MS = 10 * 366 * 24 * 3600 * 1000;

export interface ClockState {
  offset_ms: number;
  /** The sandbox's current time, ISO 8601 UTC. */
  now: string;
  now_ms: number;
}

export class SandboxClock {
  #offsetMs = 0;

  get offsetMs(): number {
    return this.#offsetMs;
  }

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** Apply a `POST /_sandbox/clock` body; throws a Rejection (E1005, HTTP 400) on a bad offset. */
  set(body: Record<string, unknown>): ClockState {
    const offset = body.offset_ms;
    if (typeof offset !== 'number' || !Number.isInteger(offset) || Math.abs(offset) > MAX_CLOCK_OFFSET_MS) {
      throw new Rejection(
        'E1005',
        `offset_ms must be a whole number of milliseconds from -${MAX_CLOCK_OFFSET_MS} to ${MAX_CLOCK_OFFSET_MS}`,
        400,
      );
    }
    this.#offsetMs = offset;
    return this.state();
  }

  reset(): void {
    this.#offsetMs = 0;
  }

  state(): ClockState {
    const now = this.now();
    return { offset_ms: this.#offsetMs, now: new Date(now).toISOString(), now_ms: now };
  }
}
