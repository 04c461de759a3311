// The retry policy, written once. A request may be retried only when it certainly never reached the
// server (connection refused, DNS, TLS, connect timeout); a read-only operation may also be retried
// after a timeout, a reset, an answer too large or a 5xx. A money-moving one never is, once its bytes
// may have left — with one exception: a REFUSAL. HTTP 429 (too many requests) and `E9001`
// (temporarily unavailable, a whole-request answer with no per-order result) mean the gateway turned
// the request away without processing it: it was definitely not processed, so any request, money-moving
// included, is sent again after a wait (Retry-After when given, else backoff with jitter), on a budget
// of its own (REFUSAL_ATTEMPTS). The transport does this for 429; a bulk run (src/bulk/engine/protocol.ts)
// re-sends a chunk refused with E9001 or past that budget. A 5xx without such an answer is not a
// refusal: a money-moving request then has an unknown outcome, settled by asking (never re-sent blindly).
// A proxy asking for credentials is never retried: it would ask again.
import { AnswerTooLargeError, NotSentError } from './exchange.js';

export type RequestKind = 'moneyMoving' | 'readOnly' | 'raw';

export interface RetryPolicy {
  /** Attempts in total, the first included. */
  maxAttempts: number;
  /** Backoff base: the n-th retry waits a random time in [base·2ⁿ⁻¹/2, base·2ⁿ⁻¹]. */
  baseDelayMs: number;
  /** Ceiling of any single wait, Retry-After included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 10_000 };

/**
 * Attempts in total for a request the gateway keeps refusing (429), counted apart from failures:
 * a rate limit is ordinary, and each wait grows (200 ms … 10 s) or is the gateway's Retry-After.
 */
export const REFUSAL_ATTEMPTS = 8;

/** HTTP 429 or a whole-request `E9001`: turned away unprocessed (see the header). */
export function isRefusal(status: number | undefined, code?: string): boolean {
  return status === 429 || code === 'E9001';
}

/** Error codes of failures that happen before a single request byte can reach the server. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CONNECT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
]);

const TIMEOUT_CODES = new Set([
  'PAYOPS_EXCHANGE_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

export type FailureClass =
  /** `closed`: a connection closed before the request was written (a proxy may name itself). */
  | { kind: 'neverSent'; what: string; closed?: true }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'tooLarge'; limit: number; announced?: number }
  | { kind: 'proxyAuth' }
  | { kind: 'aborted' };

/**
 * undici's ProxyAgent ends a tunnel the proxy refused (CONNECT answered other than 200) with a
 * RequestAbortedError — the very error of an interruption, told apart only by this message. It
 * once made a proxy's 407 read as Ctrl-C (exit 130, rows "interrupted").
 */
const PROXY_REFUSED = /^Proxy response \((\d{3})\) !== 200/;

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  // undici sometimes wraps the socket error: look one or two causes deep.
  for (let depth = 0; depth < 3 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Classify a failure thrown by the HTTP layer (no response received). */
export function classifyFailure(err: unknown): FailureClass {
  if (err instanceof AnswerTooLargeError) {
    return {
      kind: 'tooLarge',
      limit: err.limit,
      ...(err.announced === undefined ? {} : { announced: err.announced }),
    };
  }
  if (err instanceof NotSentError) {
    if (err.why === 'timeout') return { kind: 'neverSent', what: 'connection timed out' };
    if (err.why === 'aborted') return { kind: 'aborted' };
    // The connection failed before the request was written: whatever undici made of it, not sent.
    const f = classifyFailure(err.cause);
    if (f.kind === 'neverSent' || f.kind === 'proxyAuth' || f.kind === 'aborted') return f;
    return { kind: 'neverSent', what: 'the connection closed before the request was sent', closed: true };
  }
  const code = errorCode(err);
  const name = err instanceof Error ? err.name : '';
  const proxy = err instanceof Error ? PROXY_REFUSED.exec(err.message) : null;
  if (proxy) {
    // The tunnel was refused: nothing reached the gateway. 407 wants credentials; another status
    // (502, 503 …) may pass, like any connection that could not be made.
    if (proxy[1] === '407') return { kind: 'proxyAuth' };
    return { kind: 'neverSent', what: `the proxy refused the connection (HTTP ${proxy[1]})` };
  }
  if (code === 'PAYOPS_PROXY_CLOSED' && err instanceof Error) return { kind: 'neverSent', what: err.message };
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return { kind: 'aborted' };
  if (code && (NEVER_SENT_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) {
    return { kind: 'neverSent', what: describeNeverSent(code) };
  }
  if (code && TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
  return { kind: 'reset' };
}

function describeNeverSent(code: string): string {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code.startsWith('EAI_') || code === 'ENOTFOUND') return 'host name not found (DNS)';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL')
    return 'host unreachable';
  return `TLS failure (${code})`;
}

/**
 * Whether an HTTP status may be retried for this kind of request. 429 is a refusal, retried for
 * every kind but `raw` (`payops call` shows the answer as it came).
 */
export function retryableStatus(status: number, kind: RequestKind): boolean {
  if (status === 429) return kind !== 'raw';
  return kind === 'readOnly' && status >= 500;
}

/** Whether a failure may be retried for this kind of request. */
export function retryableFailure(failure: FailureClass, kind: RequestKind): boolean {
  if (failure.kind === 'neverSent') return true;
  if (failure.kind === 'aborted' || failure.kind === 'proxyAuth') return false;
  return kind === 'readOnly';
}

/** Full-ish jitter: half fixed, half random, so retries of many clients spread out. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** `Retry-After` (seconds or an HTTP date) in ms, capped; undefined when absent or unreadable. */
export function retryAfterMs(
  header: string | undefined,
  policy: RetryPolicy,
  now: number = Date.now(),
): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  let ms: number | undefined;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (!Number.isNaN(at)) ms = Math.max(0, at - now);
  }
  return ms === undefined ? undefined : Math.min(ms, policy.maxDelayMs);
}
