// Does the gateway answer, does it accept this profile's key, and does it accept query calls from
// this machine? Two signed read-only look-ups of an order number no one uses: refund search, which
// any caller may use (its refusal says whether the key and the merchant are right: E1001, E1002),
// then query, which the gateway only answers for registered IP addresses (E1003). Neither can move
// money. Used by `payops status` and at the end of `payops config init`.
import { AuthError, PayopsError, TransportError } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import { assertAccepted } from '../gateway/rejections.js';

/** An order number no merchant has: the look-ups find nothing, whatever the account. */
const PROBE_ORDER = 'PAYOPS-STATUS-CHECK';

export type CheckResult = 'yes' | 'no' | 'not checked';

export interface GatewayCheck {
  /** The gateway answered at all (any HTTP answer). */
  answers: CheckResult;
  /** It accepted the signature, merchant and account (no E1001/E1002). */
  keyAccepted: CheckResult;
  /** It answered a query from this machine (no E1003). */
  queryAllowed: CheckResult;
  /** What went wrong, in the words payops uses elsewhere, and what to do. */
  problem?: { message: string; hint?: string; code?: string };
  /** Round trip of the first look-up, ms. */
  ms?: number;
}

function problemOf(err: unknown): NonNullable<GatewayCheck['problem']> {
  const message = err instanceof Error ? err.message : String(err);
  const hint = err instanceof PayopsError ? err.hint : undefined;
  const code = err instanceof AuthError ? err.code : undefined;
  return { message, ...(hint ? { hint } : {}), ...(code ? { code } : {}) };
}

export async function checkGateway(client: GatewayClient): Promise<GatewayCheck> {
  const check: GatewayCheck = {
    answers: 'not checked',
    keyAccepted: 'not checked',
    queryAllowed: 'not checked',
  };
  const started = Date.now();
  try {
    const res = await client.send('refundSearch', { order_no: PROBE_ORDER });
    check.ms = Date.now() - started;
    check.answers = 'yes';
    assertAccepted(res.data, client);
    check.keyAccepted = 'yes';
  } catch (err) {
    if (err instanceof TransportError || !(err instanceof PayopsError)) {
      check.answers = 'no';
    } else {
      check.answers = 'yes';
      // E1003 at refund search (a gateway stricter than the spec) still means the key was read.
      if (err instanceof AuthError && err.code !== 'E1003') check.keyAccepted = 'no';
      else if (err instanceof AuthError) check.keyAccepted = 'yes';
    }
    check.problem = problemOf(err);
    if (check.keyAccepted !== 'yes') return check;
  }
  try {
    const res = await client.send('query', { order_no: PROBE_ORDER });
    assertAccepted(res.data, client);
    check.queryAllowed = 'yes';
  } catch (err) {
    if (err instanceof AuthError && err.code === 'E1003') check.queryAllowed = 'no';
    check.problem ??= problemOf(err);
  }
  return check;
}

/** Everything answered as it should. */
export function checkPassed(c: GatewayCheck): boolean {
  return c.answers === 'yes' && c.keyAccepted === 'yes' && c.queryAllowed === 'yes';
}
