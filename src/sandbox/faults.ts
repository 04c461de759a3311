// Fault injection (design.md §1.5): a mode, a rate drawn from a seeded PRNG so runs repeat given
// the same seed, a latency added to every matching response, and optional paths. Never applied to
// the admin API. Two modes play a gateway's awkward answers rather than a broken network, and only
// make sense on some endpoints: `commit_late` on those that change state, `status_zero` on batches.
// Two play a hostile server (issue 13): `trickle` sends a processed answer a byte at a time,
// `oversize` follows it with far more bytes than any answer has; sendFaulty() below writes them.
// One plays a gateway's rate limit (issue 16): `rate_limit` answers 429 with Retry-After to a request
// above `rps` accepted in the last second (not drawn at random). Every gateway request the sandbox
// accepts is counted per second (pace()), so a test can check a client's pace on the sandbox's side.
import type { ServerResponse } from 'node:http';
import { endpointByPath } from '../gateway/endpoints.js';
import { Rejection } from './fields.js';

export const FAULT_MODES = [
  'none',
  'error500',
  'drop_before_commit',
  'drop_after_commit',
  'hang',
  'garbage',
  'bad_signature',
  'commit_late',
  'status_zero',
  'trickle',
  'oversize',
  'rate_limit',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** trickle: one byte of the answer every this many ms — each well within any timeout, the whole never. */
export const TRICKLE_INTERVAL_MS = 250;

/**
 * oversize: spaces sent after the answer (JSON and XML allow trailing white space, so a client
 * that reads it all gets a valid answer): far more than any gateway answer, streamed, no length.
 */
export const OVERSIZE_PADDING_BYTES = 32 * 1024 * 1024;

/** commit_late's default delay between the 500 and the commit. */
export const DEFAULT_COMMIT_DELAY_MS = 2000;

export interface FaultConfig {
  mode: FaultMode;
  rate: number;
  latency_ms: number;
  paths: string[] | null;
  /** commit_late only (absent otherwise): how long after the request arrived it is committed. */
  delay_ms?: number;
  /** rate_limit only: requests accepted per second at most (a sliding second). */
  rps?: number;
}

/** The gateway requests the sandbox accepted, per second (GET /_sandbox/pace). */
export interface Pace {
  /** Epoch second → requests accepted in it. */
  per_second: Record<string, number>;
  /** The most accepted in any one second. */
  max_per_second: number;
  /** Requests answered 429 by rate_limit. */
  refused: number;
}

/** What to do to one request. */
export interface FaultDecision {
  mode: FaultMode;
  latencyMs: number;
  /** Set when mode is commit_late. */
  delayMs?: number;
  /** Set when mode is rate_limit: the Retry-After in seconds. */
  retryAfterS?: number;
}

/**
 * The endpoints a mode can hit; a request to any other path is left alone (and draws nothing from
 * the PRNG). commit_late: the endpoints that change state (there is nothing to commit late for a
 * query); status_zero: the batches (their answers have per-order results).
 */
const ELIGIBLE: Partial<Record<FaultMode, (path: string) => boolean>> = {
  commit_late: (path) => endpointByPath(path)?.moneyMoving === true,
  status_zero: (path) => endpointByPath(path)?.statusField !== undefined,
};

const NO_FAULT: Readonly<FaultDecision> = Object.freeze({ mode: 'none', latencyMs: 0 });

/** mulberry32: tiny, fast, good enough to spread faults; reproducible from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Faults {
  #config: FaultConfig = { mode: 'none', rate: 1, latency_ms: 0, paths: null };
  #random: () => number;
  readonly #seed: number;
  /** Arrival times (ms) of the requests accepted in the last second: rate_limit's window. */
  #window: number[] = [];
  #perSecond = new Map<number, number>();
  #refused = 0;

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = mulberry32(seed);
  }

  get config(): FaultConfig {
    return { ...this.#config, paths: this.#config.paths ? [...this.#config.paths] : null };
  }

  /** Apply a `POST /_sandbox/faults` body; throws a Rejection (E1005) naming the bad field. */
  set(body: Record<string, unknown>): FaultConfig {
    const mode = body.mode ?? 'none';
    if (typeof mode !== 'string' || !(FAULT_MODES as readonly string[]).includes(mode)) {
      throw new Rejection('E1005', `mode must be one of ${FAULT_MODES.join(', ')}`, 400);
    }
    if (mode === 'none' && body.latency_ms === undefined) {
      this.clear();
      return this.config;
    }
    const rate = body.rate ?? 1;
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
      throw new Rejection('E1005', 'rate must be a number from 0 to 1', 400);
    }
    const latency = body.latency_ms ?? 0;
    if (typeof latency !== 'number' || !Number.isInteger(latency) || latency < 0 || latency > 600_000) {
      throw new Rejection('E1005', 'latency_ms must be a whole number of milliseconds (0–600000)', 400);
    }
    const paths = body.paths ?? null;
    if (paths !== null && (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string'))) {
      throw new Rejection('E1005', 'paths must be an array of paths such as /v1/refund', 400);
    }
    // Deliveries are no request path: a fault set for them here would silently hit nothing.
    if (paths !== null && (paths as string[]).some((p) => p.replace(/^\/+/, '') === 'notify'))
      throw new Rejection(
        'E1005',
        'notifications have faults of their own: POST /_sandbox/notify-faults (fail_first, drop, duplicate, latency_ms, …)',
        400,
      );
    const rps = body.rps;
    if (mode === 'rate_limit') {
      if (typeof rps !== 'number' || !Number.isInteger(rps) || rps < 1 || rps > 100_000)
        throw new Rejection(
          'E1005',
          'rate_limit needs rps, a whole number of requests per second (1–100000)',
          400,
        );
    } else if (rps !== undefined) throw new Rejection('E1005', 'rps goes with mode rate_limit', 400);
    const delay = body.delay_ms;
    if (delay !== undefined) {
      if (mode !== 'commit_late') throw new Rejection('E1005', 'delay_ms goes with mode commit_late', 400);
      if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0 || delay > 600_000) {
        throw new Rejection('E1005', 'delay_ms must be a whole number of milliseconds (0–600000)', 400);
      }
    }
    const seed = body.seed;
    if (seed !== undefined) {
      if (typeof seed !== 'number' || !Number.isInteger(seed))
        throw new Rejection('E1005', 'seed must be an integer', 400);
      this.#random = mulberry32(seed);
    }
    this.#config = { mode: mode as FaultMode, rate, latency_ms: latency, paths: paths as string[] | null };
    if (mode === 'commit_late')
      this.#config.delay_ms = (delay as number | undefined) ?? DEFAULT_COMMIT_DELAY_MS;
    if (mode === 'rate_limit') this.#config.rps = rps as number;
    return this.config;
  }

  clear(): void {
    this.#config = { mode: 'none', rate: 1, latency_ms: 0, paths: null };
    this.#random = mulberry32(this.#seed);
    this.#window = [];
    this.#perSecond.clear();
    this.#refused = 0;
  }

  pace(): Pace {
    const per_second: Record<string, number> = {};
    let max = 0;
    for (const [s, n] of this.#perSecond) {
      per_second[String(s)] = n;
      max = Math.max(max, n);
    }
    return { per_second, max_per_second: max, refused: this.#refused };
  }

  /** rate_limit's check for a request arriving now; counts it when accepted. */
  #overLimit(now: number, limited: boolean): number | undefined {
    while (this.#window.length > 0 && this.#window[0]! <= now - 1000) this.#window.shift();
    const rps = this.#config.rps;
    if (limited && rps !== undefined && this.#window.length >= rps) {
      this.#refused++;
      // Whole seconds (the header's form): until the oldest accepted leaves the window.
      return Math.max(1, Math.ceil((this.#window[0]! + 1000 - now) / 1000));
    }
    this.#window.push(now);
    const second = Math.floor(now / 1000);
    this.#perSecond.set(second, (this.#perSecond.get(second) ?? 0) + 1);
    return undefined;
  }

  /** Decide for one gateway request (never called for /_sandbox/ paths). */
  decide(path: string, now: number = Date.now()): FaultDecision {
    const c = this.#config;
    const limited = c.mode === 'rate_limit' && (!c.paths || c.paths.includes(path));
    const retryAfterS = this.#overLimit(now, limited);
    if (retryAfterS !== undefined) return { mode: 'rate_limit', latencyMs: c.latency_ms, retryAfterS };
    if (c.mode === 'rate_limit')
      return c.latency_ms === 0 ? NO_FAULT : { mode: 'none', latencyMs: c.latency_ms };
    if (c.mode === 'none' && c.latency_ms === 0) return NO_FAULT;
    if (c.paths && !c.paths.includes(path)) return NO_FAULT;
    const eligible = ELIGIBLE[c.mode]?.(path) ?? true;
    const hit = c.mode !== 'none' && eligible && (c.rate >= 1 || this.#random() < c.rate);
    if (!hit) return { mode: 'none', latencyMs: c.latency_ms };
    if (c.mode === 'commit_late') return { mode: c.mode, latencyMs: c.latency_ms, delayMs: c.delay_ms! };
    return { mode: c.mode, latencyMs: c.latency_ms };
  }
}

/**
 * Sends an answer as `trickle` or `oversize` says. `wait` is the server's own timer, which its
 * close() clears: a trickle still going when the sandbox stops simply ends with its socket. Stops
 * as soon as the client goes away (a client that gives up must not keep the sandbox writing).
 */
export async function sendFaulty(
  res: ServerResponse,
  reply: { status: number; contentType: string; body: string },
  mode: 'trickle' | 'oversize',
  wait: (ms: number) => Promise<void>,
): Promise<void> {
  const body = Buffer.from(reply.body, 'utf8');
  if (mode === 'trickle') {
    res.writeHead(reply.status, { 'content-type': reply.contentType, 'content-length': body.length });
    res.flushHeaders();
    for (let i = 0; i < body.length && !res.destroyed; i++) {
      res.write(body.subarray(i, i + 1));
      if (i + 1 < body.length) await wait(TRICKLE_INTERVAL_MS);
    }
    if (!res.destroyed) res.end();
    return;
  }
  res.writeHead(reply.status, { 'content-type': reply.contentType });
  res.write(body);
  const block = Buffer.alloc(64 * 1024, 0x20);
  for (let left = OVERSIZE_PADDING_BYTES; left > 0 && !res.destroyed; left -= block.length) {
    if (!res.write(left >= block.length ? block : block.subarray(0, left))) await drainedOrClosed(res);
  }
  if (!res.destroyed) res.end();
}

/**
 * Until a response that refused a write can take more, or is gone. Both listeners go once either
 * fires: a `once('close')` left behind at every wait piled up on a long answer (node warned after
 * ten). A response gone already has told its 'close': waiting for it would never end.
 */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.closed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
