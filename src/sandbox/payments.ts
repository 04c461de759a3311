// /v1/authorise (direct card → XML result; APM → XML with issuer_url), /v1/checkout (auto-submitting
// HTML form), and the sandbox's issuer / hosted pages that complete a pending (1000) order.
// The full card number and security code are read, checked and dropped: only the masked number
// is kept.

import { formatGatewayTime } from '../gateway/time.js';
import { luhnValid, maskPan } from '../redact.js';
import {
  type Account,
  authenticate,
  errorReply,
  HTML_TYPE,
  type Reply,
  type SandboxContext,
  signInPlace,
  XML_TYPE,
} from './context.js';
import {
  amountProblem,
  codedMessage,
  currencyProblem,
  formatAmount,
  parseAmount,
  Rejection,
  requiredString,
  type Schema,
  schemaProblem,
} from './fields.js';
import { escapeHtml, respon, type XmlValue } from './render.js';
import type { Order, OrderDetails } from './store.js';

type Body = Record<string, unknown>;

const PERSON_SCHEMA: Schema = {
  document_number: 'string',
  document_type: 'string',
  social_name: 'string',
  email: 'string',
  phone_country_code: 'country',
  phone_area_code: 'string',
  phone_number: 'string',
  birth_date: 'string',
  net_monthly_average_income: 'string',
  address_street: 'string',
  address_number: 'string',
  address_complement: 'string',
  address_postal_code: 'string',
  address_city: 'string',
  address_state: 'string',
  address_country: 'country',
  fiscal_country: 'country',
  documents: {
    file_type: 'string',
    file_data: 'string',
    file_url: 'string',
    labels: {
      person_bank_account_id: 'string',
      bank_account: {
        account_type: 'string',
        account_number: 'string',
        branch_number: 'string',
        owner_document_number: 'string',
        owner_name: 'string',
        branch_country: 'country',
        currency: 'currency',
        bank: { code: 'string', name: 'string' },
      },
    },
  },
};

/** Types of every payment request field of the spec (design.md §1.7: checked when present). */
const PAYMENT_SCHEMA: Schema = {
  order_no: 'string',
  item_total: 'decimal',
  shipping: 'decimal',
  handling: 'decimal',
  tax_total: 'decimal',
  insurance: 'decimal',
  shipping_discount: 'decimal',
  discount: 'decimal',
  website: 'string',
  items: 'string',
  note: 'string',
  shopper_id: 'string',
  shopper_email: 'string',
  shopper_ip: 'string',
  shopper_phone: 'string',
  shopper_level: 'string',
  open3d: 'string',
  token_flag: 'string',
  token_id: 'string',
  first_name: 'string',
  last_name: 'string',
  notify_url: 'string',
  document: 'string',
  birth_date: 'dmyDate',
  billing_country: 'country',
  billing_state: 'string',
  billing_city: 'string',
  billing_address: 'string',
  billing_postal_code: 'string',
  os: 'string',
  browser: 'string',
  browser_lang: 'string',
  time_zone: 'string',
  resolution: 'string',
  cookie_new: 'string',
  cookie_old: 'string',
  challenge_window_size: 'string',
  session_id: 'string',
  delivery_firstname: 'string',
  delivery_lastname: 'string',
  delivery_country: 'country',
  delivery_state: 'string',
  delivery_city: 'string',
  delivery_address: 'string',
  delivery_postal_code: 'string',
  custom: 'string',
  installments: 'string',
  installments_id: 'string',
  device_fingerprint: 'string',
  platform_source: 'string',
  device_type: 'string',
  order_type: 'string',
  checkout_time: 'integer',
  user_agent: 'string',
  vendor_token_cookie: 'string',
  cart_items: [
    {
      basic_item_data: {
        name: 'string',
        quantity: 'string',
        type: 'string',
        category: 'string',
        productId: 'string',
        price: { amount_usd: 'number', amount_local_currency: 'number', currency: 'currency' },
      },
    },
  ],
  account_owner: [
    {
      first_name: 'string',
      last_name: 'string',
      email: 'string',
      account_id: 'string',
      created: 'number',
      past_orders_count: 'number',
      past_orders_sum: 'number',
      lastLogin_ip: 'string',
      registration_ip: 'string',
    },
  ],
  total_discount: [{ coupon_code_used: 'string', discount_type: 'string' }],
  additional_information: [
    { mpi_info: { eci: 'string', cavv: 'string', xid: 'string', dsTransID: 'string' } },
  ],
  price_id: 'string',
  quote_id: 'string',
  quote_price: 'string',
  color_depth: 'string',
  storefront_domains: 'string',
  accept: 'string',
  subscription: {
    contract: 'string',
    contract_name: 'string',
    contract_amount: 'decimal',
    interval: 'string',
    interval_count: 'string',
    billing_cycle: 'integer',
    promotion_cycle: 'integer',
    contract_start: 'string',
    contract_end: 'string',
    price_id: 'string',
  },
  payment_method: 'string',
  bank_code: 'string',
  delivery_district_name: 'string',
  delivery_street_name: 'string',
  return_url: 'string',
  person: PERSON_SCHEMA,
};

