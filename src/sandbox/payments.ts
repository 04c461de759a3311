// /v1/authorise: a direct card payment (→ XML result, test cards of design.md §1.5) or an APM
// payment (→ XML with the issuer_url that completes it). The full card number and security code are
// read, checked and dropped: only the masked number is kept.

import { formatGatewayTime } from '../gateway/time.js';
import { luhnValid, maskPan } from '../redact.js';
import {
  type Account,
  errorReply,
  type Reply,
  type SandboxContext,
  signInPlace,
  XML_TYPE,
} from './context.js';
import { codedMessage, Rejection, requiredString } from './fields.js';
import { outcomeEvents, paymentEvent } from './notify-events.js';
import { CARD_FIELDS, captureLedger, checkPayment, newOrder, orderDetails } from './payment-order.js';
import { respon, type XmlValue } from './render.js';

type Body = Record<string, unknown>;

/**
 * The one stored card token the sandbox knows (issue 16): a card payment with this token_id and no
 * card fields charges the approved test card 4242 4242 4242 4242 (expiry 12/2035).
 */
export const SANDBOX_TEST_TOKEN = 'TK-SANDBOX-4242';
const TOKEN_CARD = {
  card: '4242424242424242',
  expiration_month: '12',
  expiration_year: '2035',
  security_code: '123',
};

/** A token payment's body with its stored card filled in; the body itself otherwise. */
function withStoredCard(body: Body): Body | Rejection {
  const token = body.token_id;
  if (typeof token !== 'string' || token === '' || CARD_FIELDS.some((f) => body[f] !== undefined))
    return body;
  if (token !== SANDBOX_TEST_TOKEN) return new Rejection('E1005', `token_id ${token} is not a stored token`);
  return { ...body, ...TOKEN_CARD };
}

export function handleAuthorise(ctx: SandboxContext, body: Body): Reply {
  const hasCard = CARD_FIELDS.some((f) => body[f] !== undefined);
  if (hasCard && body.payment_method !== undefined) {
    return errorReply(
      new Rejection(
        'E1005',
        'card fields and payment_method are both present: send one kind of payment',
        400,
      ),
    );
  }
  return body.payment_method !== undefined ? handleApm(ctx, body) : handleCard(ctx, body);
}

// ------------------------------------------------------------------ direct card

interface CardOutcome {
  status: string;
  orderStatus: string;
  resultInfo: string;
  risk: 'ACCEPT' | 'REVIEW' | 'REJECT';
  riskScore: string;
  /** One or more: risk_reasons is a list, signed `risk_reasons[0].name` (design.md §1.1). */
  riskReasons: ReadonlyArray<{ name: string; status: string }>;
  threeds?: string;
}

/** design.md §1.5 test cards; any other valid card is approved. */
function cardOutcome(pan: string): CardOutcome {
  switch (pan) {
    case '4000000000000002':
      return {
        status: '6000',
        orderStatus: '0',
        resultInfo: codedMessage('E3001'),
        risk: 'ACCEPT',
        riskScore: '20',
        riskReasons: [{ name: 'issuer_decline', status: 'ACCEPT' }],
      };
    case '4000000000009995':
      return {
        status: '6000',
        orderStatus: '0',
        resultInfo: codedMessage('E3002'),
        risk: 'ACCEPT',
        riskScore: '15',
        riskReasons: [{ name: 'insufficient_funds', status: 'ACCEPT' }],
      };
    case '4000000000003220':
      return {
        status: '1000',
        orderStatus: '2',
        resultInfo: codedMessage('E3003'),
        risk: 'ACCEPT',
        riskScore: '30',
        riskReasons: [{ name: 'sca_required', status: 'ACCEPT' }],
        threeds: 'challenge required',
      };
    case '4000000000009235':
      return {
        status: '2100',
        orderStatus: '2',
        resultInfo: '0000:Held for review',
        risk: 'REVIEW',
        riskScore: '75',
        // Two reasons: the sandbox's example of a repeated element.
        riskReasons: [
          { name: 'amount_velocity', status: 'REVIEW' },
          { name: 'ip_country_match', status: 'ACCEPT' },
        ],
      };
    default:
      return {
        status: '2000',
        orderStatus: '1',
        resultInfo: '0000:Approved',
        risk: 'ACCEPT',
        riskScore: '10',
        riskReasons: [{ name: 'ip_country_match', status: 'ACCEPT' }],
      };
  }
}

function cardProblem(body: Body, now: number): Rejection | undefined {
  for (const f of CARD_FIELDS) {
    const p = requiredString(body[f]);
    if (p) return new Rejection('E1005', `${f} ${p}`);
  }
  const month = body.expiration_month as string;
  if (!/^(0[1-9]|1[0-2])$/.test(month))
    return new Rejection('E1005', 'expiration_month must be two digits 01–12');
  if (!/^\d{4}$/.test(body.expiration_year as string))
    return new Rejection('E1005', 'expiration_year must be four digits');
  if (!/^\d{3,4}$/.test(body.security_code as string))
    return new Rejection('E1005', 'security_code must be 3 or 4 digits');
  const pan = (body.card as string).replace(/[ -]/g, '');
  if (!/^\d{12,19}$/.test(pan) || !luhnValid(pan)) return new Rejection('E3005');
  const d = new Date(now);
  const year = Number(body.expiration_year);
  if (year < d.getUTCFullYear() || (year === d.getUTCFullYear() && Number(month) < d.getUTCMonth() + 1)) {
    return new Rejection('E3004', `${month}/${year}`);
  }
  return undefined;
}

