// Proxies from the environment, with a real CONNECT proxy and gateway, both on loopback.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('transport proxies', () => {
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
