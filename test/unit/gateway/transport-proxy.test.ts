// Proxies from the environment, with a real CONNECT proxy and gateway, both on loopback.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, ExitCode, RouteError, UnknownOutcomeError } from '../../../src/errors.js';
import { createTransport } from '../../../src/gateway/transport.js';
import { type RecordingServer, startRecordingServer } from '../../helpers/recording-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A CONNECT proxy that records the targets asked for and tunnels every one of them to `gateway`. */
async function startProxy(gateway: RecordingServer) {
  const targets: string[] = [];
  const { port: gwPort } = new URL(gateway.url);
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket) => {
    targets.push(req.url ?? '');
    const upstream = connect(Number(gwPort), '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets };
}

/** A proxy that answers every CONNECT with 407 until given `Proxy-Authorization` it accepts (never). */
async function startAuthProxy() {
  const connects: Array<{ target: string; authorization: string | undefined }> = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket) => {
    connects.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    socket.end(
      'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { port: (server.address() as AddressInfo).port, connects };
}

describe('transport proxies', () => {
  it('a proxy answering 407 is a configuration error naming the proxy, not an interruption; never retried, no password shown', async () => {
    const proxy = await startAuthProxy();
    for (const [env, kind] of [
      [{ HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` }, 'readOnly'],
      [{ https_proxy: `http://alice:hunter2@127.0.0.1:${proxy.port}` }, 'moneyMoving'],
    ] as const) {
      const transport = await createTransport({ env, sleep: async () => {} });
      cleanups.push(() => transport.close());
      const before = proxy.connects.length;
      const err = await transport
        .request({ origin: 'https://gateway.example', path: '/v1/refund', body: '{}', kind })
        .catch((e) => e);
      expect(err).toBeInstanceOf(RouteError);
      expect(err).not.toBeInstanceOf(UnknownOutcomeError);
      expect((err as RouteError).exitCode).toBe(ExitCode.config);
      const text = `${(err as Error).message}\n${(err as RouteError).hint}`;
      expect(text).toContain(`proxy at 127.0.0.1:${proxy.port}`);
      expect(text).toContain('nothing was sent to gateway.example');
      expect(text).toContain('HTTPS_PROXY');
      expect(text).not.toMatch(/hunter2|alice/);
      // Asked once: the proxy would ask again.
      expect(proxy.connects.length - before).toBe(1);
      if (kind === 'readOnly') expect((err as Error).message).toContain('asked for authentication');
      else {
        expect((err as Error).message).toContain('refused the credentials in HTTPS_PROXY');
        expect(proxy.connects.at(-1)?.authorization).toBe(
          `Basic ${Buffer.from('alice:hunter2').toString('base64')}`,
        );
      }
    }
  });

  it('a proxy URL that cannot be read is a configuration error that does not show it', async () => {
    const transport = await createTransport({ env: { HTTPS_PROXY: 'http://bob:se cret@@' } });
    cleanups.push(() => transport.close());
    const err = await transport
      .request({ origin: 'https://gateway.example', path: '/v1/query', body: '', kind: 'readOnly' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('HTTPS_PROXY is not a valid proxy URL');
  });

  it('sends a remote origin through HTTP_PROXY, but never loopback', async () => {
    const gateway = await startRecordingServer(() => ({ body: '{"ok":"1"}' }));
    cleanups.push(() => gateway.close());
    const proxy = await startProxy(gateway);
    const transport = await createTransport({ env: { HTTP_PROXY: proxy.url }, allowInsecureHttp: true });
    cleanups.push(() => transport.close());

    const viaProxy = await transport.request({
      origin: 'http://gateway.example:8080',
      path: '/v1/retrievalTrans',
      body: 'a=1',
      kind: 'readOnly',
    });
    expect(viaProxy.status).toBe(200);
    expect(proxy.targets).toEqual(['gateway.example:8080']);
    expect(gateway.requests[0]?.path).toBe('/v1/retrievalTrans');

    const direct = await transport.request({
      origin: gateway.url,
      path: '/direct',
      body: '',
      kind: 'readOnly',
    });
    expect(direct.status).toBe(200);
    expect(proxy.targets).toHaveLength(1);
    expect(gateway.requests.map((r) => r.path)).toEqual(['/v1/retrievalTrans', '/direct']);
  });
});
