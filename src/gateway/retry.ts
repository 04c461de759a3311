// The retry policy, written once. A request may be retried only when it certainly never reached the
// server (connection refused, DNS, TLS, connect timeout); a read-only operation may also be retried
// after a timeout, a reset, a 5xx or a 429. A money-moving one never is, once its bytes may have left.

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

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export type FailureClass =
  | { kind: 'neverSent'; what: string }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'aborted' };

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
  const code = errorCode(err);
  const name = err instanceof Error ? err.name : '';
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

/** Whether an HTTP status may be retried for this kind of request. */
export function retryableStatus(status: number, kind: RequestKind): boolean {
  return kind === 'readOnly' && (status >= 500 || status === 429);
}

/** Whether a failure may be retried for this kind of request. */
export function retryableFailure(failure: FailureClass, kind: RequestKind): boolean {
  if (failure.kind === 'neverSent') return true;
  if (failure.kind === 'aborted') return false;
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
