import { errors, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  GatewayError,
  InterruptedError,
  TransportError,
  UnknownOutcomeError,
} from '../../../src/errors.js';
import { REFUSAL_ATTEMPTS } from '../../../src/gateway/retry.js';
import { createTransport, type TransportRequest } from '../../../src/gateway/transport.js';
import type { Logger } from '../../../src/io.js';

const ORIGIN = 'https://gateway.test';

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    verbose: (m) => lines.push(m),
    debug: (m) => lines.push(m),
  };
}

let mock: MockAgent | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** Resolves once the mock gateway has taken every request it was told to expect (safety net 30 s). */
async function dispatched(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (mock!.pendingInterceptors().length > 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
}

async function setup(extra: { log?: Logger } = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  mock = agent;
  const waits: number[] = [];
  const transport = await createTransport({
    dispatcher: agent,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  return { pool: agent.get(ORIGIN), transport, waits };
}

const capture = (over: Partial<TransportRequest> = {}): TransportRequest => ({
  origin: ORIGIN,
  path: '/v1/capture',
  body: '{"a":1}',
  contentType: 'application/json',
  kind: 'moneyMoving',
  ...over,
});

describe('transport retry policy', () => {
  it('retries a money-moving request after connection refused (it never left) and then succeeds', async () => {
    const { pool, transport, waits } = await setup();
    pool.intercept({ path: '/v1/capture', method: 'POST' }).replyWithError(refused());
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, '{"ok":true}', {
      headers: { 'content-type': 'application/json' },
    });
    const res = await transport.request(capture());
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(2);
    expect(res.body).toBe('{"ok":true}');
    expect(waits).toHaveLength(1);
  });

  it('gives up after the bounded attempts with a TransportError when the server stays unreachable', async () => {
    const { pool, transport, waits } = await setup();
    pool.intercept({ path: '/v1/capture', method: 'POST' }).replyWithError(refused()).times(3);
    await expect(transport.request(capture())).rejects.toBeInstanceOf(TransportError);
    expect(waits).toHaveLength(2);
    // Exponential: the second wait is about twice the first.
    expect(waits[1]).toBe(waits[0]! * 2);
    expect(mock!.pendingInterceptors()).toHaveLength(0);
  });

  it('never re-sends a money-moving request after a timeout: UnknownOutcomeError(timeout)', async () => {
    const { pool, transport } = await setup();
    pool.intercept({ path: '/v1/capture', method: 'POST' }).replyWithError(new errors.HeadersTimeoutError());
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, 'second send');
    const err = await transport.request(capture()).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect((err as UnknownOutcomeError).reason).toBe('timeout');
    // The second interceptor is still pending: nothing was sent twice.
    expect(mock!.pendingInterceptors()).toHaveLength(1);
  });

  it('never re-sends a money-moving request after a 5xx or a reset', async () => {
    const { pool, transport } = await setup();
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(503, 'busy');
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, 'second send');
    const err = await transport.request(capture()).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect((err as UnknownOutcomeError).reason).toBe('http_5xx');
    expect(mock!.pendingInterceptors()).toHaveLength(1);

    const { pool: pool2, transport: transport2 } = await setup();
    pool2
      .intercept({ path: '/v1/capture', method: 'POST' })
      .replyWithError(new errors.SocketError('other side closed'));
    pool2.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, 'second send');
    const err2 = await transport2.request(capture()).catch((e) => e);
    expect(err2).toBeInstanceOf(UnknownOutcomeError);
    expect((err2 as UnknownOutcomeError).reason).toBe('reset');
    expect(mock!.pendingInterceptors()).toHaveLength(1);
  });

  it('retries a read-only request on 5xx and on 429, honouring Retry-After (capped)', async () => {
    const { pool, transport, waits } = await setup();
    const path = '/v1/retrievalTrans';
    pool.intercept({ path, method: 'POST' }).reply(502, 'bad gateway');
    pool.intercept({ path, method: 'POST' }).reply(429, 'slow down', { headers: { 'retry-after': '2' } });
    pool.intercept({ path, method: 'POST' }).reply(200, '{"return_status":"1"}');
    const res = await transport.request(capture({ path, kind: 'readOnly' }));
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(3);
    expect(waits[1]).toBe(2000);

    pool.intercept({ path, method: 'POST' }).reply(429, 'x', { headers: { 'retry-after': '3600' } });
    pool.intercept({ path, method: 'POST' }).reply(200, '{}');
    await transport.request(capture({ path, kind: 'readOnly' }));
    expect(waits[2]).toBe(10_000);
  });

  it('stops waiting out a Retry-After when the run is stopped (Ctrl-C twice)', async () => {
    // The real wait, not the test's: a 10 s Retry-After outlived the second Ctrl-C, which promises
    // to stop within a second.
    const agent = new MockAgent();
    agent.disableNetConnect();
    mock = agent;
    const transport = await createTransport({ dispatcher: agent, random: () => 0.5 });
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/capture', method: 'POST' })
      .reply(429, '', {
        headers: { 'retry-after': '10' },
      });
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 200);
    const err = await transport.request(capture({ signal: stop.signal })).catch((e) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as Error).message).toMatch(/before the request was sent/);
    // Generous for a slow machine; the wait it cut was 10 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('sends a money-moving request answered 429 again (refused, not processed), honouring Retry-After (issue 16)', async () => {
    const { pool, transport, waits } = await setup();
    pool
      .intercept({ path: '/v1/capture', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': '1' } });
    pool
      .intercept({ path: '/v1/capture', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': new Date(Date.now() + 3_000).toUTCString() } });
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(429, 'slow down');
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, '{"return_status":"1"}');
    const res = await transport.request(capture());
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(4);
    expect(waits[0]).toBe(1000);
    // An HTTP date a little under 3 s away (seconds of the date only), then backoff with jitter.
    expect(waits[1]).toBeGreaterThan(1000);
    expect(waits[1]).toBeLessThanOrEqual(3000);
    expect(waits[2]).toBeGreaterThan(0);
    expect(mock!.pendingInterceptors()).toHaveLength(0);
  });

  it('gives up on 429 after its own attempts, with a GatewayError of status 429 (issue 16)', async () => {
    const { pool, transport } = await setup();
    let asked = 0;
    pool
      .intercept({ path: '/v1/capture', method: 'POST' })
      .reply(() => {
        asked++;
        return { statusCode: 429, data: '' };
      })
      .times(20);
    const err = await transport.request(capture()).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(429);
    // Refusals have their own budget, larger than the three attempts of a failure.
    expect(asked).toBe(REFUSAL_ATTEMPTS);
    expect(asked).toBeGreaterThan(3);
  });

  it('retries a read-only request on timeout, then reports a GatewayError', async () => {
    const { pool, transport } = await setup();
    const path = '/v1/retrievalTrans';
    pool.intercept({ path, method: 'POST' }).replyWithError(new errors.HeadersTimeoutError()).times(3);
    const err = await transport.request(capture({ path, kind: 'readOnly' })).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayError);
    // Said to be a timeout, so that no caller multiplies the three slow attempts (issue 16).
    expect((err as GatewayError).code).toBe('timeout');
    expect(mock!.pendingInterceptors()).toHaveLength(0);
  });

  it('returns a raw request 5xx as a response without retrying', async () => {
    const { pool, transport } = await setup();
    pool.intercept({ path: '/v1/whatever', method: 'POST' }).reply(500, 'oops');
    const res = await transport.request(capture({ path: '/v1/whatever', kind: 'raw' }));
    expect(res.status).toBe(500);
    expect(res.attempts).toBe(1);
  });
});