const CARD_FIELDS = ['card', 'expiration_month', 'expiration_year', 'security_code'] as const;

/** Checks shared by every payment: credentials, required fields, field types, unique order_no. */
function checkPayment(ctx: SandboxContext, body: Body): { account: Account; amount: bigint } {
  const account = authenticate(ctx, body);
  for (const field of ['order_no', 'currency', 'amount'] as const) {
    const p = requiredString(body[field]);
    if (p) throw new Rejection('E1005', `${field} ${p}`);
  }
  const cp = currencyProblem(body.currency, ctx.currencies);
  if (cp) throw new Rejection('E1005', `currency ${cp}`);
  const digits = ctx.currencies.get(body.currency as string)!;
  const ap = amountProblem(body.amount, digits);
  if (ap) throw new Rejection('E1005', `amount ${ap}`);
  const amount = parseAmount(body.amount as string, digits)!;
  if (amount === 0n) throw new Rejection('E1005', 'amount must be greater than zero');
  const sp = schemaProblem(body, PAYMENT_SCHEMA, ctx.currencies);
  if (sp) throw new Rejection('E1005', sp);
  if (ctx.store.byOrderNo.has(body.order_no as string)) throw new Rejection('E2005', String(body.order_no));
  return { account, amount };
}

function details(body: Body, extra: OrderDetails): OrderDetails {
  const delivery: Record<string, string> = {};
  for (const k of [
    'delivery_address',
    'delivery_city',
    'delivery_country',
    'delivery_firstname',
    'delivery_lastname',
    'delivery_postal_code',
    'delivery_state',
  ]) {
    if (typeof body[k] === 'string') delivery[k] = body[k] as string;
  }
  const d: OrderDetails = { ...extra, delivery };
  for (const k of ['website', 'shopper_email', 'shopper_phone', 'notify_url'] as const) {
    if (typeof body[k] === 'string') d[k] = body[k] as string;
  }
  return d;
}

