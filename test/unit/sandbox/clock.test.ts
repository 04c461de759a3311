import { describe, expect, it } from 'vitest';
import { type AdminState, handleAdmin } from '../../../src/sandbox/admin.js';
import { MAX_CLOCK_OFFSET_MS, SandboxClock } from '../../../src/sandbox/clock.js';
import { createSandboxContext } from '../../../src/sandbox/context.js';
import { Faults } from '../../../src/sandbox/faults.js';
import { LateCommits } from '../../../src/sandbox/late-commits.js';
import { NotifyQueue } from '../../../src/sandbox/notify-queue.js';
import { Store } from '../../../src/sandbox/store.js';

/**
 * Two clock reads a line apart: a loaded machine can deschedule the test between them for tens of
 * ms. The offsets tested are 10 minutes and an hour, so 1 s still tells them apart.
 */
const SLACK_MS = 1_000;

describe('the sandbox clock', () => {
  it('starts on the real clock and shifts by the offset, ahead or behind; 0 resets', () => {
    const clock = new SandboxClock();
    expect(clock.offsetMs).toBe(0);
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(SLACK_MS);
    const behind = clock.set({ offset_ms: -600_000 });
    expect(behind.offset_ms).toBe(-600_000);
    expect(Math.abs(clock.now() - (Date.now() - 600_000))).toBeLessThan(SLACK_MS);
    expect(Date.parse(behind.now)).toBe(behind.now_ms);
    clock.set({ offset_ms: 600_000 });
    expect(Math.abs(clock.now() - (Date.now() + 600_000))).toBeLessThan(SLACK_MS);
    clock.set({ offset_ms: 0 });
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(SLACK_MS);
    clock.set({ offset_ms: 5 });
    clock.reset();
    expect(clock.offsetMs).toBe(0);
  });

  it('rejects an offset that is not a whole number of ms within ±10 years, and keeps the old one', () => {
    const clock = new SandboxClock();
    clock.set({ offset_ms: 1000 });
    for (const bad of [{}, { offset_ms: '5' }, { offset_ms: 1.5 }, { offset_ms: MAX_CLOCK_OFFSET_MS + 1 }]) {
      expect(() => clock.set(bad)).toThrow(/E1005:.*offset_ms/);
    }
    expect(clock.offsetMs).toBe(1000);
    expect(clock.set({ offset_ms: -MAX_CLOCK_OFFSET_MS }).offset_ms).toBe(-MAX_CLOCK_OFFSET_MS);
  });

  it("is the context's now(): every handler reads the shifted time", () => {
    const ctx = createSandboxContext(new Store(), new Map([['USD', 2]]), []);
    ctx.clock.set({ offset_ms: -3_600_000 });
    expect(Math.abs(ctx.now() - (Date.now() - 3_600_000))).toBeLessThan(SLACK_MS);
  });

  it('POST /_sandbox/clock answers loopback callers only, like the rest of the admin API', () => {
    const ctx = createSandboxContext(new Store(), new Map([['USD', 2]]), []);
    const state: AdminState = {
      ctx,
      faults: new Faults(1),
      lateCommits: new LateCommits(),
      notify: new NotifyQueue({}, ctx.now, 1),
      initialIps: [],
      startedAt: Date.now(),
    };
    const call = (ip: string) =>
      handleAdmin(state, 'POST', '/_sandbox/clock', new URLSearchParams(), '{"offset_ms":60000}', ip);
    const remote = call('10.0.0.9');
    expect(remote.status).toBe(403);
    expect(ctx.clock.offsetMs).toBe(0);
    expect(call('::ffff:127.0.0.1').status).toBe(200);
    expect(ctx.clock.offsetMs).toBe(60_000);
    state.notify.close();
  });
});
