import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  eventRecord,
  eventsFile,
  openEventsJournal,
  parseCreatedAt,
  readEventIds,
  readEvents,
} from '../../../src/events/journal.js';

let state: string;
beforeEach(async () => {
  state = await mkdtemp(join(tmpdir(), 'payops-events-'));
});
afterEach(async () => {
  await rm(state, { recursive: true, force: true });
});

function body(id: string, type: string, createdAt: string, data: Record<string, unknown>): string {
  return JSON.stringify({
    event_id: id,
    event_type: type,
    created_at: createdAt,
    merchant_id: '800001',
    account_id: '800001001',
    data,
    encryption_data: 'x',
  });
}

describe('events journal', () => {
  it('appends concurrent records durably, one line each, in the exact format readers expect', async () => {
    const j = await openEventsJournal(state);
    const bodies = Array.from({ length: 50 }, (_, i) =>
      body(`EV${i}`, i % 2 ? 'payment.approved' : 'payout.completed', '2026-12-06T01:02:03+0100', {
        order_no: `O${i}`,
      }),
    );
    await Promise.all(
      bodies.map((b) => j.append(eventRecord(b, JSON.parse(b), new Date('2026-12-06T00:00:00Z')))),
    );
    await j.close();
    const lines = (await readFile(eventsFile(state), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(50);
    expect(JSON.parse(lines[0]!)).toEqual({
      v: 1,
      receivedAt: '2026-12-06T00:00:00.000Z',
      eventId: 'EV0',
      eventType: 'payout.completed',
      createdAt: '2026-12-06T01:02:03+0100',
      body: bodies[0],
    });
    expect((await readEvents(state)).map((r) => r.body)).toEqual(bodies);
    expect((await readEventIds(state)).size).toBe(50);
  });

  it('filters by type, order number or request_id, created_at and id', async () => {
    const j = await openEventsJournal(state);
    const a = body('EVa', 'payment.approved', '2026-12-06T01:00:00+0100', { order_no: 'O1' });
    const b = body('EVb', 'payment.refunded', '2026-12-06T02:00:00+0100', { order_no: 'O1' });
    const c = body('EVc', 'payout.completed', '2026-12-06T03:00:00+0100', { request_id: 'R1' });
    for (const x of [a, b, c]) await j.append(eventRecord(x, JSON.parse(x)));
    await j.close();
    const ids = async (f: Parameters<typeof readEvents>[1]) =>
      (await readEvents(state, f)).map((r) => r.eventId);
    expect(await ids({ type: 'payment.refunded' })).toEqual(['EVb']);
    expect(await ids({ orderNo: 'O1' })).toEqual(['EVa', 'EVb']);
    expect(await ids({ orderNo: 'R1' })).toEqual(['EVc']);
    expect(await ids({ since: new Date('2026-12-06T01:00:00Z') })).toEqual(['EVb', 'EVc']);
    expect(await ids({ eventIds: ['EVc', 'EVa'] })).toEqual(['EVa', 'EVc']);
  });

  it('reads nothing from a missing journal, skips a torn last line and cuts it before appending', async () => {
    expect(await readEvents(state)).toEqual([]);
    const j = await openEventsJournal(state);
    const a = body('EVa', 'payment.approved', '2026-12-06T01:00:00+0100', {});
    await j.append(eventRecord(a, JSON.parse(a)));
    await j.close();
    await appendFile(eventsFile(state), '{"v":1,"receivedAt":"2026-12');
    expect((await readEvents(state)).map((r) => r.eventId)).toEqual(['EVa']);
    const k = await openEventsJournal(state);
    const b = body('EVb', 'payment.approved', '2026-12-06T01:00:00+0100', {});
    await k.append(eventRecord(b, JSON.parse(b)));
    await k.close();
    expect((await readEvents(state)).map((r) => r.eventId)).toEqual(['EVa', 'EVb']);
  });

  it('reads created_at with a +hhmm, +hh:mm or Z zone', () => {
    expect(parseCreatedAt('2026-12-06T01:02:03+0100').toISOString()).toBe('2026-12-06T00:02:03.000Z');
    expect(parseCreatedAt('2026-12-06T01:02:03-05:30').toISOString()).toBe('2026-12-06T06:32:03.000Z');
    expect(parseCreatedAt('2026-12-06T01:02:03Z').toISOString()).toBe('2026-12-06T01:02:03.000Z');
    expect(Number.isNaN(parseCreatedAt('yesterday').getTime())).toBe(true);
  });
});

describe('listenRunning', () => {
  it('is true while a live process holds listen.lock, false without one or after its release', async () => {
    const { listenRunning, listenLockFile, eventsDir } = await import('../../../src/events/journal.js');
    const { acquireLock } = await import('../../../src/lifecycle/lock.js');
    const { mkdir } = await import('node:fs/promises');
    expect(await listenRunning(state)).toBe(false);
    await mkdir(eventsDir(state), { recursive: true });
    const release = await acquireLock(listenLockFile(state), 'the events journal');
    expect(await listenRunning(state)).toBe(true);
    await release();
    expect(await listenRunning(state)).toBe(false);
  });

  it('is false for a lock left by a process that is gone', async () => {
    const { listenRunning, listenLockFile, eventsDir } = await import('../../../src/events/journal.js');
    const { mkdir, writeFile } = await import('node:fs/promises');
    const { hostname } = await import('node:os');
    await mkdir(eventsDir(state), { recursive: true });
    // pid 2^22+1 is above Linux's pid_max: no such process.
    await writeFile(
      listenLockFile(state),
      JSON.stringify({ pid: 4194305, host: hostname(), at: new Date().toISOString() }),
    );
    expect(await listenRunning(state)).toBe(false);
  });
});
