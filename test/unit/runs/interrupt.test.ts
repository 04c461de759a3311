import { describe, expect, it } from 'vitest';
import { whileInterruptible } from '../../../src/runs/interrupt.js';

function logger() {
  const warnings: string[] = [];
  return {
    warnings,
    log: { info() {}, verbose() {}, debug() {}, warn: (m: string) => warnings.push(m) },
  };
}

describe('whileInterruptible', () => {
  it('the first SIGINT aborts the signal and says so once; the handler is gone afterwards', async () => {
    const before = process.listenerCount('SIGINT');
    const { log, warnings } = logger();
    const aborted = await whileInterruptible(log, 'stopping…', async (signal) => {
      expect(process.listenerCount('SIGINT')).toBe(before + 1);
      expect(signal.aborted).toBe(false);
      process.emit('SIGINT');
      process.emit('SIGINT');
      return signal.aborted;
    });
    expect(aborted).toBe(true);
    expect(warnings).toEqual(['stopping…']);
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('removes its handler when the work throws', async () => {
    const before = process.listenerCount('SIGINT');
    await expect(
      whileInterruptible(logger().log, 'x', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
