// A gateway that answers in ways the sandbox never does, yet within what the specification allows
// (issue 23): an HTTP proxy in front of the real sandbox that passes every request on, lets a test
// rewrite the sandbox's answer (its JSON body, its HTTP status), and signs the rewritten body again
// with the sign key (design.md §1.1), so that payops verifies it as the gateway's own. The sandbox
// still does the work and keeps the ledger, which is what a test judges by.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSigner } from '../../src/gateway/signer.js';
import { parseRespon } from '../../src/gateway/xml.js';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index.js';
import { respon, type XmlValue } from '../../src/sandbox/render.js';

export interface OddAnswer {
  status: number;
  /**
   * The answer's body, parsed: JSON, or the children of an XML `respon` (the card result), which is
   * rendered as XML again when changed (undefined when it was neither).
   */
  body: Record<string, unknown> | undefined;
}

/** The request as payops sent it: its path and body (JSON or form fields). */
export interface OddRequest {
  path: string;
  body: Record<string, unknown>;
}

/**
 * Changes an answer in place or returns another one; `undefined` leaves it as it is. A body
 * returned is signed again; the status is answered as given.
 */
export type Rewrite = (req: OddRequest, answer: OddAnswer) => OddAnswer | undefined;

export interface OddGateway {
  url: string;
  /** Answers rewritten so far, per path. */
  rewritten: Map<string, number>;
  close(): Promise<void>;
}

function parseRequest(contentType: string, text: string): Record<string, unknown> {
  try {
    if (contentType.includes('json')) return JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(new URLSearchParams(text));
  } catch {
    return {};
  }
}

export async function startOddGateway(
  target: string,
  rewrite: Rewrite,
  signKey: string = SANDBOX_CREDENTIALS.signKey,
): Promise<OddGateway> {
  const signer = createSigner(signKey);
  const sockets = new Set<Socket>();
  const rewritten = new Map<string, number>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const contentType = req.headers['content-type'] ?? '';
      const text = Buffer.concat(chunks).toString('utf8');
      fetch(`${target}${path}`, {
        method: req.method ?? 'POST',
        headers: { 'content-type': contentType || 'application/octet-stream' },
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : text,
      })
        .then(async (r) => {
          const raw = Buffer.from(await r.arrayBuffer());
          const type = r.headers.get('content-type') ?? 'text/plain';
          let body: Record<string, unknown> | undefined;
          const xml = type.includes('xml');
          if (xml) {
            try {
              body = (await parseRespon(raw.toString('utf8'))) as Record<string, unknown>;
            } catch {
              body = undefined;
            }
          } else if (type.includes('json')) {
            try {
              body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
            } catch {
              body = undefined;
            }
          }
          const answer: OddAnswer = { status: r.status, body };
          const changed = path.startsWith('/v1/')
            ? rewrite({ path, body: parseRequest(contentType, text) }, answer)
            : undefined;
          if (changed === undefined) {
            res.writeHead(r.status, { 'content-type': type });
            res.end(raw);
            return;
          }
          rewritten.set(path, (rewritten.get(path) ?? 0) + 1);
          let out = '';
          if (changed.body !== undefined) {
            const { encryption_data: _old, ...rest } = changed.body;
            const signed = { ...rest, encryption_data: signer.sign(rest) };
            out = xml ? respon(signed as Record<string, XmlValue>) : JSON.stringify(signed);
          }
          res.writeHead(changed.status, { 'content-type': xml ? type : 'application/json' });
          res.end(out);
        })
        // The sandbox dropped the connection (drop_after_commit …): so does the odd gateway.
        .catch(() => res.destroy());
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
    rewritten,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Every element of the answer's `array` (refund_orders, …), changed by `fn` (in place or returned). */
export function eachElement(
  answer: OddAnswer,
  array: string,
  fn: (el: Record<string, unknown>, i: number) => Record<string, unknown> | undefined,
): OddAnswer | undefined {
  const list = answer.body?.[array];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const next = list.map((el, i) => fn(el as Record<string, unknown>, i) ?? el);
  return { status: answer.status, body: { ...answer.body, [array]: next } };
}