function newOrder(ctx: SandboxContext, body: Body, amount: bigint, status: string, d: OrderDetails): Order {
  const { id, seq } = ctx.store.nextTransactionId();
  const order: Order = {
    transaction_id: id,
    order_no: body.order_no as string,
    account_id: body.account_id as string,
    currency: body.currency as string,
    amount,
    status,
    refunded: 0n,
    refunds: 0,
    created: ctx.now(),
    details: {
      ...d,
      reference_no: `R${id.slice(1)}`,
      // The recurring id derives from the transaction id, known only now.
      ...(d.subscription ? { subscription: { ...d.subscription, recurring_id: `RC${id.slice(1)}` } } : {}),
    },
  };
  ctx.store.addOrder(order, seq);
  return order;
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
  riskReason: string;
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
        riskReason: 'issuer_decline',
      };
    case '4000000000009995':
      return {
        status: '6000',
        orderStatus: '0',
        resultInfo: codedMessage('E3002'),
        risk: 'ACCEPT',
        riskScore: '15',
        riskReason: 'insufficient_funds',
      };
    case '4000000000003220':
      return {
        status: '1000',
        orderStatus: '2',
        resultInfo: codedMessage('E3003'),
        risk: 'ACCEPT',
        riskScore: '30',
        riskReason: 'sca_required',
        threeds: 'challenge required',
      };
    case '4000000000009235':
      return {
        status: '2100',
        orderStatus: '2',
        resultInfo: '0000:Held for review',
        risk: 'REVIEW',
        riskScore: '75',
        riskReason: 'amount_velocity',
      };
    default:
      return {
        status: '2000',
        orderStatus: '1',
        resultInfo: '0000:Approved',
        risk: 'ACCEPT',
        riskScore: '10',
        riskReason: 'ip_country_match',
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
    risk_reasons: { name: '', status: '' },
    encryption_data: '',
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) doc[k] = v;
  signInPlace(ctx, doc);
  return { status: 200, contentType: XML_TYPE, body: respon(doc) };
}

function handleCard(ctx: SandboxContext, body: Body): Reply {
  let account: Account;
  let amount: bigint;
  try {
    ({ account, amount } = checkPayment(ctx, body));
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
    details(body, {
      card: maskPan(pan),
      is3ds: outcome.threeds !== undefined || wants3ds,
      risk: outcome.risk,
      ...(subscription ? { subscription } : {}),
    }),
  );
  if (status === '3000') captureLedger(ctx, order);
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
    risk_reasons: { name: outcome.riskReason, status: outcome.risk },
  });
}

function captureLedger(ctx: SandboxContext, order: Order): void {
  ctx.store.addLedger({
    kind: 'capture',
    transaction_id: order.transaction_id,
    order_no: order.order_no,
    currency: order.currency,
    amount: formatAmountOf(ctx, order),
    at: new Date(ctx.now()).toISOString(),
    request_id: '',
  });
}

function formatAmountOf(ctx: SandboxContext, order: Order): string {
  return formatAmount(order.amount, ctx.currencies.get(order.currency) ?? 2);
}

// ------------------------------------------------------------------ APM

