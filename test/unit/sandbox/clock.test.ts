import { describe, expect, it } from 'vitest';
import { MAX_CLOCK_OFFSET_MS, SandboxClock } from '../../../src/sandbox/clock.js';
import { createSandboxContext } from '../../../src/sandbox/context.js';
import { Store } from '../../../src/sandbox/store.js';

describe('the sandbox clock', () => {
  it('starts on the real clock and shifts by the offset, ahead or behind; 0 resets', () => {
    const clock = new SandboxClock();
    expect(clock.offsetMs).toBe(0);
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(50);
    const behind = clock.set({ offset_ms: -600_000 });
    expect(behind.offset_ms).toBe(-600_000);
    expect(Math.abs(clock.now() - (Date.now() - 600_000))).toBeLessThan(50);
    expect(Date.parse(behind.now)).toBe(behind.now_ms);
    clock.set({ offset_ms: 600_000 });
    expect(Math.abs(clock.now() - (Date.now() + 600_000))).toBeLessThan(50);
    clock.set({ offset_ms: 0 });
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(50);
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
    expect(Math.abs(ctx.now() - (Date.now() - 3_600_000))).toBeLessThan(50);
  });
});
