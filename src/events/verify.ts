// Is a request body an event of this merchant, signed with its key (design §1.1, §1.9)? Pure: the
// answer listen gives the sender, and what `events show` says of a stored event.
import { createSigner, type SignableBody } from '../gateway/signer.js';
import type { GatewayEvent } from './journal.js';

export interface Expected {
  merchantId: string;
  accountId: string;
  signKey: string;
}

export type Verdict =
  | { ok: true; event: GatewayEvent }
  /** status: the HTTP answer listen gives; reason: its warning line's words. */
  | { ok: false; status: 400 | 401 | 403; reason: string };

const EVENT_ID = /^[\x21-\x7e]{1,128}$/;

/** The verdict on a body; the signature is checked before anything it says is believed. */
export function verifyEvent(body: string, expected: Expected): Verdict {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, status: 400, reason: 'the body is not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, status: 400, reason: 'the body is not a JSON object' };
  }
  const obj = value as Record<string, unknown>;
  const signature = obj.encryption_data;
  if (typeof signature !== 'string' || signature === '') {
    return { ok: false, status: 401, reason: 'no signature (encryption_data)' };
  }
  let good: boolean;
  try {
    good = createSigner(expected.signKey).verify(obj as SignableBody, signature);
  } catch {
    good = false;
  }
  if (!good) return { ok: false, status: 401, reason: 'bad signature' };
  if (obj.merchant_id !== expected.merchantId || obj.account_id !== expected.accountId) {
    return {
      ok: false,
      status: 403,
      reason: `for merchant ${String(obj.merchant_id)} account ${String(obj.account_id)}, not this profile's`,
    };
  }
  const { event_id, event_type, created_at, data } = obj;
  if (typeof event_id !== 'string' || !EVENT_ID.test(event_id)) {
    return { ok: false, status: 400, reason: 'no event_id' };
  }
  if (typeof event_type !== 'string' || event_type === '')
    return { ok: false, status: 400, reason: 'no event_type' };
  if (typeof created_at !== 'string') return { ok: false, status: 400, reason: 'no created_at' };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, status: 400, reason: 'no data object' };
  }
  return { ok: true, event: obj as unknown as GatewayEvent };
}
