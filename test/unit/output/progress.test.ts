import { describe, expect, it } from 'vitest';
import { createProgress, formatElapsed, progressLine } from '../../../src/output/progress.js';
import { displayWidth } from '../../../src/output/width.js';
import { fakeIo } from './helpers.js';

describe('createProgress', () => {
  it('is a silent no-op when stderr is not a terminal', () => {
    const { io, stderr, stdout } = fakeIo({ stderrTTY: false });
    const p = createProgress(io, {}, 10, 'Refunding');
    p.tick(5);
    p.stop();
    expect(stderr.text()).toBe('');
    expect(stdout.text()).toBe('');
  });

  it('is silent with --quiet even on a terminal', () => {
    const { io, stderr } = fakeIo({ stderrTTY: true });
    const p = createProgress(io, { quiet: true }, 10, 'Refunding');
    p.tick(10);
    p.stop();
    expect(stderr.text()).toBe('');
  });

  it('draws on stderr, never stdout, on a terminal', () => {
    const { io, stderr, stdout } = fakeIo({ stderrTTY: true });
    const p = createProgress(io, {}, 4, 'Refunding');
    p.tick(2);
    p.tick(10);
    p.stop();
    p.stop();
    expect(stderr.text()).toContain('Refunding');
    expect(stderr.text()).toContain('4/4');
    expect(stdout.text()).toBe('');
  });
});

describe('progressLine', () => {
  const base = {
    label: 'refund',
    done: 3000,
    total: 5000,
    ok: 2950,
    failed: 50,
    elapsedMs: 62_000,
    note: '',
    columns: 80,
  };

  it('shows settled, succeeded and failed counts and the elapsed time beside the bar', () => {
    const line = progressLine(base);
    expect(line).toMatch(/^refund \[█+░+\] 3,000\/5,000 · 2,950 ok · 50 failed · 1:02$/);
    expect(line).not.toMatch(/ETA|NaN|NF|Infinity/);
  });

  it('fits the terminal at any width: the bar gives way first, then the note is cut', () => {
    for (const columns of [40, 60, 80, 130]) {
      for (const note of ['', '12 lost, asked again in 2s']) {
        const line = progressLine({ ...base, columns, note });
        expect(displayWidth(line)).toBeLessThanOrEqual(columns - 3);
        expect(line).toContain('3,000/5,000');
      }
    }
    expect(progressLine({ ...base, columns: 130 })).toContain(`[${'█'.repeat(24)}${'░'.repeat(16)}]`);
  });

  it('formats elapsed time as m:ss or h:mm:ss', () => {
    expect(formatElapsed(0)).toBe('0:00');
    expect(formatElapsed(3_725_000)).toBe('1:02:05');
  });
});
