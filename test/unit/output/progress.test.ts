import { describe, expect, it } from 'vitest';
import { createProgress } from '../../../src/output/progress.js';
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
