// The one HTTP transport: undici keep-alive pools (one per origin, inside an Agent), proxies from
// the environment, the plain-http guard, the retry policy, what each failure means for the caller,
// and the --verbose/--debug request log. One exchange (its deadline and size cap) is exchange.ts.
// Tests inject an undici MockAgent through `dispatcher`.
// One file at ~450 lines: createTransport is one closure over the pools, the proxies, the rate
// limiter and the log, which every step of a request (dispatch, retry, what a failure means) reads;
// split, each part would take them all as arguments.
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
import {
  ConfigError,
  GatewayError,
  InterruptedError,
  RouteError,
  TransportError,
  UnknownOutcomeError,
  type UnknownOutcomeReason,
} from '../errors.js';
import { redactWireBody } from '../redact.js';
import { userAgent } from '../version.js';
import { type Exchange, exchange, MAX_ANSWER_BYTES, NotSentError } from './exchange.js';
import { proxyClientFactory, proxyEnv, proxyHost, proxyVariable } from './proxy.js';
import { createRateLimiter, UNLIMITED, wakeable } from './rate-limit.js';
import {
  backoffMs,
  classifyFailure,
  DEFAULT_RETRY_POLICY,
  type FailureClass,
  isRefusal,
  REFUSAL_ATTEMPTS,
  type RequestKind,
  type RetryPolicy,
  retryAfterMs,
  retryableFailure,
  retryableStatus,
} from './retry.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export { MAX_ANSWER_BYTES };

/**
 * Where the transport writes its --verbose request lines and --debug bodies. The CLI's Logger
 * (src/io.ts) fits it; declared here so that the gateway depends on nothing of the CLI.
 */
export interface TransportLog {
  verbose(message: string): void;
  /** Given already-redacted text. */
  debug(message: string): void;
  /** False when debug() would print nothing: the bodies are then not redacted at all. */
  readonly debugEnabled?: boolean;
}

