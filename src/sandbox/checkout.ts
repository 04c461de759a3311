// /v1/checkout (the auto-submitting HTML form of the redirect / iFrame integration) and the
// sandbox's hosted and issuer pages that complete a pending (1000) order.
import { errorReply, HTML_TYPE, type Reply, type SandboxContext } from './context.js';
import { Rejection } from './fields.js';
import { outcomeEvents, paymentEvent } from './notify-events.js';
import {
  CARD_FIELDS,
  captureLedger,
  checkPayment,
  formatAmountOf,
  newOrder,
  orderDetails,
} from './payment-order.js';
import { escapeHtml } from './render.js';

type Body = Record<string, unknown>;

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
    ({ amount } = checkPayment(ctx, body, 'checkout'));
  } catch (err) {
    if (err instanceof Rejection) return errorReply(err, err.code === 'E1002' ? 404 : 400);
    throw err;
  }
  const order = newOrder(ctx, body, amount, '1000', orderDetails(body, { is3ds: body.open3d === 'do3DS' }));
  paymentEvent(ctx, 'payment.pending', order);
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
  outcomeEvents(ctx, order);
  return issuerPage(ctx, transactionId);
}