describe('transport answers', () => {
  it('gives the body as text (a leading byte-order mark left out) and repeated headers joined', async () => {
    const { pool, transport } = await setup();
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, Buffer.from('\uFEFF{"ok":"ä"}'), {
      headers: { 'Content-Type': 'application/json', 'x-seen': ['a', 'b'] },
    });
    const res = await transport.request(capture());
    expect(res.body).toBe('{"ok":"ä"}');
    expect(res.contentType).toBe('application/json');
    expect(res.headers['x-seen']).toBe('a, b');

    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(204, '');
    await expect(transport.request(capture())).resolves.toMatchObject({ status: 204, body: '' });
  });

  it('stops waiting for an answer when the signal is aborted: read-only interrupted, money-moving unknown', async () => {
    const { pool, transport } = await setup();
    const path = '/v1/retrievalTrans';
    pool.intercept({ path, method: 'POST' }).reply(200, '{}').delay(5_000);
    const ctl = new AbortController();
    const waiting = transport.request(capture({ path, kind: 'readOnly', signal: ctl.signal }));
    // Aborted once the request is at the (mock) gateway, not after a guessed 20 ms.
    await dispatched();
    ctl.abort();
    const started = performance.now();
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
    expect(performance.now() - started).toBeLessThan(2_000);

    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, '{}').delay(5_000);
    const ctl2 = new AbortController();
    const sending = transport.request(capture({ signal: ctl2.signal }));
    // In flight, so its outcome is unknown: aborted once the mock gateway has taken it.
    await dispatched();
    ctl2.abort();
    const err = await sending.catch((e) => e);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
    expect((err as UnknownOutcomeError).reason).toBe('aborted');

    // Aborted before it starts: nothing is sent.
    pool.intercept({ path, method: 'POST' }).reply(200, 'sent');
    await expect(
      transport.request(capture({ path, kind: 'readOnly', signal: AbortSignal.abort() })),
    ).rejects.toBeInstanceOf(InterruptedError);
    expect(mock!.pendingInterceptors()).toHaveLength(1);
  });
});

