// The three payments as core functions: each takes a checked request, sends it once through the
// gateway client and returns data (never prints). A lost answer is an `unknown` outcome that names
// the order to query; a payment request is never sent a second time.
import { ExitCode, UnknownOutcomeError } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { ApmPaymentResult, CardPaymentResult, RiskReason } from '../gateway/types.js';
import { maskPan } from '../redact.js';
import type { CardSecrets } from './card-input.js';
import { type CheckoutForm, parseCheckoutForm } from './checkout-form.js';

export type PayOutcome = 'approved' | 'declined' | 'pending' | 'unknown';

/** `order_status` of the card result → outcome (design.md §1.3). */
export const ORDER_STATUS_OUTCOME: Readonly<Record<string, PayOutcome>> = {
  '1': 'approved',
  '0': 'declined',
  '2': 'pending',
};

export interface UnknownOutcome {
  /** Why (timeout, reset, http_5xx, bad_signature …). */
  reason: string;
  message: string;
  /** The command that tells what happened. */
  queryCommand: string;
}

interface PayResultBase {
  order_no: string;
  /** True when payops generated order_no (it is then printed so the order can be found). */
  generated_order_no: boolean;
  amount: string;
  currency: string;
  outcome: PayOutcome;
  unknown?: UnknownOutcome;
}

export interface CardPayResult extends PayResultBase {
  kind: 'card';
  /** First 6 and last 4 digits: the gateway's masked card, or ours when no answer came. */
  masked_card: string;
  /** The gateway's answer, risk_reasons always a list. */
  result?: Omit<CardPaymentResult, 'risk_reasons'> & { risk_reasons: RiskReason[] };
}

export interface ApmPayResult extends PayResultBase {
  kind: 'apm';
  payment_method: string;
  issuer_url?: string;
  result?: ApmPaymentResult;
}

export interface CheckoutPayResult extends PayResultBase {
  kind: 'checkout';
  /** The page as received (written to --out by the caller). */
  html?: string;
  form?: CheckoutForm;
}

export type PayResult = CardPayResult | ApmPayResult | CheckoutPayResult;

function unknownOf(err: UnknownOutcomeError, orderNo: string): UnknownOutcome {
  return {
    reason: err.reason,
    message: err.message,
    queryCommand: `payops query --order-no ${orderNo}`,
  };
}

function base(body: Record<string, unknown>, generated: boolean) {
  return {
    order_no: String(body.order_no),
    generated_order_no: generated,
    amount: String(body.amount),
    currency: String(body.currency),
  };
}

function riskReasonsOf(value: unknown): RiskReason[] {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
  const out: RiskReason[] = [];
  for (const item of list as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    // `<risk_reasons><reason><name/>…` and `<risk_reasons><name/>…` both occur in XML renderings.
    const inner = (item as Record<string, unknown>).reason;
    if (inner !== undefined) out.push(...riskReasonsOf(inner));
    else out.push(item as RiskReason);
  }
  return out;
}

/** The gateway's masked card as it is when already masked (first 6, last 4), else masked here. */
export function maskedOf(gatewayCard: unknown, fallback: string): string {
  if (typeof gatewayCard !== 'string' || gatewayCard === '') return fallback;
  return /^\d{0,6}\*+\d{0,4}$/.test(gatewayCard) ? gatewayCard : maskPan(gatewayCard);
}

export async function payByCard(
  client: GatewayClient,
  body: Record<string, unknown>,
  /** Undefined for a token payment (body.token_id): the gateway holds the card. */
  secrets: CardSecrets | undefined,
  generatedOrderNo: boolean,
): Promise<CardPayResult> {
  const head = base(body, generatedOrderNo);
  const masked = secrets ? maskPan(secrets.card) : '';
  try {
    // The secrets exist in this object only for the one send; the transport logs a redacted copy.
    const res = await client.send('authorise', {
      ...body,
      ...(secrets ? { card: secrets.card, security_code: secrets.securityCode } : {}),
    } as never);
    const data = res.data as CardPaymentResult;
    const result = { ...data, risk_reasons: riskReasonsOf(data.risk_reasons) };
    const outcome = ORDER_STATUS_OUTCOME[String(data.order_status)] ?? 'unknown';
    return {
      kind: 'card',
      ...head,
      outcome,
      masked_card: maskedOf(data.card, masked),
      result,
    };
  } catch (err) {
    if (err instanceof UnknownOutcomeError) {
      return {
        kind: 'card',
        ...head,
        outcome: 'unknown',
        masked_card: masked,
        unknown: unknownOf(err, head.order_no),
      };
    }
    throw err;
  }
}

export async function payByApm(
  client: GatewayClient,
  body: Record<string, unknown>,
  generatedOrderNo: boolean,
): Promise<ApmPayResult> {
  const head = { ...base(body, generatedOrderNo), payment_method: String(body.payment_method) };
  try {
    const res = await client.send('authorise', body as never);
    const data = res.data as ApmPaymentResult;
    const issuer =
      typeof data.issuer_url === 'string' && data.issuer_url !== '' ? data.issuer_url : undefined;
    return {
      kind: 'apm',
      ...head,
      // The payment waits for the shopper on the issuer's page (payment_status 1000).
      outcome: issuer ? 'pending' : 'unknown',
      ...(issuer ? { issuer_url: issuer } : {}),
      result: data,
    };
  } catch (err) {
    if (err instanceof UnknownOutcomeError) {
      return { kind: 'apm', ...head, outcome: 'unknown', unknown: unknownOf(err, head.order_no) };
    }
    throw err;
  }
}

export async function payByCheckout(
  client: GatewayClient,
  body: Record<string, unknown>,
  generatedOrderNo: boolean,
): Promise<CheckoutPayResult> {
  const head = base(body, generatedOrderNo);
  try {
    const res = await client.send('checkout', body as never);
    const html = String(res.data);
    const form = parseCheckoutForm(html);
    return {
      kind: 'checkout',
      ...head,
      outcome: form ? 'pending' : 'unknown',
      html,
      ...(form ? { form } : {}),
    };
  } catch (err) {
    if (err instanceof UnknownOutcomeError) {
      return { kind: 'checkout', ...head, outcome: 'unknown', unknown: unknownOf(err, head.order_no) };
    }
    throw err;
  }
}

/**
 * Exit code of a payment: card 0 approved, 1 declined, 3 pending or unknown. An APM or checkout
 * payment is pending by nature once its issuer_url / page came back, which is what the command was
 * asked for: 0; 3 when the answer was lost.
 */
export function payExitCode(result: PayResult): number {
  if (result.outcome === 'unknown') return ExitCode.gateway;
  if (result.kind !== 'card') return ExitCode.ok;
  if (result.outcome === 'approved') return ExitCode.ok;
  if (result.outcome === 'declined') return ExitCode.someFailed;
  return ExitCode.gateway;
}
