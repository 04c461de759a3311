import { describe, expect, it } from 'vitest';
import { whileInterruptible } from '../../../src/lifecycle/interrupt.js';

function logger() {
  const warnings: string[] = [];
  return {
    warnings,
    log: { info() {}, verbose() {}, debug() {}, warn: (m: string) => warnings.push(m) },
  };
}

describe('whileInterruptible', () => {
  it('the first SIGINT aborts `stop` and says a second stops now; the handler is gone afterwards', async () => {
    const before = process.listenerCount('SIGINT');
    const { log, warnings } = logger();
    const seen = await whileInterruptible(log, 'requests', async (stop, now) => {
      expect(process.listenerCount('SIGINT')).toBe(before + 1);
      expect(stop.aborted).toBe(false);
      process.emit('SIGINT');
      return { stop: stop.aborted, now: now.aborted };
    });
    expect(seen).toEqual({ stop: true, now: false });
    expect(warnings).toEqual([
      // Reworded on purpose (issue 15): two lines that each fit an 80-column terminal.
      '\nstopping after the requests in flight…\n  press Ctrl-C again to stop now (the journal stays safe)',
    ]);
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('the second SIGINT aborts `now` and says so; later ones are absorbed', async () => {
    const { log, warnings } = logger();
    const seen = await whileInterruptible(log, 'payouts', async (stop, now) => {
      process.emit('SIGINT');
      process.emit('SIGINT');
      process.emit('SIGINT');
      return { stop: stop.aborted, now: now.aborted };
    });
    expect(seen).toEqual({ stop: true, now: true });
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/^stopping now: the payouts in flight are abandoned and stay unknown/);
  });

  it('once the run is closing, Ctrl-C is absorbed with one line and aborts nothing', async () => {
    const { log, warnings } = logger();
    const seen = await whileInterruptible(log, 'requests', async (stop, now, closing) => {
      closing();
      process.emit('SIGINT');
      process.emit('SIGINT');
      process.emit('SIGINT');
      return { stop: stop.aborted, now: now.aborted };
    });
    expect(seen).toEqual({ stop: false, now: false });
    expect(warnings).toEqual([
      '\nthe run is ending: its results and journal are being written; it stops in a moment…',
    ]);
  });

  it('removes its handler when the work throws', async () => {
    const before = process.listenerCount('SIGINT');
    await expect(
      whileInterruptible(logger().log, 'requests', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
