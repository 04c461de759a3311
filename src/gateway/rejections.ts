// What a refusal from the gateway means, as typed errors: E1001/E1002/E1003 are the credentials or
// the caller's IP (AuthError, with what to do about each), a whole request refused with
// return_status 0 is a GatewayRejectedError, and any other non-2xx answer a GatewayError.
import { AuthError, GatewayError, GatewayRejectedError } from '../errors.js';
import { quote } from '../quote.js';
import type { TransportResponse } from './transport.js';
import { splitCodedMessage } from './types.js';

const AUTH_CODES = new Set(['E1001', 'E1002', 'E1003']);

/** The code and text of a gateway error body: `{code,message}` or `{return_status:"0",return_message}`. */
export function errorOfBody(body: unknown): { code: string | undefined; text: string } | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.code === 'string') {
    return { code: b.code, text: typeof b.message === 'string' ? b.message : '' };
  }
  if (typeof b.return_message === 'string') return splitCodedMessage(b.return_message);
  if (typeof b.result_info === 'string') return splitCodedMessage(b.result_info);
  return undefined;
}

const IP_PATTERN = /(\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})/i;

/** AuthError for E1001/E1002/E1003, with what to do about each. */
export function authError(
  code: string,
  text: string,
  who: { merchantId: string; accountId: string },
): AuthError {
  switch (code) {
    case 'E1003': {
      const ip = IP_PATTERN.exec(text)?.[1];
      return new AuthError(
        `the gateway refused this machine's IP address${ip ? ` ${ip}` : ''} (E1003: ${text ? quote(text) : 'caller IP not registered'})`,
        code,
        {
          hint: `the query endpoints only answer registered IP addresses: ask the gateway to register ${ip ?? "this machine's public IP address"} for merchant ${who.merchantId}, or run payops from a registered host`,
        },
      );
    }
    case 'E1002':
      return new AuthError(
        `the gateway does not know merchant ${who.merchantId} / account ${who.accountId} (E1002${text ? `: ${quote(text)}` : ''})`,
        code,
        {
          hint: 'check merchant_id and account_id: payops config get merchant_id, payops config set account_id …',
        },
      );
    default:
      return new AuthError(
        `the gateway rejected the request signature (${code}${text ? `: ${quote(text)}` : ''})`,
        code,
        {
          hint: "the sign key does not match the gateway's: set the right one with `payops config set sign_key` (it is read from a prompt) or PAYOPS_SIGN_KEY",
        },
      );
  }
}

export function authRejection(
  body: unknown,
  who: { merchantId: string; accountId: string },
): AuthError | undefined {
  const e = errorOfBody(body);
  if (e?.code && AUTH_CODES.has(e.code)) return authError(e.code, e.text, who);
  return undefined;
}

export function rejection(
  res: TransportResponse,
  path: string,
  who: { merchantId: string; accountId: string },
): Error {
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  const auth = authRejection(body, who);
  if (auth) return auth;
  const e = errorOfBody(body);
  if (res.status === 401 || res.status === 403) {
    return new AuthError(
      `the gateway refused access to ${path} (HTTP ${res.status}${e ? `: ${e.code ?? ''} ${quote(e.text)}` : ''})`,
      e?.code,
      {
        hint: 'check merchant_id, account_id and sign_key of the profile (payops config list)',
      },
    );
  }
  const text = e
    ? `${e.code ? `${e.code}: ` : ''}${quote(e.text)}`
    : res.body.trim() !== ''
      ? quote(res.body.trim().slice(0, 200))
      : 'no details';
  return new GatewayError(`the gateway rejected the request to ${path} (HTTP ${res.status}: ${text})`, {
    status: res.status,
    ...(e?.code ? { code: e.code } : {}),
    hint:
      res.status === 429
        ? 'wait a minute, or lower --concurrency'
        : 'fix the request as the message says, then try again',
  });
}

/**
 * Throws unless a 200 body was accepted as a whole: return_status `0` with E1001/E1002/E1003 is an
 * AuthError, any other return_status `0` a GatewayRejectedError carrying the code.
 */
export function assertAccepted(
  data: unknown,
  who: { merchantId: string; accountId: string } = { merchantId: '?', accountId: '?' },
): void {
  if (!data || typeof data !== 'object') return;
  const d = data as Record<string, unknown>;
  if (String(d.return_status ?? '1') !== '0') return;
  const e = errorOfBody(d) ?? { code: undefined, text: 'no reason given' };
  if (e.code && AUTH_CODES.has(e.code)) throw authError(e.code, e.text, who);
  throw new GatewayRejectedError(
    `the gateway rejected the whole request (${e.code ? `${e.code}: ` : ''}${quote(e.text)})`,
    {
      ...(e.code ? { code: e.code } : {}),
      hint: 'nothing in this request was processed; fix what the message says and send it again',
    },
  );
}
