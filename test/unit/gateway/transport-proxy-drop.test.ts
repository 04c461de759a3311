// A proxy that accepts the connection and then drops it: undici took a tunnel the proxy closed for a
// socket hiccup and reconnected at once, inside one request, until our deadline — some 12,600 proxy
// connections in 10 s, then "connection timed out". Each attempt must open one tunnel, the error
// must name the proxy, and a money-moving request the tunnel never carried is "not sent".

import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, TransportError, UnknownOutcomeError } from '../../../src/errors.js';
import { createTransport } from '../../../src/gateway/transport.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/**
 * A proxy counting the connections it accepts. `closeOnConnect`: destroys the socket on its first
 * bytes (the CONNECT). `tunnelThenClose`: answers the CONNECT with 200, then destroys the socket on
 * the next bytes (what would go through the tunnel).
 */
async function startDroppingProxy(mode: 'closeOnConnect' | 'tunnelThenClose' | 'silent') {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let answered = false;
    socket.on('data', () => {
      if (mode === 'silent') return;
      if (mode === 'tunnelThenClose' && !answered) {
        answered = true;
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
        return;
      }
      socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { port, connections: () => connections };
}

async function attempt(
  mode: 'closeOnConnect' | 'tunnelThenClose' | 'silent',
  kind: 'readOnly' | 'moneyMoving',
  origin = 'https://gw.example.com',
) {
  const proxy = await startDroppingProxy(mode);
  const transport = await createTransport({
    env: { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, HTTP_PROXY: `http://127.0.0.1:${proxy.port}` },
    timeoutMs: 2_000,
    allowInsecureHttp: true,
    sleep: async () => {},
  });
  cleanups.push(() => transport.close());
  const started = performance.now();
  const err = await transport
    .request({ origin, path: '/v1/refund', body: 'a=1', kind })
    .then(() => undefined)
    .catch((e: unknown) => e);
  const ms = performance.now() - started;
  const closing = performance.now();
  await transport.close();
  return { err, ms, closeMs: performance.now() - closing, connections: proxy.connections(), proxy };
}

/** Before the CONNECT was answered it was the proxy; after, the proxy or the gateway behind it. */
function closedMessage(mode: 'closeOnConnect' | 'tunnelThenClose', port: number): string {
  return mode === 'closeOnConnect'
    ? `the proxy at 127.0.0.1:${port} closed the connection`
    : `the connection through the proxy at 127.0.0.1:${port} closed before the request was sent`;
}

describe('a proxy that drops the connection', () => {
  for (const mode of ['closeOnConnect', 'tunnelThenClose'] as const) {
    it(`${mode}: a read opens a tunnel per attempt and fails with one error naming the proxy`, async () => {
      const { err, ms, connections, proxy } = await attempt(mode, 'readOnly');
      // 3 attempts; a few to spare, not thousands.
      expect(connections).toBeGreaterThanOrEqual(1);
      expect(connections).toBeLessThanOrEqual(10);
      // Three 2 s attempts at most; generous.
      expect(ms).toBeLessThan(10_000);
      expect(err).toBeInstanceOf(TransportError);
      expect((err as Error).message).toContain(closedMessage(mode, proxy.port));
      expect((err as Error).message).toContain('(3 attempts)');
      expect((err as TransportError).hint).toContain('nothing was sent');
    });

    it(`${mode}: a money-moving request the tunnel never carried is not sent (not an unknown outcome)`, async () => {
      const { err, ms, connections, proxy } = await attempt(mode, 'moneyMoving');
      expect(connections).toBeLessThanOrEqual(10);
      expect(ms).toBeLessThan(10_000);
      expect(err).toBeInstanceOf(TransportError);
      expect(err).not.toBeInstanceOf(UnknownOutcomeError);
      expect((err as Error).message).toContain(closedMessage(mode, proxy.port));
    });
  }

  it('a plain-http tunnel dropped after the request was written into it: a money-moving outcome is unknown', async () => {
    // No TLS inside the tunnel: the request's bytes are the "next bytes", so they left.
    const { err, connections } = await attempt('tunnelThenClose', 'moneyMoving', 'http://gw.example.com');
    expect(connections).toBe(1);
    expect(err).toBeInstanceOf(UnknownOutcomeError);
  });

  it('a plain-http tunnel dropped after a read was written into it: retried, then a gateway error', async () => {
    const { err, connections } = await attempt('tunnelThenClose', 'readOnly', 'http://gw.example.com');
    expect(connections).toBe(3);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as Error).message).toContain('(after 3 attempts)');
  });

  it('a proxy that never answers the CONNECT: one tunnel per attempt, timed out, and closing does not wait on it', async () => {
    const { err, ms, closeMs, connections } = await attempt('silent', 'moneyMoving');
    expect(connections).toBeLessThanOrEqual(3);
    expect(ms).toBeLessThan(15_000);
    expect(closeMs).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toContain('connection timed out (3 attempts)');
  });
});
