// Faults of the notification deliveries (POST /_sandbox/notify-faults), apart from the API's faults
// (faults.ts): those act on a request and its answer, these on the events the sandbox sends. Each
// event drawn (seeded PRNG, `rate`, optionally only some `event_types`) is failed on its first
// attempts, delayed, dropped, or delivered more than once, so a receiver's retries, slowness and
// de-duplication can be tested without a flaky network.
import { EVENT_TYPES } from '../gateway/events.js';
import { mulberry32 } from './faults.js';
import { Rejection } from './fields.js';

export interface NotifyFaultConfig {
  /** The first N attempts of each event hit fail (recorded as 500, never sent). */
  fail_first: number;
  /** Besides: each attempt of any event fails with this probability (0 none). */
  fail_rate: number;
  /** Each attempt of an event hit waits this long before it is sent. */
  latency_ms: number;
  /** Events hit are never sent: one `dropped` record each. */
  drop: boolean;
  /** Events hit are delivered this many times, each with its own attempts (1: once). */
  duplicate: number;
  /** The share of events hit, 0–1. */
  rate: number;
  /** Only events of these types are hit (null: all). */
  event_types: string[] | null;
}

export interface NotifyFaultDecision {
  copies: number;
  drop: boolean;
  failFirst: number;
  latencyMs: number;
}

const NONE: NotifyFaultConfig = {
  fail_first: 0,
  fail_rate: 0,
  latency_ms: 0,
  drop: false,
  duplicate: 1,
  rate: 1,
  event_types: null,
};
const UNTOUCHED: NotifyFaultDecision = Object.freeze({ copies: 1, drop: false, failFirst: 0, latencyMs: 0 });

const FIELDS = new Set([...Object.keys(NONE), 'seed']);

function wholeNumber(body: Record<string, unknown>, field: string, max: number): number {
  const v = body[field] ?? NONE[field as keyof NotifyFaultConfig];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    throw new Rejection('E1005', `${field} must be a whole number from 0 to ${max}`, 400);
  return v;
}

function share(body: Record<string, unknown>, field: string): number {
  const v = body[field] ?? NONE[field as keyof NotifyFaultConfig];
  if (typeof v !== 'number' || !(v >= 0 && v <= 1))
    throw new Rejection('E1005', `${field} must be a number from 0 to 1`, 400);
  return v;
}

export class NotifyFaults {
  #config: NotifyFaultConfig = { ...NONE };
  #random: () => number;
  readonly #seed: number;

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = mulberry32(seed);
  }

  get config(): NotifyFaultConfig {
    return { ...this.#config, event_types: this.#config.event_types ? [...this.#config.event_types] : null };
  }

  /** Apply a POST body: every field optional, each absent one back to none; `{}` clears. */
  set(body: Record<string, unknown>): NotifyFaultConfig {
    for (const field of Object.keys(body)) {
      if (!FIELDS.has(field))
        throw new Rejection('E1005', `${field} is not a notify fault (${[...FIELDS].join(', ')})`, 400);
    }
    const drop = body.drop ?? false;
    if (typeof drop !== 'boolean') throw new Rejection('E1005', 'drop must be true or false', 400);
    const types = body.event_types ?? null;
    if (types !== null && (!Array.isArray(types) || !types.every((t) => EVENT_TYPES.includes(t))))
      throw new Rejection('E1005', `event_types must be an array of ${EVENT_TYPES.join(', ')}`, 400);
    const duplicate = wholeNumber(body, 'duplicate', 100);
    if (duplicate < 1) throw new Rejection('E1005', 'duplicate must be a whole number from 1 to 100', 400);
    const config: NotifyFaultConfig = {
      fail_first: wholeNumber(body, 'fail_first', 100),
      fail_rate: share(body, 'fail_rate'),
      latency_ms: wholeNumber(body, 'latency_ms', 600_000),
      drop,
      duplicate,
      rate: share(body, 'rate'),
      event_types: types as string[] | null,
    };
    if (body.seed !== undefined) {
      if (typeof body.seed !== 'number' || !Number.isInteger(body.seed))
        throw new Rejection('E1005', 'seed must be an integer', 400);
      this.#random = mulberry32(body.seed);
    }
    this.#config = config;
    return this.config;
  }

  clear(): void {
    this.#config = { ...NONE };
    this.#random = mulberry32(this.#seed);
  }

  /** What happens to one new event. */
  decide(eventType: string): NotifyFaultDecision {
    const c = this.#config;
    if (c.fail_first === 0 && c.latency_ms === 0 && !c.drop && c.duplicate === 1) return UNTOUCHED;
    if (c.event_types && !c.event_types.includes(eventType)) return UNTOUCHED;
    if (c.rate < 1 && this.#random() >= c.rate) return UNTOUCHED;
    return { copies: c.duplicate, drop: c.drop, failFirst: c.fail_first, latencyMs: c.latency_ms };
  }

  /** fail_rate's draw for one attempt. */
  failsAttempt(): boolean {
    const r = this.#config.fail_rate;
    return r > 0 && (r >= 1 || this.#random() < r);
  }
}
