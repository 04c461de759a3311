// The exchange's deadline before a connection exists: undici calls onConnect just before it writes
// the request, so an exchange ended before that was certainly not sent — a connect timeout (retried,
// whatever the request) or an interruption (nothing to reconcile), never an unknown outcome.
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { InterruptedError, TransportError } from '../../../src/errors.js';
import { createTransport } from '../../../src/gateway/transport.js';

/** A dispatcher whose connection never comes: it keeps the handlers it was given. */
function neverConnects() {
  const handlers: Dispatcher.DispatchHandler[] = [];
  const dispatcher = {
    dispatch(_opts: unknown, handler: Dispatcher.DispatchHandler) {
      handlers.push(handler);
      return true;
    },
    close: async () => {},
  } as unknown as Dispatcher;
  return { dispatcher, handlers };
}

const refund = {
  origin: 'https://gateway.test',
  path: '/v1/refund',
  body: '{}',
  kind: 'moneyMoving',
} as const;

describe('an exchange that never got a connection', () => {
  it('times out as "never sent": a money-moving request is tried again, then TransportError', async () => {
    const { dispatcher, handlers } = neverConnects();
    const transport = await createTransport({ dispatcher, timeoutMs: 50, sleep: async () => {} });
    const err = await transport.request(refund).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toContain('connection timed out (3 attempts)');
    expect(handlers).toHaveLength(3);
    // A connection that turns up afterwards is refused the request: it is never written.
    let refused: Error | undefined;
    handlers[0]!.onConnect?.((e) => {
      refused = e as Error;
    });
    expect(refused).toBeInstanceOf(Error);
  });

  it('interrupted while connecting: InterruptedError at once, even for a money-moving request', async () => {
    const { dispatcher } = neverConnects();
    const transport = await createTransport({ dispatcher, timeoutMs: 60_000 });
    const ctl = new AbortController();
    const pending = transport.request({ ...refund, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 20);
    const err = await pending.catch((e) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as Error).message).toBe('interrupted before the request was sent');
  });
});
