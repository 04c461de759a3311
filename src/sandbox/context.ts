// What every handler of the sandbox works with: the store, the demo accounts, the signer and the
// replies it builds. One instance per running sandbox; nothing here is module state.
import { createSigner, type Signer } from '../gateway/signer.js';
import { SANDBOX_AUTO_CAPTURE_ACCOUNT, SANDBOX_CREDENTIALS } from './accounts.js';
import { SandboxClock } from './clock.js';
import { type CurrencyDigits, codedMessage, Rejection, requiredString } from './fields.js';
import type { NotifyEvent } from './notify-queue.js';
import type { Store } from './store.js';

export interface Account {
  readonly autoCapture: boolean;
}

export interface SandboxContext {
  readonly store: Store;
  readonly currencies: CurrencyDigits;
  readonly signer: Signer;
  readonly merchantId: string;
  readonly accounts: ReadonlyMap<string, Account>;
  /** Callers allowed on the query endpoint, normalised (see normaliseIp). */
  registeredIps: Set<string>;
  /** Base URL once listening; used for issuer_url and the checkout form. */
  baseUrl: string;
  /** The sandbox's one clock (shifted by POST /_sandbox/clock); `now()` reads it. */
  readonly clock: SandboxClock;
  /** Epoch ms on the sandbox's clock: every timestamp the sandbox writes comes from here. */
  now(): number;
  /** Where events go once made (the delivery queue, set by the server; none: no events made). */
  notify?: ((event: NotifyEvent) => void) | undefined;
}

export function createSandboxContext(
  store: Store,
  currencies: CurrencyDigits,
  registeredIps: readonly string[],
  clock: SandboxClock = new SandboxClock(),
): SandboxContext {
  return {
    store,
    currencies,
    signer: createSigner(SANDBOX_CREDENTIALS.signKey),
    merchantId: SANDBOX_CREDENTIALS.merchantId,
    accounts: new Map<string, Account>([
      [SANDBOX_CREDENTIALS.accountId, { autoCapture: false }],
      [SANDBOX_AUTO_CAPTURE_ACCOUNT, { autoCapture: true }],
    ]),
    registeredIps: new Set(registeredIps.map(normaliseIp)),
    baseUrl: '',
    clock,
    now: () => clock.now(),
  };
}

/** `::ffff:127.0.0.1` is 127.0.0.1 reached over an IPv6 socket: compare them as one. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip.toLowerCase();
}

export function isLoopback(ip: string): boolean {
  const n = normaliseIp(ip);
  return n === '::1' || n.startsWith('127.');
}

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';

export function jsonReply(value: unknown, status = 200): Reply {
  return { status, contentType: JSON_TYPE, body: JSON.stringify(value) };
}

/** `{"code":"E…","message":"…"}`: the error body of the APM and checkout endpoints and the admin API. */
export function errorReply(
  rejection: Rejection,
  status = rejection.status === 200 ? 400 : rejection.status,
): Reply {
  return jsonReply({ code: rejection.code, message: rejection.message }, status);
}

/** Sign `body` in place: its `encryption_data` (kept where the caller put it) over everything else. */
export function signInPlace<T extends Record<string, unknown>>(ctx: SandboxContext, body: T): T {
  (body as Record<string, unknown>).encryption_data = ctx.signer.sign(body);
  return body;
}

/**
 * Check the credentials of a request (design.md §1.7, §1.3): E1005 when one is missing, E1002 for
 * an unknown merchant or account, E1001 for a wrong signature. Returns the account.
 */
export function authenticate(ctx: SandboxContext, body: Record<string, unknown>): Account {
  for (const field of ['merchant_id', 'account_id', 'encryption_data'] as const) {
    const problem = requiredString(body[field]);
    if (problem) throw new Rejection('E1005', `${field} ${problem}`);
  }
  const account =
    body.merchant_id === ctx.merchantId ? ctx.accounts.get(body.account_id as string) : undefined;
  if (!account) throw new Rejection('E1002');
  if (!ctx.signer.verify(body, body.encryption_data as string)) throw new Rejection('E1001');
  return account;
}

export { codedMessage };