function maskedCard(body: Body): string {
  const digits = typeof body.card === 'string' ? body.card.replace(/\D/g, '') : '';
  return digits ? maskPan(digits) : '';
}

function cardXml(ctx: SandboxContext, body: Body, fields: Partial<Record<string, XmlValue>>): Reply {
  const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : '');
  const doc: Record<string, XmlValue> = {
    merchant_id: str('merchant_id'),
    account_id: str('account_id'),
    order_no: str('order_no'),
    amount: str('amount'),
    currency: str('currency'),
    transaction_id: '',
    card: maskedCard(body),
    order_status: '0',
    result_info: '',
    contract_name: '',
    recurring_id: '',
    recurring_deduction_period: '',
    recurring_deduction_time: '',
    note: str('note'),
    token_id: str('token_id'),
    connector: 'sandbox',
    threeds_result: '',
    risk_action: '',
    risk_score: '',
    risk_reasons: [{ name: '', status: '' }],
    encryption_data: '',
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) doc[k] = v;
  signInPlace(ctx, doc);
  return { status: 200, contentType: XML_TYPE, body: respon(doc) };
}

function handleCard(ctx: SandboxContext, sent: Body): Reply {
  let account: Account;
  let amount: bigint;
  const stored = withStoredCard(sent);
  if (stored instanceof Rejection) return cardXml(ctx, sent, { result_info: stored.message });
  const body = stored;
  try {
    // Signed as sent: the stored card is the gateway's, never part of the request.
    ({ account, amount } = checkPayment(ctx, sent, 'card'));
    const bad = cardProblem(body, ctx.now());
    if (bad) throw bad;
  } catch (err) {
    if (err instanceof Rejection) return cardXml(ctx, body, { result_info: err.message });
    throw err;
  }
  const pan = (body.card as string).replace(/[ -]/g, '');
  const outcome = cardOutcome(pan);
  const wants3ds = body.open3d === 'do3DS';
  const threeds = outcome.threeds ?? (wants3ds ? 'authenticated' : 'not enrolled');
  let status = outcome.status;
  if (status === '2000' && account.autoCapture) status = '3000';
  const sub = body.subscription as Record<string, unknown> | undefined;
  const now = ctx.now();
  const subscription =
    sub && status !== '6000'
      ? {
          contract_name: typeof sub.contract_name === 'string' ? sub.contract_name : '',
          recurring_id: '',
          period: `${typeof sub.interval_count === 'string' ? sub.interval_count : '1'} ${typeof sub.interval === 'string' ? sub.interval : 'month'}`,
          time: formatGatewayTime(now),
        }
      : undefined;
  const order = newOrder(
    ctx,
    body,
    amount,
    status,
    orderDetails(body, {
      card: maskPan(pan),
      is3ds: outcome.threeds !== undefined || wants3ds,
      risk: outcome.risk,
      ...(subscription ? { subscription } : {}),
    }),
  );
  if (status === '3000') captureLedger(ctx, order);
  outcomeEvents(ctx, order);
  const tokenId =
    typeof body.token_id === 'string' && body.token_id !== ''
      ? body.token_id
      : body.token_flag === 'YES'
        ? `TK${order.transaction_id.slice(1)}`
        : '';
  return cardXml(ctx, body, {
    transaction_id: order.transaction_id,
    order_status: outcome.orderStatus,
    result_info: outcome.resultInfo,
    contract_name: subscription?.contract_name,
    recurring_id: order.details?.subscription?.recurring_id,
    recurring_deduction_period: subscription?.period,
    recurring_deduction_time: subscription?.time,
    token_id: tokenId,
    threeds_result: threeds,
    risk_action: outcome.risk,
    risk_score: outcome.riskScore,
    risk_reasons: outcome.riskReasons,
  });
}

// ------------------------------------------------------------------ APM

function handleApm(ctx: SandboxContext, body: Body): Reply {
  let amount: bigint;
  try {
    const p = requiredString(body.payment_method);
    if (p) throw new Rejection('E1005', `payment_method ${p}`, 400);
    ({ amount } = checkPayment(ctx, body, 'apm'));
  } catch (err) {
    if (err instanceof Rejection) {
      // "Record not found" (404) for an unknown merchant or account; everything else is invalid input.
      return errorReply(err, err.code === 'E1002' ? 404 : 400);
    }
    throw err;
  }
  const order = newOrder(
    ctx,
    body,
    amount,
    '1000',
    orderDetails(body, { payment_method: body.payment_method as string }),
  );
  paymentEvent(ctx, 'payment.pending', order);
  return {
    status: 200,
    contentType: XML_TYPE,
    body: respon({
      merchant_id: body.merchant_id as string,
      account_id: body.account_id as string,
      order_no: order.order_no,
      amount: body.amount as string,
      currency: order.currency,
      issuer_url: `${ctx.baseUrl}/_sandbox/issuer/${order.transaction_id}`,
    }),
  };
}
