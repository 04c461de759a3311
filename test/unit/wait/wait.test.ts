// The pieces of --wait that decide: what a journaled event means for the order or payout waited
// for, how the tail reads only new whole lines, the backoff, and the exit codes.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finalFromEvents, paymentEnd, waitExitCode } from '../../../src/pay/wait-payment.js';
import { type JournaledEvent, openEventTail } from '../../../src/wait/events-tail.js';
import {
  POLL_DELAYS_MS,
  POLL_DELAYS_WITH_EVENTS_MS,
  pollDelay,
  slowPoll,
  waitForFinal,
} from '../../../src/wait/wait-loop.js';
import { tempDir } from '../../helpers/run-cli.js';

function line(
  eventType: string,
  data: Record<string, unknown>,
  createdAt = '2026-12-06T01:00:00+0000',
): string {
  const body = JSON.stringify({ event_id: 'EV1', event_type: eventType, created_at: createdAt, data });
  return `${JSON.stringify({ v: 1, receivedAt: '2026-12-06T01:00:01.000Z', eventId: 'EV1', eventType, createdAt, body })}\n`;
}

const ev = (
  eventType: string,
  data: Record<string, unknown>,
  createdAt = '2026-12-06T01:00:00+0000',
): JournaledEvent => ({
  eventId: 'EV1',
  eventType,
  createdAt,
  data,
});

describe('payment states and exit codes', () => {
  it('pending (1000, 2100) is not final; approved and captured exit 0, declined and cancelled 1, unsettled 3', () => {
    expect(paymentEnd('1000')).toBeUndefined();
    expect(paymentEnd('2100')).toBeUndefined();
    expect(waitExitCode(paymentEnd('2000'))).toBe(0);
    expect(waitExitCode(paymentEnd('3000'))).toBe(0);
    expect(waitExitCode(paymentEnd('6000'))).toBe(1);
    expect(waitExitCode(paymentEnd('5000'))).toBe(1);
    expect(waitExitCode(undefined)).toBe(3);
  });

  it('finalFromEvents: only this order (and transaction, when known), only final states, the newest', () => {
    const p = { order_no: 'O1', transaction_id: 'T1' };
    expect(
      finalFromEvents(p, [ev('payment.pending', { order_no: 'O1', payment_status: '1000' })]),
    ).toBeUndefined();
    expect(
      finalFromEvents(p, [ev('payment.captured', { order_no: 'O2', payment_status: '3000' })]),
    ).toBeUndefined();
    expect(
      finalFromEvents(p, [
        ev('payment.captured', { order_no: 'O1', transaction_id: 'T9', payment_status: '3000' }),
      ]),
    ).toBeUndefined();
    expect(
      finalFromEvents(p, [ev('payout.completed', { order_no: 'O1', payment_status: '3000' })]),
    ).toBeUndefined();
    const found = finalFromEvents(p, [
      ev('payment.captured', { order_no: 'O1', payment_status: '3000' }, '2026-12-06T01:00:05+0000'),
      ev('payment.approved', { order_no: 'O1', payment_status: '2000' }, '2026-12-06T01:00:01+0000'),
    ]);
    expect(found?.payment_status).toBe('3000');
  });
});

describe('the events tail', () => {
  it('reads only what was appended after it opened, whole lines only, and a replaced journal from its start', async () => {
    const state = tempDir();
    const dir = join(state, 'events');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'events.jsonl');
    writeFileSync(file, line('payment.captured', { order_no: 'OLD', payment_status: '3000' }));
    const tail = await openEventTail(state);
    expect(tail.listening).toBe(false);
    expect(await tail.read()).toEqual([]);
    const next = line('payment.captured', { order_no: 'NEW', payment_status: '3000' });
    appendFileSync(file, next.slice(0, 20));
    expect(await tail.read()).toEqual([]);
    appendFileSync(file, `${next.slice(20)}not json\n`);
    expect((await tail.read()).map((e) => e.data.order_no)).toEqual(['NEW']);
    writeFileSync(file, line('payment.declined', { order_no: 'AFTER', payment_status: '6000' }));
    expect((await tail.read()).map((e) => e.data.order_no)).toEqual(['AFTER']);
  });

  it('a journal created after the wait began is read from its start; a live listen.lock means a listener', async () => {
    const state = tempDir();
    const tail = await openEventTail(state);
    mkdirSync(join(state, 'events'), { recursive: true });
    appendFileSync(
      join(state, 'events', 'events.jsonl'),
      line('payment.captured', { order_no: 'A', payment_status: '3000' }),
    );
    expect((await tail.read()).map((e) => e.data.order_no)).toEqual(['A']);
    // A lock left by a process that is gone is no listener; one held by a live process is.
    const lock = join(state, 'events', 'listen.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: 2 ** 22 + 12_345, host: hostname(), at: new Date().toISOString() }),
    );
    expect((await openEventTail(state)).listening).toBe(false);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }));
    expect((await openEventTail(state)).listening).toBe(true);
  });
});

describe('the backoff', () => {
  it('1 s, 2 s, 4 s, 8 s, then 15 s; with a listener 15 s, 30 s, then 60 s; ±20 % jitter', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => pollDelay(POLL_DELAYS_MS, n, mid))).toEqual([
      1000, 2000, 4000, 8000, 15_000, 15_000, 15_000,
    ]);
    expect([0, 1, 2, 3].map((n) => pollDelay(POLL_DELAYS_WITH_EVENTS_MS, n, mid))).toEqual([
      15_000, 30_000, 60_000, 60_000,
    ]);
    expect(pollDelay(POLL_DELAYS_MS, 4, () => 0)).toBe(12_000);
    expect(pollDelay(POLL_DELAYS_MS, 4, () => 1)).toBe(18_000);
  });

  it('a failed question does not end the wait; an abort does, at once', async () => {
    const stop = new AbortController();
    let asked = 0;
    const end = await waitForFinal<string>({
      waitMs: 60_000,
      signal: stop.signal,
      fromEvents: () => undefined,
      ask: async () => {
        asked += 1;
        if (asked === 1) throw new Error('connection reset');
        stop.abort('SIGINT');
        return undefined;
      },
      random: () => 0,
      // The clock runs past each planned question at once: no real waiting between them.
      now: (() => {
        let t = 0;
        return () => (t += 5000);
      })(),
    });
    expect(asked).toBe(2);
    expect(end).toEqual({ kind: 'stopped', reason: 'SIGINT' });
  });
});

describe('which schedule a wait polls at', () => {
  const tail = (listening: boolean) => ({ file: '/nowhere', listening, read: async () => [] });
  it('slow only with a live listener AND a notify_url; no notify_url (or unsaid) polls quickly', () => {
    expect(slowPoll({ tail: tail(true), eventsExpected: true })).toBe(true);
    expect(slowPoll({ tail: tail(true), eventsExpected: false })).toBe(false);
    expect(slowPoll({ tail: tail(true) })).toBe(false);
    expect(slowPoll({ tail: tail(false), eventsExpected: true })).toBe(false);
    expect(slowPoll({ eventsExpected: true })).toBe(false);
  });
});