function handleApm(ctx: SandboxContext, body: Body): Reply {
  let amount: bigint;
  try {
    const p = requiredString(body.payment_method);
    if (p) throw new Rejection('E1005', `payment_method ${p}`, 400);
    ({ amount } = checkPayment(ctx, body));
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
    details(body, { payment_method: body.payment_method as string }),
  );
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

// ------------------------------------------------------------------ checkout (redirect / iFrame)

/** Legacy names the hosted page expects besides the request's own (gateway-api.md, endpoint rule 3). */
const LEGACY_NAMES: Record<string, string> = {
  order_no: 'orderNo',
  amount: 'orderAmount',
  currency: 'orderCurrency',
  merchant_id: 'merNo',
  account_id: 'terNo',
  first_name: 'firstName',
  last_name: 'lastName',
  encryption_data: 'signInfo',
  notify_url: 'notifyUrl',
  return_url: 'returnUrl',
  cancel_url: 'cancelUrl',
  open3d: 'isOpen3D',
  items: 'goodsInfo',
};

function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function inputValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function handleCheckout(ctx: SandboxContext, body: Body, remoteIp: string): Reply {
  if (CARD_FIELDS.some((f) => body[f] !== undefined)) {
    return errorReply(new Rejection('E1005', 'card fields are not accepted by /v1/checkout', 400));
  }
  let amount: bigint;
  try {
    ({ amount } = checkPayment(ctx, body));
  } catch (err) {
    if (err instanceof Rejection) return errorReply(err, err.code === 'E1002' ? 404 : 400);
    throw err;
  }
  const order = newOrder(ctx, body, amount, '1000', details(body, { is3ds: body.open3d === 'do3DS' }));
  const inputs = new Map<string, string>();
  for (const [k, v] of Object.entries(body)) inputs.set(k, inputValue(v));
  for (const [k, v] of Object.entries(body)) {
    const camel = camelCase(k);
    if (camel !== k && !inputs.has(camel)) inputs.set(camel, inputValue(v));
  }
  for (const [k, legacy] of Object.entries(LEGACY_NAMES)) inputs.set(legacy, inputValue(body[k]));
  inputs.set('allParams', JSON.stringify(body));
  const gatewaySide: Record<string, string> = {
    transaction_id: order.transaction_id,
    gbc_id: `GBC${order.transaction_id.slice(1)}`,
    connector_code: 'sandbox',
    account_name: `Sandbox account ${order.account_id}`,
    pm_id: 'card',
    apm_type: '',
    descriptor: 'PAYOPS*SANDBOX',
    orderprefix: '',
    rrtimezone: '0',
    ordernumlength: String(order.order_no.length),
    default_lang: 'en',
    source_request_ip: remoteIp,
    source_notify_url: typeof body.notify_url === 'string' ? body.notify_url : '',
    to_pass_page: `${ctx.baseUrl}/_sandbox/issuer/${order.transaction_id}`,
  };
  for (const [k, v] of Object.entries(gatewaySide)) inputs.set(k, v);
  let hidden = '';
  for (const [k, v] of inputs)
    hidden += `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">\n`;
  const html = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Redirecting to payment</title></head>
<body onload="document.forms[0].submit()">
<form method="POST" action="${escapeHtml(`${ctx.baseUrl}/v1/checkout`)}">
${hidden}<noscript><button type="submit">Continue to payment</button></noscript>
</form>
</body></html>
`;
  return { status: 200, contentType: HTML_TYPE, body: html };
}

// ------------------------------------------------------------------ issuer and hosted pages

/** The page the checkout form posts to (form-encoded, not JSON): a link to the order's issuer page. */
export function hostedPage(ctx: SandboxContext, form: Record<string, string>): Reply {
  const order = ctx.store.byTransactionId.get(form.transaction_id ?? '');
  if (!order) return errorReply(new Rejection('E2001', form.transaction_id ?? '', 404));
  return issuerPage(ctx, order.transaction_id);
}

export function issuerPage(ctx: SandboxContext, transactionId: string): Reply {
  const order = ctx.store.byTransactionId.get(transactionId);
  if (!order) return errorReply(new Rejection('E2001', transactionId, 404));
  const id = escapeHtml(order.transaction_id);
  const html = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Sandbox issuer</title></head>
<body>
<h1>Sandbox issuer</h1>
<p>Order ${escapeHtml(order.order_no)} (${id}): ${escapeHtml(formatAmountOf(ctx, order))} ${escapeHtml(order.currency)}, payment_status ${escapeHtml(order.status)}</p>
<form method="POST" action="/_sandbox/issuer/${id}/complete"><button type="submit">Complete payment</button></form>
<form method="POST" action="/_sandbox/issuer/${id}/fail"><button type="submit">Fail payment</button></form>
</body></html>
`;
  return { status: 200, contentType: HTML_TYPE, body: html };
}

/**
 * The shopper finished (or abandoned) on the issuer: 1000 → 3000 for APM and checkout, 1000 → 2000
 * for a card after its 3-D Secure challenge (3000 on an auto-capture account), or → 6000.
 */
export function completeOnIssuer(ctx: SandboxContext, transactionId: string, success: boolean): Reply {
  const order = ctx.store.byTransactionId.get(transactionId);
  if (!order) return errorReply(new Rejection('E2001', transactionId, 404));
  if (order.status !== '1000') {
    return errorReply(new Rejection('E2003', `order is ${order.status}`, 409));
  }
  let next = '6000';
  if (success) {
    const isCard = order.details?.card !== undefined;
    next = isCard && !ctx.accounts.get(order.account_id)?.autoCapture ? '2000' : '3000';
  }
  ctx.store.setStatus(order, next);
  if (next === '3000') captureLedger(ctx, order);
  return issuerPage(ctx, transactionId);
}
