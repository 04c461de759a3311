// `payops listen`: a node:http receiver for the gateway's notifications (design §1.9). Every body
// is verified (signature with the profile's sign key, then merchant and account) before anything
// it says is believed; a refused one gets 401/403/400, one warning line, and is kept nowhere. A new
// event is appended to the events journal and fdatasync'd (group commit across concurrent requests)
// BEFORE the 2xx, so a crash never loses an event the gateway was told was delivered; a duplicate
// (its event_id already journaled or being journaled) gets 2xx and is not appended again. Memory
// stays flat: the de-duplication index is the set of event ids, never bodies.
//
// One listen per PAYOPS_HOME at a time (listen.lock beside the journal): the id set in memory is
// then the whole truth, and forwarded.jsonl has one writer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepOldGenerationSmall } from '../bulk/engine/heap.js';
import { stateDir as stateDirOf } from '../config/paths.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { acquireLock } from '../lifecycle/lock.js';
import { eventCredentials } from './credentials.js';
import { type Forwarder, forwardUrl, resultText, startForwarder } from './forward.js';
import {
  type EventRecord,
  eventRecord,
  eventsDir,
  eventsFile,
  type GatewayEvent,
  listenLockFile,
  openEventsJournal,
  readEventIds,
} from './journal.js';
import { verifyEvent } from './verify.js';
import { eventJson, eventLine, factsOf } from './view.js';

export interface ListenOptions {
  port: number;
  host: string;
  forwardTo?: string;
}

/** Bytes → text, refusing what is not UTF-8 (one instance: it keeps no state between calls). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** How long a stop waits for requests already being read. */
const DRAIN_MS = 10_000;

