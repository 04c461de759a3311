import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMMIT_DELAY_MS, drainedOrClosed, Faults, mulberry32 } from '../../../src/sandbox/faults.js';

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

  it('commit_late carries delay_ms (default 2000) and hits only the endpoints that change state', () => {
    const f = new Faults(1);
    expect(f.set({ mode: 'commit_late' })).toEqual({
      mode: 'commit_late',
      rate: 1,
      latency_ms: 0,
      paths: null,
      delay_ms: DEFAULT_COMMIT_DELAY_MS,
    });
    expect(DEFAULT_COMMIT_DELAY_MS).toBe(2000);
    f.set({ mode: 'commit_late', delay_ms: 750, latency_ms: 3 });
    expect(f.config.delay_ms).toBe(750);
    for (const path of [
      '/v1/refund',
      '/v1/capture',
      '/v1/cancel',
      '/v1/review',
      '/v1/payout',
      '/v1/authorise',
    ]) {
      expect(f.decide(path)).toEqual({ mode: 'commit_late', latencyMs: 3, delayMs: 750 });
    }
    // Nothing to commit late for a read: it is answered as usual (latency still applies).
    expect(f.decide('/v1/retrievalRefund')).toEqual({ mode: 'none', latencyMs: 3 });
    expect(f.decide('/v1/retrievalTrans')).toEqual({ mode: 'none', latencyMs: 3 });
    // Another mode drops delay_ms from the configuration.
    f.set({ mode: 'error500' });
    expect(f.config.delay_ms).toBeUndefined();
  });

  it('status_zero hits the batch endpoints only', () => {
    const f = new Faults(1);
    f.set({ mode: 'status_zero' });
    for (const path of ['/v1/refund', '/v1/capture', '/v1/cancel', '/v1/review']) {
      expect(f.decide(path)).toEqual({ mode: 'status_zero', latencyMs: 0 });
    }
    for (const path of ['/v1/payout', '/v1/authorise', '/v1/retrievalRefund', '/v1/retrievalTrans']) {
      expect(f.decide(path).mode).toBe('none');
    }
  });

  it('a path a mode cannot hit draws nothing: the batches see the same pattern with reads in between', () => {
    const pattern = (withReads: boolean) => {
      const f = new Faults(5);
      f.set({ mode: 'commit_late', rate: 0.5 });
      const hits: boolean[] = [];
      for (let i = 0; i < 200; i++) {
        if (withReads) f.decide('/v1/retrievalRefund');
        hits.push(f.decide('/v1/refund').mode === 'commit_late');
      }
      return hits;
    };
    const plain = pattern(false);
    expect(pattern(true)).toEqual(plain);
    expect(plain.filter(Boolean).length).toBeGreaterThan(60);
    expect(plain.filter(Boolean).length).toBeLessThan(140);
  });

  it('rejects a bad delay_ms, or one without commit_late', () => {
    const f = new Faults(1);
    expect(() => f.set({ mode: 'commit_late', delay_ms: -1 })).toThrow(/delay_ms/);
    expect(() => f.set({ mode: 'commit_late', delay_ms: 1.5 })).toThrow(/delay_ms/);
    expect(() => f.set({ mode: 'commit_late', delay_ms: '100' })).toThrow(/delay_ms/);
    expect(() => f.set({ mode: 'error500', delay_ms: 100 })).toThrow(/delay_ms goes with mode commit_late/);
    expect(f.config.mode).toBe('none');
  });
});

describe('rate_limit (issue 16)', () => {
  it('accepts rps requests in any sliding second, refuses the next with a Retry-After, and counts per second', () => {
    const f = new Faults(1);
    expect(() => f.set({ mode: 'rate_limit' })).toThrow(/rps/);
    expect(() => f.set({ mode: 'error500', rps: 3 })).toThrow(/rps goes with/);
    expect(f.set({ mode: 'rate_limit', rps: 3 })).toMatchObject({ mode: 'rate_limit', rps: 3 });
    const at = (ms: number) => f.decide('/v1/refund', 10_000 + ms).mode;
    expect([at(0), at(100), at(200)]).toEqual(['none', 'none', 'none']);
    expect(f.decide('/v1/refund', 10_300)).toEqual({ mode: 'rate_limit', latencyMs: 0, retryAfterS: 1 });
    // A second after the first, its place is free again.
    expect(at(1000)).toBe('none');
    expect(at(1050)).toBe('rate_limit');
    expect(f.pace()).toEqual({ per_second: { '10': 3, '11': 1 }, max_per_second: 3, refused: 2 });
    f.clear();
    expect(f.pace()).toEqual({ per_second: {}, max_per_second: 0, refused: 0 });
  });
});

describe('drainedOrClosed', () => {
  it('a response already gone (its client left, close already told) ends the wait at once', async () => {
    let waited: string | undefined;
    let arrived = false;
    const server = createServer(async (req, res) => {
      arrived = true;
      req.resume();
      await new Promise((r) => res.once('close', r));
      // A write to a gone response is refused; its 'close' will not come again.
      expect(res.write('x')).toBe(false);
      waited = await Promise.race([
        drainedOrClosed(res).then(() => 'ended'),
        new Promise<string>((r) => setTimeout(() => r('still waiting'), 2_000)),
      ]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const req = request({ host: '127.0.0.1', port, method: 'POST' });
      req.on('error', () => {});
      req.end('a');
      // The client leaves once the server has its request (not after a guessed 100 ms: before it
      // arrives there is no response to wait on); the 30 s deadline is only a safety net.
      const deadline = Date.now() + 30_000;
      while (!arrived && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      req.destroy();
      while (waited === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(waited).toBe('ended');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