describe('transport guards and logs', () => {
  it('refuses plain http to a non-loopback host unless allowed', async () => {
    const { transport } = await setup();
    await expect(transport.request(capture({ origin: 'http://gateway.test' }))).rejects.toBeInstanceOf(
      ConfigError,
    );

    const allowed = await createTransport({ dispatcher: mock!, allowInsecureHttp: true });
    mock!.get('http://gateway.test').intercept({ path: '/v1/capture', method: 'POST' }).reply(200, '{}');
    await expect(allowed.request(capture({ origin: 'http://gateway.test' }))).resolves.toMatchObject({
      status: 200,
    });

    mock!.get('http://127.0.0.1:8787').intercept({ path: '/v1/capture', method: 'POST' }).reply(200, '{}');
    await expect(transport.request(capture({ origin: 'http://127.0.0.1:8787' }))).resolves.toMatchObject({
      status: 200,
    });
  });

  it('sends the User-Agent and content type', async () => {
    const { pool, transport } = await setup();
    let seen: Record<string, string> = {};
    pool.intercept({ path: '/v1/capture', method: 'POST' }).reply(200, (opts) => {
      seen = opts.headers as Record<string, string>;
      return '{}';
    });
    await transport.request(capture());
    expect(seen['user-agent']).toMatch(/^payops\/\d+\.\d+\.\d+/);
    expect(seen['content-type']).toBe('application/json');
  });

  it('logs method, path, status and duration; --debug bodies mask the PAN and drop security_code', async () => {
    const log = recordingLog();
    const { pool, transport } = await setup({ log });
    pool
      .intercept({ path: '/v1/authorise', method: 'POST' })
      .reply(200, '<respon><card>424242******4242</card></respon>', {
        headers: { 'content-type': 'application/xml' },
      });
    await transport.request(
      capture({
        path: '/v1/authorise',
        body: JSON.stringify({ card: '4242424242424242', security_code: '737', encryption_data: 'abc' }),
      }),
    );
    const all = log.lines.join('\n');
    expect(all).toMatch(/POST \/v1\/authorise → 200 \(\d+ ms\)/);
    expect(all).toContain('424242******4242');
    expect(all).not.toContain('4242424242424242');
    expect(all).not.toContain('737');
    expect(all).not.toContain('security_code');
  });
});