/** A notification is small; anything bigger is refused unread. */
const MAX_BODY = 1024 * 1024;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function runListen(ctx: Context, opts: ListenOptions): Promise<number> {
  const target = opts.forwardTo === undefined ? undefined : forwardUrl(opts.forwardTo);
  if (opts.forwardTo !== undefined && !target) {
    throw new UsageError(`--forward-to must be an http:// or https:// URL, not "${opts.forwardTo}"`);
  }
  const creds = await eventCredentials(ctx);
  // A long-running receiver allocates a few KB per event, nearly all short-lived: RSS stays near the live heap.
  keepOldGenerationSmall();
  const state = stateDirOf(ctx.io.env);
  const { mkdir } = await import('node:fs/promises');
  await mkdir(eventsDir(state), { recursive: true, mode: 0o700 });
  const unlock = await acquireLock(listenLockFile(state), `the events journal ${eventsFile(state)}`);
  ctx.onClose(unlock);
  const ids = await readEventIds(state);
  const journal = await openEventsJournal(state);
  ctx.onClose(() => journal.close());
  const json = ctx.globals.output === 'json';
  const out = ctx.io.stdout;
  const retryBaseMs =
    Number(ctx.io.env.PAYOPS_FORWARD_RETRY_MS) > 0 ? Number(ctx.io.env.PAYOPS_FORWARD_RETRY_MS) : 1000;

  let forwarder: Forwarder | undefined;
  if (target) {
    forwarder = await startForwarder({
      stateDir: state,
      target,
      retryBaseMs,
      onForwarded: (r, attempt, status) =>
        ctx.log.verbose(`forwarded ${r.eventId} to ${target.href} (HTTP ${status}, attempt ${attempt})`),
      onFailed: (r, attempt, result, wait) =>
        ctx.log.warn(
          `warning: forward of ${r.eventId} to ${target.href} failed (${resultText(result)}, attempt ${attempt}); again in ${wait / 1000} s`,
        ),
    });
    ctx.log.info(
      `forwarding to ${target.href}${forwarder.backlog > 0 ? ` (${forwarder.backlog} journaled events not yet forwarded there: sending them first)` : ''}`,
    );
  }

  /** Events being journaled now: a duplicate arriving meanwhile waits for the first one's append. */
  const inflight = new Map<string, Promise<boolean>>();
  let failed = false;
  let accepted = 0;
  let duplicates = 0;

  function announce(record: EventRecord, event: GatewayEvent): void {
    const facts = factsOf(record, event);
    // On a terminal the line fits its width (read each time: it may be resized); into a pipe, whole.
    out.write(
      json ? `${JSON.stringify(eventJson(facts))}\n` : eventLine(facts, out.isTTY ? out.columns : undefined),
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') {
      req.resume();
      if (req.method === 'GET' || req.method === 'HEAD') return answer(200, { service: 'payops listen' });
      return answer(405, { error: 'POST events here' });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) {
        ctx.log.warn(
          `warning: refused a request from ${req.socket.remoteAddress}: body over ${MAX_BODY} bytes`,
        );
        res.setHeader('connection', 'close');
        return answer(413, { error: 'body too large' });
      }
      chunks.push(chunk);
    }
    const raw = Buffer.concat(chunks);
    let body: string;
    try {
      body = utf8.decode(raw);
    } catch {
      ctx.log.warn(`warning: refused a request from ${req.socket.remoteAddress}: the body is not UTF-8`);
      return answer(400, { error: 'not UTF-8' });
    }
    const verdict = verifyEvent(body, creds);
    if (!verdict.ok) {
      ctx.log.warn(
        `warning: refused an event from ${req.socket.remoteAddress}: ${verdict.reason} (HTTP ${verdict.status}); nothing kept`,
      );
      return answer(verdict.status, { error: verdict.reason });
    }
    const { event } = verdict;
    const id = event.event_id;
    const pending = inflight.get(id);
    if (ids.has(id) || pending) {
      if (pending && !(await pending)) return answer(503, { error: 'not journaled' });
      duplicates++;
      ctx.log.verbose(`duplicate ${id} (already journaled): answered 200`);
      return answer(200, { received: true, duplicate: true });
    }
    const record = eventRecord(body, event);
    const append = journal.append(record).then(
      () => {
        ids.add(id);
        return true;
      },
      (err: unknown) => {
        if (!failed) {
          failed = true;
          ctx.log.warn(
            `error: cannot write the events journal ${eventsFile(state)}: ${(err as Error).message}; answering 503 (the gateway retries)`,
          );
        }
        return false;
      },
    );
    inflight.set(id, append);
    const ok = await append;
    inflight.delete(id);
    if (!ok) return answer(503, { error: 'not journaled' });
    accepted++;
    answer(200, { received: true });
    announce(record, event);
    forwarder?.add(record, req.headers['content-type'] ?? 'application/json');
  }

  const active = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const p = handle(req, res).catch((err: unknown) => {
      ctx.log.warn(`warning: a request failed: ${(err as Error).message}`);
      if (!res.headersSent) {
        res.writeHead(500);
        res.end();
      } else res.destroy();
    });
    active.add(p);
    void p.finally(() => active.delete(p));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code;
      reject(
        code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL'
          ? new UsageError(`cannot listen on ${opts.host}:${opts.port} (${code})`, {
              hint: 'pick another --port, or --port 0 for a free one',
              cause: err,
            })
          : err,
      );
    });
    server.listen(opts.port, opts.host, () => resolve());
  });
  // Signals are listened for before the address is announced: a script may signal once it reads it.
  const signal = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  ctx.log.info(
    `listening on http://${shown}:${addr.port}/ for merchant ${creds.merchantId} account ${creds.accountId}` +
      `${creds.sandbox ? ' (sandbox)' : ''}; events journal ${eventsFile(state)} (${ids.size} events)`,
  );
  if (!isLoopback(opts.host)) {
    ctx.log.warn(
      `note: listening on ${opts.host}: put it behind your TLS proxy; a gateway needs a public https:// address (docs/events.md)`,
    );
  }
  await signal;
  // Stop accepting; requests already read finish their append and their answer.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // A request whose body never finishes arriving is not waited for beyond this: it was not answered,
  // so the gateway delivers it again.
  const giveUp = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_MS).unref());
  let drained = false;
  void giveUp.then(() => {
    drained = true;
  });
  while (active.size > 0 && !drained) await Promise.race([Promise.allSettled([...active]), giveUp]);
  server.closeAllConnections();
  await closed;
  await forwarder?.stop();
  await journal.close();
  ctx.log.info(
    `stopped: ${accepted} new events journaled${duplicates ? `, ${duplicates} duplicates` : ''}${forwarder?.pending ? `, ${forwarder.pending} not yet forwarded (sent at the next start)` : ''}`,
  );
  return failed ? ExitCode.config : ExitCode.ok;
}