export interface TransportOptions {
  /** The whole of one exchange: connecting, the headers and the body (ms). Each attempt has its own. */
  timeoutMs?: number;
  /** The largest answer read (bytes); default MAX_ANSWER_BYTES. */
  maxAnswerBytes?: number;
  allowInsecureHttp?: boolean;
  /** Environment read for HTTPS_PROXY / HTTP_PROXY / NO_PROXY (default: none, so no proxy). */
  env?: NodeJS.ProcessEnv;
  /** Replaces the Agent (tests: undici MockAgent). Not closed by `close()`. */
  dispatcher?: Dispatcher;
  log?: TransportLog;
  retry?: Partial<RetryPolicy>;
  /** Requests per second at most, every attempt of every request counted (--rate); none when absent. */
  rate?: number;
  /** Injected by tests to avoid real waits. Ends early, without failing, when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface TransportRequest {
  /** `https://host:port`, no trailing slash. */
  origin: string;
  /** Path (and query) starting with `/`. */
  path: string;
  method?: 'POST' | 'GET';
  body?: string;
  contentType?: string;
  /** Decides the retry policy: see retry.ts. */
  kind: RequestKind;
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  contentType: string;
  body: string;
  durationMs: number;
  attempts: number;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  /**
   * For a caller that asks a read again on its own (an answer it could not read or trust): the
   * policy's attempts in all, and its wait before retry number `retry` — one retry policy.
   */
  readonly attempts: number;
  pause(retry: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** The headers every request goes with (`payops --dry-run call` prints them as they would be sent). */
export function requestHeaders(contentType: string | undefined, ua = userAgent()): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': ua, accept: '*/*' };
  if (contentType) headers['content-type'] = contentType;
  return headers;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Refuse plain http:// to anything but loopback unless explicitly allowed. */
export function assertSecureOrigin(origin: string, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new ConfigError(`"${origin}" is not a valid gateway URL`, {
      hint: 'set base_url to an https:// address: payops config set base_url https://gateway.example.com',
    });
  }
  if (url.username || url.password) {
    // Named without them: they are a secret, and never sent (requests go to the origin, signed).
    throw new ConfigError(`the gateway URL ${url.host} holds a user and password, which payops never sends`, {
      hint: 'remove "user:password@" from base_url: the sign key authenticates the requests',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`unsupported protocol ${url.protocol} in gateway URL ${origin}`, {
      hint: 'base_url must start with https://',
    });
  }
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(`refusing to send requests over plain http:// to ${url.host}`, {
      hint: 'use an https:// base_url, or pass --allow-insecure-http if the network is trusted',
    });
  }
  return url;
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 first compiles it with its baseline
 * compiler (Liftoff), then re-compiles the hot parser with TurboFan in a background thread, which
 * for llhttp's large state machine takes ~25 MB for a moment — a fifth of a bulk run's peak RSS.
 * Baseline code parses our answers (a few KB each) fast enough: CPU of a 100k-refund run is
 * unchanged within noise. Set before undici compiles the parser (its first connection); it only
 * affects WebAssembly compiled afterwards, and payops compiles no other.
 */
function keepWasmBaseline(): void {
  setFlagsFromString('--liftoff-only');
}

export async function createTransport(opts: TransportOptions = {}): Promise<Transport> {
  if (!opts.dispatcher) keepWasmBaseline();
  const undici = await import('../undici.js');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const limits = { timeoutMs, maxBytes: opts.maxAnswerBytes ?? MAX_ANSWER_BYTES };
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  const sleep = opts.sleep ?? wakeable;
  const random = opts.random ?? Math.random;
  const limiter = createRateLimiter(opts.rate);
  const log = opts.log;
  // Redacting bodies costs as much as signing them: do it only when --debug will print it.
  const debugLog = log && log.debugEnabled !== false ? log : undefined;
  const ua = userAgent();
  const agentOptions = {
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Below the usual 5 s server keep-alive, so we do not send on a socket the server is closing
    // (for a money-moving request that would be an unknown outcome).
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 4_000,
  };
  const proxies = proxyEnv(opts.env ?? {});
  const owned: Dispatcher[] = [];
  let direct: Dispatcher | undefined;
  let proxied: Dispatcher | undefined;
  // Checked once per origin: the per-request cost is one Map lookup.
  const dispatcherByOrigin = new Map<string, Dispatcher>();

  function dispatcherFor(origin: string): Dispatcher {
    const known = dispatcherByOrigin.get(origin);
    if (known) return known;
    const url = assertSecureOrigin(origin, Boolean(opts.allowInsecureHttp));
    let d: Dispatcher;
    if (opts.dispatcher) d = opts.dispatcher;
    else if (!isLoopbackHost(url.hostname) && (proxies.httpProxy || proxies.httpsProxy)) {
      for (const name of ['HTTPS_PROXY', 'HTTP_PROXY'] as const) {
        const value = name === 'HTTPS_PROXY' ? proxies.httpsProxy : proxies.httpProxy;
        // undici would throw a bare "Invalid URL"; the value itself may hold a password: not shown.
        if (value && !proxyHost(value)) {
          throw new ConfigError(`${name} is not a valid proxy URL`, {
            hint: `set it as http://host:port (or http://user:password@host:port); ${name.toLowerCase()} is read too`,
          });
        }
      }
      proxied ??= new undici.EnvHttpProxyAgent({
        ...agentOptions,
        ...proxies,
        clientFactory: proxyClientFactory(undici.Client, timeoutMs),
      });
      owned.push(proxied);
      d = proxied;
    } else {
      // The loopback sandbox is never reached through a proxy.
      direct ??= new undici.Agent(agentOptions);
      owned.push(direct);
      d = direct;
    }
    dispatcherByOrigin.set(origin, d);
    return d;
  }

  function once(req: TransportRequest, dispatcher: Dispatcher): Promise<Exchange> {
    const headers = requestHeaders(req.contentType, ua);
    return exchange(
      dispatcher,
      {
        origin: req.origin,
        path: req.path,
        method: req.method ?? 'POST',
        headers,
        body: req.body ?? null,
        signal: req.signal,
      },
      limits,
    );
  }

  async function request(req: TransportRequest): Promise<TransportResponse> {
    const dispatcher = dispatcherFor(req.origin);
    const method = req.method ?? 'POST';
    if (debugLog && req.body !== undefined)
      debugLog.debug(`> ${method} ${req.path} ${redactWireBody(req.body, req.contentType)}`);
    const started = performance.now();
    // Attempts answered 429: counted apart from failures, on their own budget (retry.ts).
    let refused = 0;
    for (let attempt = 1; ; attempt++) {
      // Stopped between attempts: this attempt sends nothing, and earlier ones never reached the server.
      if (req.signal?.aborted) throw new InterruptedError('interrupted before the request was sent');
      // Without --rate, no wait: the per-attempt path stays as it was.
      if (limiter !== UNLIMITED) {
        try {
          await limiter.take(req.signal);
        } catch (err) {
          throw new InterruptedError('interrupted before the request was sent', { cause: err });
        }
      }
      const attemptStarted = performance.now();
      let failure: FailureClass | undefined;
      let cause: unknown;
      let res: Exchange | undefined;
      try {
        res = await once(req, dispatcher);
      } catch (err) {
        // Interrupted before a connection carried it: not sent, whatever kind of request.
        if (err instanceof NotSentError && err.why === 'aborted')
          throw new InterruptedError('interrupted before the request was sent', { cause: err });
        cause = err;
        failure = req.signal?.aborted ? { kind: 'aborted' } : classifyFailure(err);
        if (failure.kind === 'neverSent' && failure.closed && dispatcher === proxied)
          failure = { kind: 'neverSent', what: closedThroughProxy(req) };
      }
      const ms = Math.round(performance.now() - attemptStarted);
      const canRetry = attempt - refused < policy.maxAttempts;

      if (res) {
        log?.verbose(
          `${method} ${req.path} → ${res.status} (${ms} ms${attempt > 1 ? `, attempt ${attempt}` : ''})`,
        );
        if (debugLog)
          debugLog.debug(`< ${res.status} ${redactWireBody(res.body, res.headers['content-type'])}`);
        if (isRefusal(res.status) && retryableStatus(res.status, req.kind)) {
          // A refusal: not processed, whatever the kind of request but raw (retry.ts).
          refused++;
          if (refused >= REFUSAL_ATTEMPTS) {
            throw new GatewayError(
              `the gateway refused ${req.path} ${refused} times as too many requests (HTTP 429); it was not processed`,
              { status: 429, hint: 'lower --rate or --concurrency, or try again in a minute' },
            );
          }
          const wait = retryAfterMs(res.headers['retry-after'], policy) ?? backoffMs(refused, policy, random);
          log?.verbose(`retrying ${req.path} in ${wait} ms (HTTP 429: refused, not processed)`);
          await sleep(wait, req.signal);
          continue;
        }
        if (retryableStatus(res.status, req.kind) && canRetry) {
          const wait =
            retryAfterMs(res.headers['retry-after'], policy) ?? backoffMs(attempt - refused, policy, random);
          log?.verbose(`retrying ${req.path} in ${wait} ms (HTTP ${res.status})`);
          await sleep(wait, req.signal);
          continue;
        }
        if (res.status >= 500 && req.kind !== 'raw') {
          if (req.kind === 'moneyMoving') {
            throw unknownOutcome(req, 'http_5xx', `the gateway answered HTTP ${res.status}`);
          }
          throw new GatewayError(
            `the gateway answered HTTP ${res.status} to ${req.path} (after ${attempt} attempts)`,
            {
              status: res.status,
              hint: 'the gateway may be down or overloaded: try again in a few minutes',
            },
          );
        }
        return {
          status: res.status,
          headers: res.headers,
          contentType: res.headers['content-type'] ?? '',
          body: res.body,
          durationMs: Math.round(performance.now() - started),
          attempts: attempt,
        };
      }

      const f = failure as FailureClass;
      log?.verbose(`${method} ${req.path} failed: ${describe(f, cause)} (${ms} ms)`);
      if (retryableFailure(f, req.kind) && canRetry) {
        const wait = backoffMs(attempt - refused, policy, random);
        log?.verbose(`retrying ${req.path} in ${wait} ms`);
        await sleep(wait, req.signal);
        continue;
      }
      throw finalError(req, f, cause, attempt);
    }
  }

  function describe(f: FailureClass, cause: unknown): string {
    if (f.kind === 'neverSent') return f.what;
    if (f.kind === 'timeout') return `no complete answer within ${timeoutMs} ms (--timeout)`;
    if (f.kind === 'aborted') return 'interrupted';
    if (f.kind === 'proxyAuth') return 'the proxy asked for authentication (HTTP 407)';
    if (f.kind === 'tooLarge') {
      const cap = formatBytes(f.limit);
      return f.announced === undefined
        ? `an answer larger than ${cap} (cut off there)`
        : `an answer announced at ${formatBytes(f.announced)}, larger than ${cap} (not read)`;
    }
    return `connection lost (${cause instanceof Error ? cause.message : String(cause)})`;
  }

  function unknownOutcome(
    req: TransportRequest,
    reason: UnknownOutcomeReason,
    what: string,
    cause?: unknown,
  ) {
    return new UnknownOutcomeError(
      `${what} for ${req.path}: the request may or may not have been processed`,
      reason,
      {
        cause,
        hint: 'do not send it again blindly: look the orders up with `payops query` first (a bulk run reconciles with `payops runs resume`)',
      },
    );
  }

  function finalError(req: TransportRequest, f: FailureClass, cause: unknown, attempts: number): Error {
    if (f.kind === 'proxyAuth') return proxyAuthError(req, cause);
    if (f.kind === 'neverSent') {
      return new TransportError(`could not reach ${req.origin}: ${f.what} (${attempts} attempts)`, {
        cause,
        hint: 'check base_url (payops config get base_url), the network and any HTTPS_PROXY setting; nothing was sent',
      });
    }
    if (req.kind === 'readOnly') {
      if (f.kind === 'aborted') return new InterruptedError('interrupted', { cause });
      return new GatewayError(
        `${describe(f, cause)} from ${req.origin}${req.path} (after ${attempts} attempts)`,
        {
          cause,
          // Slow failures, each attempt a whole --timeout: named so that no caller retries them again.
          ...(f.kind === 'timeout'
            ? { code: 'timeout' }
            : f.kind === 'tooLarge'
              ? { code: 'too_large' }
              : {}),
          hint:
            f.kind === 'timeout'
              ? 'raise --timeout, or try again later'
              : f.kind === 'tooLarge'
                ? 'gateway answers are a few KB: check base_url (payops config get base_url), or try again later'
                : 'try again later',
        },
      );
    }
    // A garbled answer, as far as the money goes: the request may have been processed.
    const reason: UnknownOutcomeReason =
      f.kind === 'timeout'
        ? 'timeout'
        : f.kind === 'aborted'
          ? 'aborted'
          : f.kind === 'tooLarge'
            ? 'too_large'
            : 'reset';
    return unknownOutcome(req, reason, describe(f, cause), cause);
  }

  /**
   * The proxy refused to open the tunnel until it is given credentials: nothing reached the
   * gateway. Names the proxy by host and port only, and the variable to put credentials in.
   */
  /** A tunnel closed before the request went in: the proxy or the gateway behind it closed it. */
  function closedThroughProxy(req: TransportRequest): string {
    const variable = proxyVariable(new URL(req.origin), proxies);
    const proxy = proxyHost(variable === 'HTTPS_PROXY' ? proxies.httpsProxy : proxies.httpProxy);
    return `the connection through the proxy at ${proxy?.host ?? variable} closed before the request was sent`;
  }

  function proxyAuthError(req: TransportRequest, cause: unknown): Error {
    const url = new URL(req.origin);
    const variable = proxyVariable(url, proxies);
    const proxy = proxyHost(variable === 'HTTPS_PROXY' ? proxies.httpsProxy : proxies.httpProxy);
    const at = proxy ? ` at ${proxy.host}` : '';
    return new RouteError(
      proxy?.withCredentials
        ? `the proxy${at} refused the credentials in ${variable} (HTTP 407 Proxy Authentication Required); nothing was sent to ${url.host}`
        : `the proxy${at} asked for authentication (HTTP 407 Proxy Authentication Required); nothing was sent to ${url.host}`,
      'HTTP 407',
      {
        cause,
        hint: proxy?.withCredentials
          ? `check the user and password in ${variable} (http://user:password@host:port, special characters %-encoded), or ask your network administrator`
          : `put the proxy's user and password in ${variable}: ${variable}=http://user:password@${proxy?.host ?? 'host:port'} (special characters %-encoded), or ask your network administrator which proxy to use`,
      },
    );
  }

  return {
    request,
    attempts: policy.maxAttempts,
    pause: (retry, signal) => sleep(backoffMs(retry, policy, random), signal),
    async close() {
      const all = [...new Set(owned)];
      owned.length = 0;
      dispatcherByOrigin.clear();
      await Promise.all(all.map((d) => d.close().catch(() => undefined)));
    },
  };
}

/** A byte count as a person reads it: `4 MiB`, `600 MiB`, `900 KiB`. */
function formatBytes(n: number): string {
  const MiB = 1024 * 1024;
  if (n >= MiB) return `${Math.round((n / MiB) * 10) / 10} MiB`;
  return `${Math.round(n / 1024)} KiB`;
}
