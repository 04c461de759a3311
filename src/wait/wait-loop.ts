// Waiting for a final state, written once for payments and payouts. Two ways to learn it: the events
// journal of a running `payops listen` (read again when the file changes — fs.watch — and every
// second, since a watch can miss changes on some file systems), and asking the gateway itself with
// backoff. While a listener holds its lock AND the payment or payout was created with a notify_url
// the gateway is asked rarely (the event is expected first; the rare question covers a listener that
// stopped); otherwise — no listener, or no notify_url so no event can come — 1 s, 2 s, 4 s … 15 s. Either
// way the gateway is asked once more at the deadline before "not settled" is said: fail closed.
import { type FSWatcher, watch } from 'node:fs';
import { dirname } from 'node:path';
import { AuthError, ConfigError, LocalWriteError } from '../errors.js';
import type { EventTail, JournaledEvent } from './events-tail.js';

export type WaitEnd<T> =
  | { kind: 'final'; value: T; via: 'event' | 'gateway' }
  | { kind: 'deadline' }
  | { kind: 'stopped'; reason: unknown };

export interface WaitSpec<T> {
  /** How long to wait, from now. */
  waitMs: number;
  /** Aborted by Ctrl-C (SIGTERM, SIGHUP): the wait ends, nothing is changed at the gateway. */
  signal: AbortSignal;
  tail?: EventTail;
  /**
   * The payment or payout was created with a notify_url, so its events can reach the listener.
   * Without it (the default) the gateway is asked at the quick schedule even while a listener runs.
   */
  eventsExpected?: boolean;
  /** The final state among these newly journaled events, if one is there (may record what it took). */
  fromEvents: (events: JournaledEvent[]) => T | undefined | Promise<T | undefined>;
  /** Asks the gateway: the final state, or undefined while it is still pending. */
  ask: () => Promise<T | undefined>;
  /** Called about once a second with the time waited (the progress line). */
  onTick?: (elapsedMs: number) => void;
  /** A gateway question that failed (the wait goes on). */
  onAskFailed?: (err: unknown) => void;
  /** For tests: the clock and the jitter's randomness. */
  now?: () => number;
  random?: () => number;
}

/** Without a journal: quick at first (a shopper may already be done), then every 15 s. */
export const POLL_DELAYS_MS = [1000, 2000, 4000, 8000, 15_000] as const;
/** With a journal: the events answer first; the gateway is a safety net for a listener that is down. */
export const POLL_DELAYS_WITH_EVENTS_MS = [15_000, 30_000, 60_000] as const;

/** The n-th delay of the schedule (the last repeats), ±20 % so that many waits do not ask in step. */
export function pollDelay(
  schedule: readonly number[],
  n: number,
  random: () => number = Math.random,
): number {
  const base = schedule[Math.min(n, schedule.length - 1)]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The rare schedule only when an event can come: a live listener and a notify_url to reach it. */
export function slowPoll(spec: Pick<WaitSpec<unknown>, 'tail' | 'eventsExpected'>): boolean {
  return spec.tail?.listening === true && spec.eventsExpected === true;
}

/** A notify_url the gateway can send events to (any non-blank text: the gateway judges the address). */
export function hasNotifyUrl(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/** Said when a listener runs but no event can come: why the gateway is asked at the quick schedule. */
export function noEventsNote(what: string): string {
  return `${what} was created without a notify_url, so no event of it reaches payops listen; asking the gateway (1 s, 2 s, 4 s …)`;
}

/** Errors that no later question would cure: the wait stops with them. */
function isFatal(err: unknown): boolean {
  return err instanceof AuthError || err instanceof ConfigError || err instanceof LocalWriteError;
}

export async function waitForFinal<T>(spec: WaitSpec<T>): Promise<WaitEnd<T>> {
  const now = spec.now ?? Date.now;
  const random = spec.random ?? Math.random;
  const started = now();
  const deadline = started + spec.waitMs;
  const schedule = slowPoll(spec) ? POLL_DELAYS_WITH_EVENTS_MS : POLL_DELAYS_MS;
  let asks = 0;
  let nextAsk = started + pollDelay(schedule, asks, random);
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const watcher = spec.tail ? watchFolder(dirname(spec.tail.file), poke) : undefined;
  spec.signal.addEventListener('abort', poke, { once: true });

  const ask = async (): Promise<T | undefined> => {
    try {
      return await spec.ask();
    } catch (err) {
      if (isFatal(err)) throw err;
      spec.onAskFailed?.(err);
      return undefined;
    }
  };
  try {
    for (;;) {
      if (spec.signal.aborted) return { kind: 'stopped', reason: spec.signal.reason };
      if (spec.tail) {
        const value = await spec.fromEvents(await spec.tail.read());
        if (value !== undefined) return { kind: 'final', value, via: 'event' };
      }
      const t = now();
      if (t >= deadline) {
        const value = await ask();
        return value !== undefined ? { kind: 'final', value, via: 'gateway' } : { kind: 'deadline' };
      }
      if (t >= nextAsk) {
        const value = await ask();
        if (value !== undefined) return { kind: 'final', value, via: 'gateway' };
        asks += 1;
        nextAsk = now() + pollDelay(schedule, asks, random);
        continue;
      }
      spec.onTick?.(t - started);
      const until = Math.min(nextAsk, deadline, t + 1000 - ((t - started) % 1000));
      await new Promise<void>((done) => {
        const timer = setTimeout(done, Math.max(0, until - t));
        wake = () => {
          clearTimeout(timer);
          done();
        };
      });
      wake = undefined;
    }
  } finally {
    watcher?.close();
    spec.signal.removeEventListener('abort', poke);
  }
}

/** A watch on the journal's folder (the file may not exist yet, or be replaced); none when it cannot. */
function watchFolder(dir: string, onChange: () => void): FSWatcher | undefined {
  try {
    const w = watch(dir, { persistent: false }, onChange);
    w.on('error', () => w.close());
    return w;
  } catch {
    return undefined;
  }
}
