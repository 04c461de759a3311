import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  classifyFailure,
  DEFAULT_RETRY_POLICY,
  retryAfterMs,
  retryableFailure,
  retryableStatus,
} from '../../../src/gateway/retry.js';

const code = (c: string) => Object.assign(new Error(c), { code: c });

describe('retry policy', () => {
  it('classifies failures that never reached the server', () => {
    for (const c of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'UND_ERR_CONNECT_TIMEOUT',
      'CERT_HAS_EXPIRED',
      'ERR_SSL_WRONG_VERSION_NUMBER',
    ]) {
      expect(classifyFailure(code(c)).kind, c).toBe('neverSent');
    }
    // Wrapped one level down, as fetch-style errors are.
    expect(classifyFailure(new Error('fetch failed', { cause: code('ECONNREFUSED') })).kind).toBe(
      'neverSent',
    );
    expect(classifyFailure(new errors.HeadersTimeoutError()).kind).toBe('timeout');
    expect(classifyFailure(new errors.BodyTimeoutError()).kind).toBe('timeout');
    expect(classifyFailure(code('ECONNRESET')).kind).toBe('reset');
    expect(classifyFailure(new Error('mystery')).kind).toBe('reset');
  });

  it('retries money-moving requests only when they never left', () => {
    expect(retryableFailure({ kind: 'neverSent', what: 'x' }, 'moneyMoving')).toBe(true);
    expect(retryableFailure({ kind: 'timeout' }, 'moneyMoving')).toBe(false);
    expect(retryableFailure({ kind: 'reset' }, 'raw')).toBe(false);
    expect(retryableFailure({ kind: 'timeout' }, 'readOnly')).toBe(true);
    expect(retryableStatus(503, 'moneyMoving')).toBe(false);
    expect(retryableStatus(503, 'readOnly')).toBe(true);
    expect(retryableStatus(429, 'readOnly')).toBe(true);
    // 429 is a refusal: not processed, so a money-moving request is sent again too (issue 16).
    expect(retryableStatus(429, 'moneyMoving')).toBe(true);
    expect(retryableStatus(429, 'raw')).toBe(false);
    expect(retryableStatus(500, 'moneyMoving')).toBe(false);
    expect(retryableStatus(404, 'readOnly')).toBe(false);
  });

  it('backs off exponentially with jitter, capped', () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffMs(1, p, () => 0)).toBe(50);
    expect(backoffMs(1, p, () => 1)).toBe(100);
    expect(backoffMs(3, p, () => 1)).toBe(400);
    expect(backoffMs(10, p, () => 1)).toBe(1000);
  });

  it('reads Retry-After as seconds or a date, capped', () => {
    const p = { ...DEFAULT_RETRY_POLICY, maxDelayMs: 10_000 };
    expect(retryAfterMs('3', p)).toBe(3000);
    expect(retryAfterMs('600', p)).toBe(10_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', p, now)).toBe(5000);
    expect(retryAfterMs(undefined, p)).toBeUndefined();
    expect(retryAfterMs('soon', p)).toBeUndefined();
  });
});

describe('failures payops ends itself, and a proxy refusing the tunnel', () => {
  it('classifies the whole-exchange deadline, an answer too large and a proxy 407', async () => {
    const { AnswerTooLargeError, ExchangeTimeoutError, NotSentError } = await import(
      '../../../src/gateway/exchange.js'
    );
    expect(classifyFailure(new ExchangeTimeoutError('x')).kind).toBe('timeout');
    expect(classifyFailure(new NotSentError('timeout', 'x'))).toEqual({
      kind: 'neverSent',
      what: 'connection timed out',
    });
    expect(classifyFailure(new AnswerTooLargeError(10, 99))).toEqual({
      kind: 'tooLarge',
      limit: 10,
      announced: 99,
    });
    // undici's ProxyAgent: the error of an interruption, told apart by its message.
    const proxy = (status: number) =>
      new errors.RequestAbortedError(`Proxy response (${status}) !== 200 when HTTP Tunneling`);
    expect(classifyFailure(proxy(407))).toEqual({ kind: 'proxyAuth' });
    expect(classifyFailure(proxy(502)).kind).toBe('neverSent');
    expect(classifyFailure(new errors.RequestAbortedError()).kind).toBe('aborted');
    expect(retryableFailure({ kind: 'proxyAuth' }, 'readOnly')).toBe(false);
    // A connection that failed before the request was written: never sent, whatever undici made of it.
    const reset = Object.assign(new Error('socket disconnected'), { code: 'ECONNRESET' });
    expect(classifyFailure(reset).kind).toBe('reset');
    expect(classifyFailure(new NotSentError('failed', 'x', reset))).toEqual({
      kind: 'neverSent',
      what: 'the connection closed before the request was sent',
      closed: true,
    });
    expect(classifyFailure(new NotSentError('failed', 'x', proxy(407)))).toEqual({ kind: 'proxyAuth' });
    const { ProxyClosedError } = await import('../../../src/gateway/proxy.js');
    expect(classifyFailure(new NotSentError('failed', 'x', new ProxyClosedError('p:3128', reset)))).toEqual({
      kind: 'neverSent',
      what: 'the proxy at p:3128 closed the connection',
    });
    expect(retryableFailure({ kind: 'tooLarge', limit: 1 }, 'readOnly')).toBe(true);
    expect(retryableFailure({ kind: 'tooLarge', limit: 1 }, 'moneyMoving')).toBe(false);
  });
});
