// A plain node:http server on 127.0.0.1 that records every request and answers as told: a stand-in
// for "any HTTP server" in tests of what payops sends.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingServer(
  reply: (req: RecordedRequest) => Reply = () => ({ body: '{}' }),
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const r = reply(recorded);
      res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json', ...r.headers });
      res.end(r.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
