// The transport against a real hostile server on loopback (issue 13, items 2 and 3): an answer
// trickled a byte at a time must not outlive --timeout, nor an interruption; an answer far larger
// than any gateway answer is cut off, and a read is not asked more often than the retry policy says.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, InterruptedError, UnknownOutcomeError } from '../../../src/errors.js';
import {
  createTransport,
  MAX_ANSWER_BYTES,
  type Transport,
  type TransportRequest,
} from '../../../src/gateway/transport.js';
import { type Behaviour, type HostileServer, startHostileServer } from '../../helpers/hostile-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  behaviour: Behaviour,
  opts: { timeoutMs?: number } = {},
): Promise<{ server: HostileServer; transport: Transport }> {
  const server = await startHostileServer(behaviour);
  cleanups.push(() => server.close());
  const transport = await createTransport({ timeoutMs: opts.timeoutMs ?? 5_000, sleep: async () => {} });
  cleanups.push(() => transport.close());
  return { server, transport };
}

const req = (origin: string, over: Partial<TransportRequest> = {}): TransportRequest => ({
  origin,
  path: '/v1/retrievalTrans',
  body: 'order_no=O1',
  contentType: 'application/x-www-form-urlencoded',
  kind: 'readOnly',
  ...over,
});

const MiB = 1024 * 1024;

describe('a trickling answer (one byte at a time, each well within the timeout)', () => {
  it('--timeout bounds the whole exchange: a read is asked as often as the policy says, then one error', async () => {
    const { server, transport } = await setup((_r, res, t) => t.trickle(res, 150), { timeoutMs: 800 });
    const started = performance.now();
    const err = await transport.request(req(server.url)).catch((e) => e);
    const ms = performance.now() - started;
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as Error).message).toMatch(/no complete answer within 800 ms/);
    expect(server.requests).toHaveLength(transport.attempts);
    // Three attempts of 0.8 s each; before the fix the first one never ended.
    expect(ms).toBeLessThan(10_000);
  });

  it('a money-moving request: one request, then an unknown outcome (timeout) — never sent again', async () => {
    const { server, transport } = await setup((_r, res, t) => t.trickle(res, 150), { timeoutMs: 800 });
    const started = performance.now();
    const err = await transport
      .request(req(server.url, { path: '/v1/refund', kind: 'moneyMoving' }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect((err as UnknownOutcomeError).reason).toBe('timeout');
    expect(server.requests).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('an aborted signal stops a request whose body is trickling, at once', async () => {
    const { server, transport } = await setup((_r, res, t) => t.trickle(res, 100), { timeoutMs: 60_000 });
    for (const kind of ['readOnly', 'moneyMoving'] as const) {
      const ctl = new AbortController();
      const from = server.bytesWritten;
      const pending = transport.request(req(server.url, { kind, signal: ctl.signal }));
      // Well into the body, as the server counts it (not a guessed 500 ms): headers long sent, then
      // three bytes of the trickle. The deadline is only a safety net.
      const deadline = performance.now() + 30_000;
      while (server.bytesWritten < from + 3 && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      // A bound on "at once", measured from the abort: microseconds in fact, 1 s for a loaded machine.
      const aborted = performance.now();
      ctl.abort();
      const err = await pending.catch((e) => e);
      expect(performance.now() - aborted).toBeLessThan(1_000);
      if (kind === 'readOnly') expect(err).toBeInstanceOf(InterruptedError);
      else expect((err as UnknownOutcomeError).reason).toBe('aborted');
    }
    expect(server.requests).toHaveLength(2);
  });
});

describe('an answer larger than the cap', () => {
  it(`is cut off at ${MAX_ANSWER_BYTES / MiB} MiB: a read is asked as the policy says, never read in full`, async () => {
    const { server, transport } = await setup((_r, res, t) => t.flood(res, 64 * MiB));
    const err = await transport.request(req(server.url)).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as Error).message).toMatch(/larger than 4 MiB/);
    expect(server.requests).toHaveLength(transport.attempts);
    // Each attempt stopped near the cap (the socket's buffers aside), not at 64 MiB.
    expect(server.bytesWritten).toBeLessThan(transport.attempts * 12 * MiB);
  });

  it('a money-moving request: a lost answer (unknown outcome), one request', async () => {
    const { server, transport } = await setup((_r, res, t) => t.flood(res, 64 * MiB));
    const err = await transport
      .request(req(server.url, { path: '/v1/refund', kind: 'moneyMoving' }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect((err as UnknownOutcomeError).reason).toBe('too_large');
    expect((err as Error).message).toMatch(/larger than 4 MiB/);
    expect(server.requests).toHaveLength(1);
  });

  it('a Content-Length above the cap is refused before the body is read', async () => {
    const { server, transport } = await setup((_r, res, t) =>
      t.flood(res, 64 * MiB, { contentLength: true }),
    );
    const err = await transport
      .request(req(server.url, { path: '/v1/refund', kind: 'moneyMoving' }))
      .catch((e) => e);
    expect((err as UnknownOutcomeError).reason).toBe('too_large');
    expect((err as Error).message).toMatch(/announced .*larger than 4 MiB/);
    expect(server.bytesWritten).toBeLessThan(MAX_ANSWER_BYTES);
  });

  it('an answer at the cap is read as usual', async () => {
    const size = MAX_ANSWER_BYTES - 2;
    const { server, transport } = await setup((_r, res, t) => t.flood(res, size));
    const res = await transport.request(req(server.url));
    expect(res.body.length).toBe(MAX_ANSWER_BYTES);
  });
});
