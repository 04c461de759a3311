// The sandbox's HTTP server (node:http): routes /v1 paths through the endpoints table, applies
// fault injection, persists each request's mutations before answering, and shuts down promptly
// even with hung connections or late commits pending (every socket and timer is tracked and ended
// on close).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Endpoint, endpointByPath } from '../gateway/endpoints.js';
import { type AdminState, handleAdmin, type StreamReply } from './admin.js';
import { type BatchAnswer, handleBatch } from './batch.js';
import { handleCheckout, hostedPage } from './checkout.js';
import {
  createSandboxContext,
  errorReply,
  JSON_TYPE,
  jsonReply,
  type Reply,
  type SandboxContext,
} from './context.js';
import { drainedOrClosed, Faults, sendFaulty } from './faults.js';
import { loadCurrencyDigits, Rejection } from './fields.js';
import { Journal } from './journal.js';
import { LateCommits } from './late-commits.js';
import { type NotifyEvent, type NotifyOptions, NotifyQueue } from './notify-queue.js';
import { handleAuthorise } from './payments.js';
import { handlePayout } from './payout.js';
import type { SandboxRequestEntry } from './request-log.js';
import { handleQuery, handleRefundSearch } from './search.js';
import { createOrders, loadSeedFile } from './seed.js';
import { Store } from './store.js';

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8787; 0 picks an ephemeral port. */
  port?: number;
  /** Create N captured (3000) orders at start. */
  seed?: number;
  /** Persist state in an append-only log there and reload it at start. */
  dataDir?: string;
  /** CSV files (transaction_id,order_no,currency,amount,payment_status) to load at start. */
  seedFiles?: string[];
  /** Callers allowed on the query endpoint; default 127.0.0.1 and ::1 (::ffff:127.0.0.1 too). */
  registeredIps?: string[];
  /** Told of every request once it is answered (or closed unanswered): `payops sandbox`'s log. */
  onRequest?: (entry: SandboxRequestEntry) => void;
  /** Notification deliveries (design.md §1.9): the retry schedule, the timeout, how many at once. */
  notify?: NotifyOptions;
}

