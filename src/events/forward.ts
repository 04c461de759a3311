// --forward-to: every new event is posted to the merchant's own app — the original body bytes, its
// content type, and `Payops-Event-Id` / `Payops-Delivery: <eventId>/<attempt>` — one at a time, the
// earliest created_at first (best effort: the order the gateway created them). A 2xx is recorded in
// `<state>/events/forwarded.jsonl` (durably) and the event is done for that URL; anything else is
// retried with backoff, for ever, while listen runs. On start, every journaled event not yet
// forwarded to that URL is queued again, so a forward survives a restart of payops. The gateway's
// 2xx never waits for any of this.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  type DurableAppender,
  type EventRecord,
  eachEvent,
  eventsDir,
  forwardedFile,
  jsonLines,
  openAppender,
  parseCreatedAt,
} from './journal.js';

/** One line of forwarded.jsonl: this event reached this URL with a 2xx. */
export interface ForwardedRecord {
  v: 1;
  eventId: string;
  target: string;
  at: string;
  status: number;
  attempt: number;
}

/** Delays between failed forwards, as multiples of the base (1 s unless PAYOPS_FORWARD_RETRY_MS). */
const BACKOFF_STEPS = [1, 2, 5, 10, 30, 60];
/** No answer within this long is a failed forward (the gateway's own rule, design §1.9). */
export const FORWARD_TIMEOUT_MS = 10_000;

export type PostResult = { status: number } | { error: string };

/** POST `body` to `url` with `headers`; never rejects. */
export function postBody(
  url: URL,
  body: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
  timeoutMs = FORWARD_TIMEOUT_MS,
): Promise<PostResult> {
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let done = false;
    const finish = (r: PostResult) => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        signal,
        timeout: timeoutMs,
      },
      (res: IncomingMessage) => {
        res.resume();
        res.on('end', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', (e) => finish({ error: e.message }));
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`));
    });
    req.on('error', (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
    req.end(body);
  });
}

export function isOk(r: PostResult): r is { status: number } {
  return 'status' in r && r.status >= 200 && r.status < 300;
}

export function resultText(r: PostResult): string {
  return 'status' in r ? `HTTP ${r.status}` : r.error;
}

/** The forward target as a URL; http(s) only. */
export function forwardUrl(text: string): URL | undefined {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** Event id → the URLs it was forwarded to (events list's "forwarded" column). */
export async function readForwarded(stateDir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for await (const line of jsonLines(forwardedFile(stateDir))) {
    const r = parseForwarded(line);
    if (!r) continue;
    const list = out.get(r.eventId);
    if (!list) out.set(r.eventId, [r.target]);
    else if (!list.includes(r.target)) list.push(r.target);
  }
  return out;
}

function parseForwarded(line: string): ForwardedRecord | undefined {
  try {
    const r = JSON.parse(line) as Partial<ForwardedRecord> | null;
    return r && typeof r.eventId === 'string' && typeof r.target === 'string'
      ? (r as ForwardedRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

export interface ForwarderOptions {
  stateDir: string;
  target: URL;
  /** Base of the backoff, ms. */
  retryBaseMs: number;
  onForwarded(record: EventRecord, attempt: number, status: number): void;
  onFailed(record: EventRecord, attempt: number, result: PostResult, retryInMs: number): void;
}

export interface Forwarder {
  /** Queue a new event (already journaled). */
  add(record: EventRecord, contentType?: string): void;
  /** How many events wait to be forwarded. */
  readonly pending: number;
  /** How many journaled events were queued again at start. */
  readonly backlog: number;
  /** Stop: the forward in flight is abandoned (it is sent again at the next start). */
  stop(): Promise<void>;
}

interface Item {
  record: EventRecord;
  time: number;
  contentType: string;
  attempt: number;
}

export async function startForwarder(opts: ForwarderOptions): Promise<Forwarder> {
  const target = opts.target.href;
  const done = new Set<string>();
  for await (const line of jsonLines(forwardedFile(opts.stateDir))) {
    const r = parseForwarded(line);
    if (r && r.target === target) done.add(r.eventId);
  }
  const queue: Item[] = [];
  for await (const record of eachEvent(opts.stateDir)) {
    if (!done.has(record.eventId)) queue.push(item(record));
  }
  queue.sort((a, b) => a.time - b.time);
  const backlog = queue.length;
  const log: DurableAppender = await openAppender(forwardedFile(opts.stateDir), eventsDir(opts.stateDir));
  const abort = new AbortController();
  let wake: (() => void) | undefined;
  let failures = 0;

  function item(record: EventRecord, contentType = 'application/json'): Item {
    const t = parseCreatedAt(record.createdAt).getTime();
    return { record, time: Number.isNaN(t) ? Number.MAX_SAFE_INTEGER : t, contentType, attempt: 0 };
  }

  // One listener per pause, removed when it ends: an app down for hours makes thousands of pauses.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        abort.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      abort.signal.addEventListener('abort', onAbort, { once: true });
    });

  async function loop(): Promise<void> {
    while (!abort.signal.aborted) {
      const next = queue[0];
      if (!next) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      next.attempt++;
      const { record } = next;
      const result = await postBody(
        opts.target,
        Buffer.from(record.body, 'utf8'),
        {
          'content-type': next.contentType,
          'payops-event-id': record.eventId,
          'payops-delivery': `${record.eventId}/${next.attempt}`,
        },
        abort.signal,
      );
      if (abort.signal.aborted) return;
      if (isOk(result)) {
        failures = 0;
        queue.shift();
        const line: ForwardedRecord = {
          v: 1,
          eventId: record.eventId,
          target,
          at: new Date().toISOString(),
          status: result.status,
          attempt: next.attempt,
        };
        // A record lost here costs one more forward at the next start (the app de-duplicates).
        await log.append(`${JSON.stringify(line)}\n`).catch(() => {});
        opts.onForwarded(record, next.attempt, result.status);
      } else {
        const delay = opts.retryBaseMs * BACKOFF_STEPS[Math.min(failures, BACKOFF_STEPS.length - 1)]!;
        failures++;
        opts.onFailed(record, next.attempt, result, delay);
        await pause(delay);
      }
    }
  }

  const running = loop();
  return {
    add(record, contentType) {
      const it = item(record, contentType);
      // Best effort by created_at: placed after every queued event created no later than it.
      let i = queue.length;
      while (i > 1 && queue[i - 1]!.time > it.time) i--;
      queue.splice(i, 0, it);
      wake?.();
    },
    get pending() {
      return queue.length;
    },
    backlog,
    async stop() {
      abort.abort();
      wake?.();
      await running.catch(() => {});
      await log.close();
    },
  };
}
