// Who the money moves at, as recorded in a run's header and compared by the re-run guard, resume
// and the input lock: the gateway's base URL, merchant and account, by what they mean rather than
// how they were typed. `HTTP://LocalHost:80/v1/` and `http://localhost/v1` are one gateway; another
// path, host, port, merchant or account is another. The loopback names are one host: `localhost`,
// `*.localhost`, `127.0.0.0/8`, `::1` and the any-address `0.0.0.0` / `::` reach the same machine, and two runs at once at
// `127.0.0.1:P` and `localhost:P` took two operation locks and refunded shared orders twice. Other
// names are not resolved (DNS at lock time would make the identity depend on the network).
import { randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config/resolve.js';

const SEP = '|';

/**
 * A base URL by meaning: scheme and host lower-cased, the scheme's default port dropped (http 80,
 * https 443: so `:443` and no port are the same), no trailing slash, no user info or fragment. The
 * path keeps its case (servers may tell `/V1` from `/v1`). Text that is not a URL is only trimmed
 * and loses its trailing slashes — nothing can have been sent to it.
 */
export function normaliseBaseUrl(url: string): string {
  const text = url.trim();
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return text.replace(/\/+$/, '');
  }
  // WHATWG URL parsing lower-cases the scheme and host and leaves `port` empty for the default one.
  const host = isLoopbackHost(u.hostname) ? `localhost${u.port ? `:${u.port}` : ''}` : u.host;
  return `${u.protocol}//${host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
}

/**
 * A host name that always means this machine (RFC 6761 `localhost`, the 127/8 block, IPv6 `::1` and
 * its IPv4-mapped form), as WHATWG URL parsing spells it: lower-cased, `[::1]` bracketed, a
 * trailing dot kept.
 */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(h) ||
    h === '[::1]' ||
    h === '[::ffff:7f00:1]' ||
    // "Any address": a connection to it reaches this machine (Linux, macOS), so it is loopback too.
    h === '0.0.0.0' ||
    h === '[::]'
  );
}

function identityOf(baseUrl: string, merchantId: string, accountId: string): string {
  return [normaliseBaseUrl(baseUrl), merchantId.trim(), accountId.trim()].join(SEP);
}

/**
 * An identity string in its normal form: `URL|merchant|account`, then whatever follows unchanged (an
 * in-process sandbox's per-process suffix). Headers written before identities were normalised hold
 * the URL as it was typed; reading them through this makes them compare equal to today's.
 */
export function normaliseIdentity(identity: string): string {
  const [url = '', merchant = '', account = '', ...rest] = identity.split(SEP);
  return [identityOf(url, merchant, account), ...rest].join(SEP);
}

/** Whether two recorded identities name the same gateway, merchant and account. Undefined never matches. */
export function sameGateway(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return a === b || normaliseIdentity(a) === normaliseIdentity(b);
}

function baseIdentity(config: ResolvedConfig): string {
  return identityOf(config.baseUrl, config.merchantId, config.accountId);
}

/** Bulk runs: an in-process sandbox is a new gateway every process, so its runs never match. */
export function gatewayIdentity(config: ResolvedConfig): string {
  return config.sandbox
    ? `${baseIdentity(config)}${SEP}in-process-sandbox:${process.pid}-${randomBytes(4).toString('hex')}`
    : baseIdentity(config);
}

/**
 * Payout runs: undefined where no earlier run can be the same gateway (an in-process sandbox started
 * by --sandbox or for lack of configuration), so no request_id is reused there.
 */
export function payoutGatewayIdentity(config: ResolvedConfig): string | undefined {
  if (config.sandbox && (config.sandboxReason === 'flag' || config.sandboxReason === 'unconfigured'))
    return undefined;
  return baseIdentity(config);
}