export interface SandboxHandle {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43121. */
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_REGISTERED_IPS: readonly string[] = ['127.0.0.1', '::1'];
const MAX_BODY = 8 * 1024 * 1024;

export async function startServer(opts: SandboxOptions): Promise<SandboxHandle> {
  const currencies = await loadCurrencyDigits();
  const store = new Store();
  const initialIps = opts.registeredIps ?? DEFAULT_REGISTERED_IPS;
  const ctx = createSandboxContext(store, currencies, initialIps);
  let journal: Journal | undefined;
  let replayed = 0;
  if (opts.dataDir) ({ journal, replayed } = Journal.open(opts.dataDir, store));
  for (const file of opts.seedFiles ?? []) loadSeedFile(ctx, file);
  // A restored store keeps its orders: --seed only fills a fresh one.
  if (opts.seed && replayed === 0) createOrders(ctx, { count: opts.seed, state: '3000', currency: 'USD' });
  journal?.flush();

  const faults = new Faults(opts.seed ?? 1);
  const lateCommits = new LateCommits();
  // Made after the seed and the replay: restoring a store is not a change of state.
  const notify = new NotifyQueue(opts.notify ?? {}, ctx.now, opts.seed ?? 1);
  // Events made while a request is handled (handlers are synchronous) are held until its answer
  // has gone (or its socket was dropped), then queued: a delivery never overtakes the answer.
  let made: NotifyEvent[] = [];
  ctx.notify = (event) => made.push(event);
  const takeEvents = (): NotifyEvent[] => {
    const events = made;
    if (events.length > 0) made = [];
    return events;
  };
  const release = (events: NotifyEvent[]) => {
    for (const event of events) notify.enqueue(event);
  };
  const admin: AdminState = { ctx, faults, lateCommits, notify, initialIps, startedAt: Date.now() };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const onRequest = opts.onRequest;
  const server = createServer((req, res) => {
    if (onRequest) {
      const at = new Date();
      const started = performance.now();
      res.once('close', () => {
        const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
        const reply = answered.get(res);
        onRequest({
          at,
          method: req.method ?? '?',
          path,
          ms: performance.now() - started,
          ...(reply ? { reply } : {}),
        });
      });
    }
    handle(req, res).catch(() => {
      // A handler bug must not take the sandbox down: answer 500 if we still can.
      if (!res.headersSent && !res.destroyed)
        send(res, jsonReply({ code: 'E9001', message: 'sandbox error' }, 500));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const remoteIp = req.socket.remoteAddress ?? '';
    const raw = await readBody(req);
    if (raw === undefined) {
      send(res, errorReply(new Rejection('E1005', `body larger than ${MAX_BODY} bytes`, 413)));
      return;
    }
    if (path.startsWith('/_sandbox/')) {
      const reply = handleAdmin(admin, req.method ?? 'GET', path, url.searchParams, raw, remoteIp);
      const events = takeEvents();
      journal?.flush();
      await sendAny(res, reply);
      release(events);
      return;
    }
    const endpoint = endpointByPath(path);
    if (!endpoint) {
      send(res, errorReply(new Rejection('E1005', `no endpoint ${path}`, 404)));
      return;
    }
    if (req.method !== 'POST') {
      send(res, errorReply(new Rejection('E1005', `${path} takes POST`, 405)));
      return;
    }
    const typeProblem = contentTypeProblem(endpoint, req.headers['content-type']);
    if (typeProblem) {
      send(res, errorReply(typeProblem));
      return;
    }
    // The checkout page's own form, posted back by the browser: the hosted page.
    if (isHostedPagePost(ctx, endpoint, req.headers['content-type'], raw)) {
      send(res, hostedPage(ctx, Object.fromEntries(new URLSearchParams(raw))));
      return;
    }
    const fault = faults.decide(path);
    if (fault.mode === 'hang') return; // never answered; the socket is destroyed on close
    let reply: Reply | undefined;
    let events: NotifyEvent[] = [];
    if (fault.mode === 'rate_limit') {
      // Turned away before anything is read or applied, as a gateway's rate limiter does.
      if (fault.latencyMs > 0) await delay(fault.latencyMs);
      if (closing) return;
      send(res, jsonReply({ code: 'E9001', message: 'E9001:too many requests' }, 429), {
        'retry-after': String(fault.retryAfterS),
      });
      return;
    }
    if (fault.mode === 'error500' || fault.mode === 'commit_late') {
      reply = jsonReply({ code: 'E9001', message: 'E9001:temporarily unavailable' }, 500);
      // The very same request, applied later as if it arrived then (its answer goes nowhere).
      if (fault.mode === 'commit_late') {
        lateCommits.schedule(fault.delayMs ?? 0, () => {
          dispatch(ctx, endpoint, raw, remoteIp);
          const events = takeEvents();
          journal?.flush();
          release(events);
        });
      }
    } else if (fault.mode !== 'drop_before_commit') {
      reply = dispatch(ctx, endpoint, raw, remoteIp, fault.mode === 'status_zero' ? STATUS_ZERO : undefined);
      events = takeEvents();
      journal?.flush();
    }
    if (fault.latencyMs > 0) await delay(fault.latencyMs);
    if (closing) return;
    if (!reply || fault.mode === 'drop_after_commit') {
      req.socket.destroy();
      release(events);
      return;
    }
    if (fault.mode === 'garbage')
      reply = { status: 200, contentType: reply.contentType, body: '<<\u0000{"return_status":' };
    if (fault.mode === 'bad_signature') reply = { ...reply, body: tamperSignature(reply) };
    if (fault.mode === 'trickle' || fault.mode === 'oversize') {
      answered.set(res, reply);
      // Its answer has begun (status and first bytes written synchronously); it may take minutes.
      const sending = sendFaulty(res, reply, fault.mode, delay);
      release(events);
      await sending;
    } else {
      send(res, reply);
      release(events);
    }
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 8787, opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    notify.close();
    journal?.close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  ctx.baseUrl = url;

  let closed: Promise<void> | undefined;
  return {
    url,
    close() {
      closed ??= (async () => {
        closing = true;
        lateCommits.close();
        await notify.drain();
        notify.close();
        for (const t of timers) clearTimeout(t);
        timers.clear();
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await done;
        journal?.close();
      })();
      return closed;
    },
  };
}

const JSON_MEDIA = 'application/json';
const FORM_MEDIA = 'application/x-www-form-urlencoded';

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Each endpoint's content type (the spec's endpoint table): 415 for any other, or none. A JSON
 * endpoint also takes the form content type, because the spec's own samples send JSON bodies under
 * it (its "body format stated per endpoint is the one to implement"): the body must then still be
 * JSON, else 400. A form endpoint takes form-encoded bodies only.
 */
function contentTypeProblem(endpoint: Endpoint, header: string | undefined): Rejection | undefined {
  const got = mediaType(header);
  const accepted = endpoint.requestFormat === 'json' ? [JSON_MEDIA, FORM_MEDIA] : [FORM_MEDIA];
  if (accepted.includes(got)) return undefined;
  const want = endpoint.requestFormat === 'json' ? JSON_MEDIA : FORM_MEDIA;
  return new Rejection(
    'E1005',
    `${endpoint.path} takes ${want} bodies, not ${got === '' ? 'a body without a content type' : got}`,
    415,
  );
}

/**
 * The one form-encoded (not JSON) body /v1/checkout serves: its own page's form, posted by the
 * shopper's browser to the checkout path (gateway-api.md, endpoint rule 3), naming the pending order
 * the JSON request made. It creates nothing. Any other non-JSON body there is 400.
 */
function isHostedPagePost(
  ctx: SandboxContext,
  endpoint: Endpoint,
  header: string | undefined,
  raw: string,
): boolean {
  if (endpoint.op !== 'checkout' || mediaType(header) !== FORM_MEDIA || raw.trimStart().startsWith('{'))
    return false;
  const id = new URLSearchParams(raw).get('transaction_id');
  return id !== null && ctx.store.byTransactionId.has(id);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooBig ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** status_zero's batch answer: every element as usual, the envelope saying the request failed. */
const STATUS_ZERO: BatchAnswer = { returnStatus: '0', returnMessage: 'E9001:temporarily unavailable' };

function dispatch(
  ctx: SandboxContext,
  endpoint: Endpoint,
  text: string,
  remoteIp: string,
  batchAnswer?: BatchAnswer,
): Reply {
  if (endpoint.requestFormat === 'form') {
    if (text.trimStart().startsWith('{'))
      return errorReply(new Rejection('E1005', `${endpoint.path} takes form-encoded fields, not JSON`, 400));
    const form = Object.fromEntries(new URLSearchParams(text));
    return endpoint.op === 'query' ? handleQuery(ctx, form, remoteIp) : handleRefundSearch(ctx, form);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorReply(new Rejection('E1005', 'body is not valid JSON', 400));
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return errorReply(new Rejection('E1005', 'body must be a JSON object', 400));
  }
  const b = body as Record<string, unknown>;
  switch (endpoint.op) {
    case 'authorise':
      return handleAuthorise(ctx, b);
    case 'checkout':
      return handleCheckout(ctx, b, remoteIp);
    case 'capture':
    case 'cancel':
    case 'review':
    case 'refund':
      return handleBatch(ctx, endpoint.op, b, batchAnswer);
    case 'payout':
      return handlePayout(ctx, b);
    default:
      return errorReply(new Rejection('E1005', `unexpected endpoint ${endpoint.path}`, 404));
  }
}

const WRONG_SIGNATURE = '0'.repeat(64);

/** A valid body whose encryption_data is wrong (added where the response has none). */
function tamperSignature(reply: Reply): string {
  if (reply.contentType === JSON_TYPE) {
    if (reply.body.includes('"encryption_data":"')) {
      return reply.body.replace(/"encryption_data":"[0-9a-f]*"/, `"encryption_data":"${WRONG_SIGNATURE}"`);
    }
    return reply.body.replace(/^\{/, `{"encryption_data":"${WRONG_SIGNATURE}",`);
  }
  if (reply.body.includes('<encryption_data>')) {
    return reply.body.replace(
      /<encryption_data>[0-9a-f]*<\/encryption_data>/,
      `<encryption_data>${WRONG_SIGNATURE}</encryption_data>`,
    );
  }
  return reply.body.replace('</respon>', `<encryption_data>${WRONG_SIGNATURE}</encryption_data></respon>`);
}

/** The reply each answered response carried, for onRequest. */
const answered = new WeakMap<ServerResponse, Reply>();

function send(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void {
  answered.set(res, reply);
  res.writeHead(reply.status, {
    ...headers,
    'content-type': reply.contentType,
    'content-length': Buffer.byteLength(reply.body),
  });
  res.end(reply.body);
}

async function sendAny(res: ServerResponse, reply: Reply | StreamReply): Promise<void> {
  if (!('chunks' in reply)) {
    send(res, reply);
    return;
  }
  answered.set(res, { status: reply.status, contentType: reply.contentType, body: '' });
  res.writeHead(reply.status, { 'content-type': reply.contentType });
  for (const chunk of reply.chunks) {
    if (!res.write(chunk)) {
      await drainedOrClosed(res);
      if (res.destroyed) return;
    }
  }
  res.end();
}
