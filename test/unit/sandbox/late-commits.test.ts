import { afterEach, describe, expect, it, vi } from 'vitest';
import { LateCommits } from '../../../src/sandbox/late-commits.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('late commits', () => {
  it('applies each commit after its delay and counts the pending ones', () => {
    vi.useFakeTimers();
    const late = new LateCommits();
    const applied: string[] = [];
    late.schedule(100, () => applied.push('a'));
    late.schedule(300, () => applied.push('b'));
    expect(late.pending).toBe(2);
    vi.advanceTimersByTime(99);
    expect(applied).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(applied).toEqual(['a']);
    expect(late.pending).toBe(1);
    vi.advanceTimersByTime(200);
    expect(applied).toEqual(['a', 'b']);
    expect(late.pending).toBe(0);
  });

  it('cancelAll drops the pending commits; close drops them and refuses new ones', () => {
    vi.useFakeTimers();
    const late = new LateCommits();
    const applied: string[] = [];
    late.schedule(100, () => applied.push('dropped by reset'));
    late.cancelAll();
    late.schedule(100, () => applied.push('after reset'));
    vi.advanceTimersByTime(100);
    expect(applied).toEqual(['after reset']);
    late.schedule(100, () => applied.push('dropped by close'));
    late.close();
    late.schedule(10, () => applied.push('after close'));
    expect(late.pending).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(applied).toEqual(['after reset']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a commit that throws is reported as a warning, and the others still run', () => {
    vi.useFakeTimers();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const late = new LateCommits();
    const applied: string[] = [];
    late.schedule(10, () => {
      throw new Error('boom');
    });
    late.schedule(20, () => applied.push('next'));
    vi.advanceTimersByTime(20);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('boom'));
    expect(applied).toEqual(['next']);
    warn.mockRestore();
  });
});
