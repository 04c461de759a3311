// Proxies from the environment: which variable applies, how a proxy may be shown (never its
// password), and the client undici's ProxyAgent opens its CONNECT tunnels with.
import type { Client, Dispatcher } from 'undici';

export interface ProxyEnv {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

export function proxyEnv(env: NodeJS.ProcessEnv): ProxyEnv {
  const pick = (name: string) => env[name] ?? env[name.toLowerCase()] ?? '';
  return { httpProxy: pick('HTTP_PROXY'), httpsProxy: pick('HTTPS_PROXY'), noProxy: pick('NO_PROXY') };
}

/** The variable whose proxy undici's EnvHttpProxyAgent uses for this URL (same order as undici). */
export function proxyVariable(url: URL, proxies: ProxyEnv): 'HTTPS_PROXY' | 'HTTP_PROXY' {
  return url.protocol === 'https:' && proxies.httpsProxy ? 'HTTPS_PROXY' : 'HTTP_PROXY';
}

/** A proxy URL as it may be shown: host and port only — never the user and password it may hold. */
export function proxyHost(value: string): { host: string; withCredentials: boolean } | undefined {
  try {
    const u = new URL(value);
    return { host: u.host, withCredentials: u.username !== '' || u.password !== '' };
  } catch {
    return undefined;
  }
}

/** The proxy closed the connection before it opened the tunnel: nothing reached the gateway. */
export class ProxyClosedError extends Error {
  readonly code = 'PAYOPS_PROXY_CLOSED';
  constructor(
    readonly proxy: string,
    cause: unknown,
  ) {
    super(`the proxy at ${proxy} closed the connection`, { cause });
  }
}

/** Socket errors of a CONNECT the proxy ended (closed or reset) instead of answering. */
const CLOSED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * ProxyAgent's `clientFactory`: the client to the proxy, whose failed CONNECT is re-labelled.
 * ProxyAgent hands that failure, a "socket closed" error, to the gateway's pool, which takes such
 * an error for a dropped idle socket and connects again at once, keeping the request queued: a
 * proxy that accepted and closed every connection got ~1,200 a second until the deadline. Another
 * error code ends the queued request, so each attempt of the retry policy opens one tunnel.
 */
export function proxyClientFactory(
  ClientClass: typeof Client,
  timeoutMs: number,
): (origin: URL, opts: object) => Dispatcher {
  return (origin, opts) => {
    // The CONNECT gets the transport's timeouts, not undici's 300 s: a silent proxy is not waited on
    // (nor is closing the transport) after the exchange's deadline has given up on it.
    const client = new ClientClass(origin, { ...opts, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const connect = client.connect.bind(client) as (
      o: Dispatcher.ConnectOptions,
    ) => Promise<Dispatcher.ConnectData>;
    // ProxyAgent uses the promise form only.
    (client as { connect: unknown }).connect = (o: Dispatcher.ConnectOptions) =>
      connect(o).catch((err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        throw typeof code === 'string' && CLOSED_CODES.has(code)
          ? new ProxyClosedError(origin.host, err)
          : err;
      });
    return client;
  };
}
