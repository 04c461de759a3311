// A node:http server on 127.0.0.1 that answers badly on purpose: trickling its answer a byte at a
// time, sending far more than anyone should read, redirecting. Each request is recorded and the
// bytes the server managed to write are counted, so a test can say "asked three times, read little".
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HostileRequest {
  method: string;
  path: string;
  contentType: string;
  body: string;
}

export interface HostileServer {
  url: string;
  requests: HostileRequest[];
  /** Body bytes the server has written so far, over every request. */
  readonly bytesWritten: number;
  close(): Promise<void>;
}

export type Behaviour = (req: HostileRequest, res: ServerResponse, server: Tools) => void;

export interface Tools {
  /** Headers at once, then the body one byte every `intervalMs`, never ending. */
  trickle(res: ServerResponse, intervalMs: number): void;
  /** `bytes` of JSON whitespace after `{`, streamed with back-pressure; Content-Length declared or not. */
  flood(res: ServerResponse, bytes: number, opts?: { contentLength?: boolean }): void;
  /** Passes the request on to `target` (a base URL) and its answer back: an honest front. */
  forward(req: HostileRequest, res: ServerResponse, target: string): void;
}

export async function startHostileServer(behaviour: Behaviour): Promise<HostileServer> {
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let written = 0;

  const tools: Tools = {
    trickle(res, intervalMs) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const tick = () => {
        if (res.destroyed || res.writableEnded) return;
        res.write(' ');
        written++;
        const t = setTimeout(() => {
          timers.delete(t);
          tick();
        }, intervalMs);
        timers.add(t);
      };
      tick();
    },
    flood(res, bytes, opts = {}) {
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(opts.contentLength ? { 'content-length': String(bytes + 2) } : {}),
      });
      res.write('{');
      const block = Buffer.alloc(64 * 1024, 0x20);
      let left = bytes;
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          const n = Math.min(left, block.length);
          left -= n;
          written += n;
          if (!res.write(n === block.length ? block : block.subarray(0, n))) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end('}');
      };
      pump();
    },
    forward(req, res, target) {
      fetch(`${target}${req.path}`, {
        method: req.method,
        headers: { 'content-type': req.contentType || 'application/octet-stream' },
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
      })
        .then(async (r) => {
          const body = Buffer.from(await r.arrayBuffer());
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
          res.end(body);
        })
        .catch(() => res.destroy());
    },
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      behaviour(r, res, tools);
    });
    res.on('error', () => {});
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get bytesWritten() {
      return written;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface AuthProxy {
  url: string;
  /** Every CONNECT asked for: its target and the Proxy-Authorization it carried. */
  connects: Array<{ target: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** A proxy that answers every CONNECT with 407, whatever credentials it is given. */
export async function startAuthProxy(): Promise<AuthProxy> {
  const connects: AuthProxy['connects'] = [];
  const server = createServer((_req, res) =>
    res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"' }).end(),
  );
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    connects.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    socket.end(
      'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
