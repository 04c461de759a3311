// What every payment request of the sandbox shares (/v1/authorise card and APM, /v1/checkout): the
// types of every field of the spec, the checks, and the order a payment creates, with its ledger
// entry once captured.
import { type Account, authenticate, type SandboxContext } from './context.js';
import {
  amountProblem,
  currencyProblem,
  formatAmount,
  parseAmount,
  Rejection,
  requiredString,
  type Schema,
  schemaProblem,
} from './fields.js';
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

export const CARD_FIELDS = ['card', 'expiration_month', 'expiration_year', 'security_code'] as const;

/** The three request shapes of the payment request (gateway-api.md, its applicability column). */
export type PaymentShape = 'card' | 'apm' | 'checkout';

/** What every payment request carries besides PAYMENT_SCHEMA: credentials, signature, the money. */
const ENVELOPE_SCHEMA: Schema = {
  merchant_id: 'string',
  account_id: 'string',
  encryption_data: 'string',
  currency: 'string',
  amount: 'string',
};
const CARD_SCHEMA: Schema = Object.fromEntries(CARD_FIELDS.map((f) => [f, 'string']));

// The applicability column: fields listed as "card and checkout only", "direct card payment only"
// and the APM-only fields. Every other field of the table belongs to all three shapes.
const CARD_AND_CHECKOUT_ONLY: readonly string[] = [
  'open3d',
  'token_flag',
  'token_id',
  'challenge_window_size',
  'session_id',
  'installments',
  'installments_id',
  'order_type',
  'checkout_time',
  'user_agent',
  'vendor_token_cookie',
  'cart_items',
  'account_owner',
  'total_discount',
  'additional_information',
  'price_id',
  'quote_id',
  'quote_price',
  'storefront_domains',
  'subscription',
];
const CARD_ONLY: readonly string[] = [...CARD_FIELDS, 'accept'];
const APM_ONLY: readonly string[] = [
  'payment_method',
  'bank_code',
  'delivery_district_name',
  'delivery_street_name',
  'return_url',
  'person',
];

const ALL_PAYMENT_FIELDS: Schema = { ...ENVELOPE_SCHEMA, ...PAYMENT_SCHEMA, ...CARD_SCHEMA };

function without(schema: Schema, ...lists: ReadonlyArray<readonly string[]>): Schema {
  const drop = new Set(lists.flat());
  return Object.fromEntries(Object.entries(schema).filter(([f]) => !drop.has(f)));
}

/** ONE schema per request shape, all cut from the one table above. */
export const PAYMENT_SHAPES: Readonly<Record<PaymentShape, Schema>> = {
  card: without(ALL_PAYMENT_FIELDS, APM_ONLY),
  checkout: without(ALL_PAYMENT_FIELDS, APM_ONLY, CARD_ONLY),
  apm: without(ALL_PAYMENT_FIELDS, CARD_AND_CHECKOUT_ONLY, CARD_ONLY),
};

const SHAPE_NAMES: Record<PaymentShape, string> = {
  card: 'a direct card payment',
  apm: 'an APM payment',
  checkout: 'a checkout (redirect) payment',
};

/** The spec's words for where a field belongs, for a field sent in a shape it is not part of. */
function belongsTo(field: string): string {
  if (CARD_ONLY.includes(field)) return 'direct card payment only';
  if (CARD_AND_CHECKOUT_ONLY.includes(field)) return 'card and checkout only';
  return 'APM only';
}

/**
 * The request against its shape's schema: every field named, typed, not null. A field of another
 * shape is named with where it belongs. Throws E1005 naming the field's path.
 */
export function checkShape(ctx: SandboxContext, body: Body, shape: PaymentShape): void {
  for (const field of Object.keys(body)) {
    if (Object.hasOwn(ALL_PAYMENT_FIELDS, field) && !Object.hasOwn(PAYMENT_SHAPES[shape], field)) {
      throw new Rejection('E1005', `${field} is not a field of ${SHAPE_NAMES[shape]} (${belongsTo(field)})`);
    }
  }
  const p = schemaProblem(body, PAYMENT_SHAPES[shape], ctx.currencies);
  if (p) throw new Rejection('E1005', p);
}

/** Checks shared by every payment: credentials, its shape's fields, required fields, unique order_no. */
export function checkPayment(
  ctx: SandboxContext,
  body: Body,
  shape: PaymentShape,
): { account: Account; amount: bigint } {
  const account = authenticate(ctx, body);
  checkShape(ctx, body, shape);
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
  if (ctx.store.byOrderNo.has(body.order_no as string)) throw new Rejection('E2005', String(body.order_no));
  return { account, amount };
}

export function orderDetails(body: Body, extra: OrderDetails): OrderDetails {
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

export function newOrder(
  ctx: SandboxContext,
  body: Body,
  amount: bigint,
  status: string,
  d: OrderDetails,
): Order {
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

export function captureLedger(ctx: SandboxContext, order: Order): void {
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

export function formatAmountOf(ctx: SandboxContext, order: Order): string {
  return formatAmount(order.amount, ctx.currencies.get(order.currency) ?? 2);
}
