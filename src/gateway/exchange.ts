// One HTTP exchange through undici's dispatch API, bounded twice: one deadline for the whole of it
// (connecting, the headers and every byte of the body), and a cap on the answer's size. undici's own
// headersTimeout/bodyTimeout only bound the gap between two bytes: a server trickling a byte every
// 1.5 s kept a 2 s --timeout alive for as long as it liked, and nothing bounded what was buffered.
//
// Gathering the bytes here, without the stream, async-resource and promise layers of `request()` +
// `body.text()`, also matters: a bulk run makes thousands of exchanges, the first in cold code.
import { subscribe } from 'node:diagnostics_channel';
import type { Dispatcher } from 'undici';
import { whenAborted } from './abort-watch.js';

/**
 * Errors undici reported as a failed connection (TCP, TLS, a proxy's tunnel), published before it
 * ends the requests queued for that connection with them: none of those requests was written.
 */
const connectFailures = new WeakSet<object>();
subscribe('undici:client:connectError', (message) => {
  const error = (message as { error?: unknown }).error;
  if (error !== null && typeof error === 'object') connectFailures.add(error);
});

/**
 * The largest answer read: gateway answers are a few KB (a batch of 50 results, a page of 100
 * orders), so anything near this is not an answer. The download stops there, never buffered whole.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface ExchangeRequest {
  origin: string;
  path: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body: string | null;
  signal?: AbortSignal | undefined;
}

export interface ExchangeLimits {
  /** The whole exchange, connecting included (ms). */
  timeoutMs: number;
  /** The answer's body, in bytes. */
  maxBytes: number;
}

/** What one exchange gives back: status, headers (lower-case names) and body text. */
export interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The deadline passed after the request may have left: its answer is lost. */
export class ExchangeTimeoutError extends Error {
  readonly code = 'PAYOPS_EXCHANGE_TIMEOUT';
}

/** The answer was larger than the cap (announced so, or found so while reading): cut off. */
export class AnswerTooLargeError extends Error {
  readonly code = 'PAYOPS_ANSWER_TOO_LARGE';
  constructor(
    readonly limit: number,
    /** Its Content-Length, when that alone was above the cap (the body was not read). */
    readonly announced?: number,
  ) {
    super(`answer larger than ${limit} bytes${announced === undefined ? '' : ` (announced ${announced})`}`);
  }
}

/**
 * Ended before a byte of the request could leave: no connection by the deadline, interrupted while
 * connecting, or undici reported a failed connection (`failed`: its error is the cause) — a proxy's tunnel
 * closed during its TLS handshake was taken for a reset after sending, an unknown outcome for a
 * refund. undici calls `onConnect` just before it writes a request on a connected socket, so an
 * exchange ended before that call was certainly not sent.
 */
export class NotSentError extends Error {
  constructor(
    readonly why: 'timeout' | 'aborted' | 'failed',
    message: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/**
 * Sends one request and gathers its answer. Rejects with undici's error, or with one of the errors
 * above when this function ended the exchange itself — at once, whatever the socket does next: the
 * request is stopped (its socket closed, or, not connected yet, never written).
 */
export function exchange(
  dispatcher: Dispatcher,
  req: ExchangeRequest,
  limits: ExchangeLimits,
): Promise<Exchange> {
  const { signal } = req;
  return new Promise<Exchange>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new NotSentError('aborted', 'interrupted before the request was sent', signal.reason));
      return;
    }
    let abort: ((reason: Error) => void) | undefined;
    let done = false;
    let status = 0;
    let rawHeaders: unknown[] = [];
    const chunks: Buffer[] = [];
    let size = 0;

    let unwatch: (() => void) | undefined;
    const finish = () => {
      done = true;
      clearTimeout(timer);
      unwatch?.();
    };
    const fail = (err: Error) => {
      if (done) return;
      finish();
      reject(err);
      // Connected: closes the socket, and with it the download. Not yet: onConnect refuses to send.
      abort?.(err);
    };
    const onAbort = () => {
      const reason = abortReason(signal!);
      fail(abort ? reason : new NotSentError('aborted', 'interrupted before the request was sent', reason));
    };
    const timer = setTimeout(() => {
      fail(
        abort
          ? new ExchangeTimeoutError(`no complete answer within ${limits.timeoutMs} ms`)
          : new NotSentError('timeout', `no connection within ${limits.timeoutMs} ms`),
      );
    }, limits.timeoutMs);
    if (signal) unwatch = whenAborted(signal, onAbort);

    const handler: Dispatcher.DispatchHandler = {
      onConnect(a) {
        if (done) a(new NotSentError('aborted', 'ended before the request was sent'));
        else abort = a;
      },
      onHeaders(statusCode, raw) {
        if (done) return false;
        // 1xx answers are informational; the real answer follows.
        if (statusCode >= 200) {
          status = statusCode;
          rawHeaders = raw;
          const announced = contentLength(raw);
          if (announced !== undefined && announced > limits.maxBytes) {
            fail(new AnswerTooLargeError(limits.maxBytes, announced));
            return false;
          }
        }
        return true;
      },
      onData(chunk) {
        if (done) return false;
        size += chunk.length;
        if (size > limits.maxBytes) {
          fail(new AnswerTooLargeError(limits.maxBytes));
          return false;
        }
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        if (done) return;
        finish();
        resolve({ status, headers: flatHeaders(rawHeaders), body: decodeBody(chunks, size) });
      },
      onError(err) {
        if (done) return;
        finish();
        // A connection that failed before the request was written; otherwise (a reset, a timeout)
        // undici cannot say where it failed, and the caller must assume the request left.
        reject(!abort && connectFailures.has(err) ? new NotSentError('failed', err.message, err) : err);
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body,
          // undici's own gap timeouts stay as a second line; the deadline above comes first.
          headersTimeout: limits.timeoutMs,
          bodyTimeout: limits.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      fail(err as Error);
    }
  });
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('interrupted');
}

/** The Content-Length of raw header pairs, when there is one readable. */
function contentLength(raw: readonly unknown[]): number | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (latin1(raw[i]).toLowerCase() !== 'content-length') continue;
    const n = Number(latin1(raw[i + 1]).trim());
    return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  }
  return undefined;
}

/** Raw header pairs as lower-case names; a repeated header's values joined with `, `. */
function flatHeaders(raw: readonly unknown[]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = latin1(raw[i]).toLowerCase();
    const v = raw[i + 1];
    const value = Array.isArray(v) ? v.map(latin1).join(', ') : latin1(v);
    const seen = flat[name];
    flat[name] = seen === undefined || !Object.hasOwn(flat, name) ? value : `${seen}, ${value}`;
  }
  return flat;
}

function latin1(x: unknown): string {
  return Buffer.isBuffer(x) ? x.toString('latin1') : String(x);
}

/** The body as UTF-8 text, a leading byte-order mark left out (as undici's `body.text()` does). */
function decodeBody(chunks: Buffer[], size: number): string {
  if (size === 0) return '';
  const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  const bom = buf.length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  return buf.toString('utf8', bom ? 3 : 0);
}
