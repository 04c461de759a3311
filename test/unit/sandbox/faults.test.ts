import { describe, expect, it } from 'vitest';
import { Faults, mulberry32 } from '../../../src/sandbox/faults.js';

describe('faults', () => {
  it('the PRNG repeats for a seed and differs across seeds', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const c = mulberry32(8);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });

  it('decides by mode, rate and paths; latency applies whatever the mode', () => {
    const f = new Faults(1);
    expect(f.decide('/v1/refund')).toEqual({ mode: 'none', latencyMs: 0 });
    f.set({ mode: 'error500', paths: ['/v1/refund'], latency_ms: 5 });
    expect(f.decide('/v1/refund')).toEqual({ mode: 'error500', latencyMs: 5 });
    expect(f.decide('/v1/capture')).toEqual({ mode: 'none', latencyMs: 0 });
    f.set({ mode: 'garbage', rate: 0 });
    expect(f.decide('/v1/refund').mode).toBe('none');
    f.set({ latency_ms: 9 });
    expect(f.decide('/v1/refund')).toEqual({ mode: 'none', latencyMs: 9 });
    f.set({ mode: 'none' });
    expect(f.config).toEqual({ mode: 'none', rate: 1, latency_ms: 0, paths: null });
  });

  it('a rate hits about that share, the same way for the same seed', () => {
    const run = () => {
      const f = new Faults(99);
      f.set({ mode: 'hang', rate: 0.25 });
      return Array.from({ length: 1000 }, () => f.decide('/v1/refund').mode === 'hang');
    };
    const hits = run();
    expect(run()).toEqual(hits);
    const share = hits.filter(Boolean).length / hits.length;
    expect(share).toBeGreaterThan(0.18);
    expect(share).toBeLessThan(0.32);
  });

  it('rejects bad settings with E1005', () => {
    const f = new Faults(1);
    expect(() => f.set({ mode: 'boom' })).toThrow(/E1005/);
    expect(() => f.set({ mode: 'hang', rate: -0.1 })).toThrow(/rate/);
    expect(() => f.set({ mode: 'hang', latency_ms: 1.5 })).toThrow(/latency_ms/);
    expect(() => f.set({ mode: 'hang', paths: '/v1/refund' })).toThrow(/paths/);
  });
});
