// The payment request of gateway-api.md as data: which fields each kind of payment (card, APM,
// checkout) may carry, their types and formats. The pay flags are generated from these tables
// (a flag is the field name with `_` written as `-`), and --request files are checked against them.
// Data only: the command file imports this to declare its flags, so it must stay light.
import { arr, type FieldSpec, int, num, type ObjectSpec, obj, str } from './schema.js';

export type PaymentKind = 'card' | 'apm' | 'checkout';

/** Help headings for the generated flags, in the order they are shown. */
export type FlagGroup =
  | 'Order'
  | 'Shopper'
  | 'Billing address'
  | 'Delivery address'
  | 'Device and session'
  | 'Card and checkout'
  | 'Alternative method'
  | 'Person (APM)';

interface FieldRow {
  name: string;
  spec: FieldSpec;
  group: FlagGroup;
  help?: string;
}

const s = str();
const dec = str('decimal');

/** Fields of every payment (card, APM and checkout). */
const BASE: FieldRow[] = [
  { name: 'order_no', spec: s, group: 'Order', help: "merchant's order number (generated when omitted)" },
  { name: 'amount', spec: dec, group: 'Order', help: 'order total, a plain decimal such as 12.50' },
  { name: 'currency', spec: str('currency'), group: 'Order', help: 'ISO 4217 currency code' },
  { name: 'item_total', spec: dec, group: 'Order' },
  { name: 'shipping', spec: dec, group: 'Order' },
  { name: 'handling', spec: dec, group: 'Order' },
  { name: 'tax_total', spec: dec, group: 'Order' },
  { name: 'insurance', spec: dec, group: 'Order' },
  { name: 'shipping_discount', spec: dec, group: 'Order' },
  { name: 'discount', spec: dec, group: 'Order' },
  { name: 'website', spec: s, group: 'Order', help: 'web site the order was placed on' },
  {
    name: 'items',
    spec: s,
    group: 'Order',
    help: 'name#,#item no#,#unit price#,#quantity entries joined by #;#',
  },
  { name: 'note', spec: s, group: 'Order' },
  { name: 'custom', spec: s, group: 'Order' },
  { name: 'notify_url', spec: s, group: 'Order', help: 'address for the result notification' },
  { name: 'platform_source', spec: s, group: 'Order' },
  { name: 'shopper_id', spec: s, group: 'Shopper' },
  { name: 'shopper_email', spec: s, group: 'Shopper' },
  { name: 'shopper_ip', spec: s, group: 'Shopper' },
  { name: 'shopper_phone', spec: s, group: 'Shopper' },
  { name: 'shopper_level', spec: s, group: 'Shopper' },
  { name: 'first_name', spec: s, group: 'Shopper' },
  { name: 'last_name', spec: s, group: 'Shopper' },
  { name: 'document', spec: s, group: 'Shopper' },
  { name: 'birth_date', spec: str('dmy'), group: 'Shopper', help: 'NN-NN-YYYY' },
  { name: 'billing_country', spec: str('country'), group: 'Billing address' },
  { name: 'billing_state', spec: s, group: 'Billing address' },
  { name: 'billing_city', spec: s, group: 'Billing address' },
  { name: 'billing_address', spec: s, group: 'Billing address' },
  { name: 'billing_postal_code', spec: s, group: 'Billing address' },
  { name: 'delivery_firstname', spec: s, group: 'Delivery address' },
  { name: 'delivery_lastname', spec: s, group: 'Delivery address' },
  { name: 'delivery_country', spec: str('country'), group: 'Delivery address' },
  { name: 'delivery_state', spec: s, group: 'Delivery address' },
  { name: 'delivery_city', spec: s, group: 'Delivery address' },
  { name: 'delivery_address', spec: s, group: 'Delivery address' },
  { name: 'delivery_postal_code', spec: s, group: 'Delivery address' },
  { name: 'os', spec: s, group: 'Device and session' },
  { name: 'browser', spec: s, group: 'Device and session' },
  { name: 'browser_lang', spec: s, group: 'Device and session' },
  { name: 'time_zone', spec: s, group: 'Device and session', help: 'hour offset as text, e.g. -5' },
  { name: 'resolution', spec: s, group: 'Device and session' },
  { name: 'color_depth', spec: s, group: 'Device and session' },
  { name: 'cookie_new', spec: s, group: 'Device and session' },
  { name: 'cookie_old', spec: s, group: 'Device and session' },
  { name: 'device_fingerprint', spec: s, group: 'Device and session' },
  { name: 'device_type', spec: s, group: 'Device and session', help: 'e.g. PC' },
];

/** Fields of card and checkout payments only. */
const CARD_AND_CHECKOUT: FieldRow[] = [
  { name: 'open3d', spec: s, group: 'Card and checkout', help: '3-D Secure mode, e.g. do3DS' },
  { name: 'token_flag', spec: s, group: 'Card and checkout', help: 'e.g. NO' },
  { name: 'token_id', spec: s, group: 'Card and checkout' },
  { name: 'challenge_window_size', spec: s, group: 'Card and checkout' },
  { name: 'session_id', spec: s, group: 'Card and checkout' },
  { name: 'installments', spec: s, group: 'Card and checkout' },
  { name: 'installments_id', spec: s, group: 'Card and checkout' },
  { name: 'order_type', spec: s, group: 'Card and checkout', help: 'e.g. WEB' },
  { name: 'checkout_time', spec: int, group: 'Card and checkout' },
  { name: 'user_agent', spec: s, group: 'Card and checkout' },
  { name: 'vendor_token_cookie', spec: s, group: 'Card and checkout' },
  { name: 'price_id', spec: s, group: 'Card and checkout' },
  { name: 'quote_id', spec: s, group: 'Card and checkout' },
  { name: 'quote_price', spec: s, group: 'Card and checkout' },
  { name: 'storefront_domains', spec: s, group: 'Card and checkout' },
];

/** Nested card-and-checkout fields: from --request only. */
const CARD_AND_CHECKOUT_NESTED: Record<string, FieldSpec> = {
  cart_items: arr(
    obj({
      basic_item_data: obj({
        name: s,
        quantity: s,
        type: s,
        category: s,
        productId: s,
        price: obj({ amount_usd: num, amount_local_currency: num, currency: str('currency') }),
      }),
    }),
  ),
  account_owner: arr(
    obj({
      first_name: s,
      last_name: s,
      email: s,
      account_id: s,
      created: num,
      past_orders_count: num,
      past_orders_sum: num,
      lastLogin_ip: s,
      registration_ip: s,
    }),
  ),
  total_discount: arr(obj({ coupon_code_used: s, discount_type: s })),
  additional_information: arr(obj({ mpi_info: obj({ eci: s, cavv: s, xid: s, dsTransID: s }) })),
  subscription: obj({
    contract: s,
    contract_name: s,
    contract_amount: dec,
    interval: s,
    interval_count: s,
    billing_cycle: int,
    promotion_cycle: int,
    contract_start: s,
    contract_end: s,
    price_id: s,
  }),
};

/** Card-only fields that are not card data (the card number and security code never come from files). */
const CARD_ONLY: FieldRow[] = [{ name: 'accept', spec: s, group: 'Card and checkout' }];
const CARD_EXPIRY: Record<string, FieldSpec> = {
  expiration_month: str('month'),
  expiration_year: str('year'),
};

const APM_ONLY: FieldRow[] = [
  {
    name: 'payment_method',
    spec: s,
    group: 'Alternative method',
    help: 'the alternative payment method (required)',
  },
  { name: 'bank_code', spec: s, group: 'Alternative method' },
  { name: 'delivery_district_name', spec: s, group: 'Alternative method' },
  { name: 'delivery_street_name', spec: s, group: 'Alternative method' },
  { name: 'return_url', spec: s, group: 'Alternative method' },
];

export const PERSON_SPEC: ObjectSpec = obj({
  document_number: s,
  document_type: s,
  social_name: s,
  email: s,
  phone_country_code: str('country'),
  phone_area_code: s,
  phone_number: s,
  birth_date: s,
  net_monthly_average_income: s,
  address_street: s,
  address_number: s,
  address_complement: s,
  address_postal_code: s,
  address_city: s,
  address_state: s,
  address_country: str('country'),
  fiscal_country: str('country'),
  documents: obj({
    file_type: s,
    file_data: s,
    file_url: s,
    labels: obj({
      person_bank_account_id: s,
      bank_account: obj({
        account_type: s,
        account_number: s,
        branch_number: s,
        owner_document_number: s,
        owner_name: s,
        branch_country: str('country'),
        currency: str('currency'),
        bank: obj({ code: s, name: s }),
      }),
    }),
  }),
});

/** A field that has a generated flag. `path` is the request field (`person.email` for nested ones). */
export interface FlagField {
  path: string;
  /** `--shopper-email` */
  flag: string;
  /** commander's attribute name for the flag (`shopperEmail`). */
  attribute: string;
  spec: FieldSpec;
  group: FlagGroup;
  help: string;
}

export function flagOf(path: string): string {
  return `--${path.replace(/[._]/g, '-')}`;
}

/** commander's camel-case attribute name of a long flag. */
export function attributeOf(flag: string): string {
  return flag
    .replace(/^--/, '')
    .split('-')
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

const FORMAT_HINT: Record<string, string> = {
  decimal: ' (plain decimal, e.g. 5.00)',
  country: ' (two-letter country code)',
  currency: ' (ISO 4217 code)',
  integer: ' (whole number)',
};

function formatOf(spec: FieldSpec): string {
  return spec.type === 'string' ? (spec.format ?? '') : spec.type;
}

function flagField(row: FieldRow, prefix = ''): FlagField {
  const path = prefix + row.name;
  const flag = flagOf(path);
  return {
    path,
    flag,
    attribute: attributeOf(flag),
    spec: row.spec,
    group: row.group,
    help: row.help ?? `${path}${FORMAT_HINT[formatOf(row.spec)] ?? ''}`,
  };
}

function rowsOf(kind: PaymentKind): FieldRow[] {
  if (kind === 'apm') return [...BASE, ...APM_ONLY];
  if (kind === 'card') return [...BASE, ...CARD_AND_CHECKOUT, ...CARD_ONLY];
  return [...BASE, ...CARD_AND_CHECKOUT];
}

/** The flags `payops pay <kind>` generates from the field tables. */
export function flagFields(kind: PaymentKind): FlagField[] {
  const flags = rowsOf(kind).map((row) => flagField(row));
  if (kind === 'apm') {
    for (const [name, spec] of Object.entries(PERSON_SPEC.fields)) {
      if (spec.type === 'object') continue;
      flags.push(flagField({ name, spec, group: 'Person (APM)' }, 'person.'));
    }
  }
  return flags;
}

/**
 * The whole request a --request file may hold for this kind of payment. Never card data: the card
 * number and security code come from the prompt or stdin only.
 */
export function requestSpec(kind: PaymentKind): ObjectSpec {
  const fields: Record<string, FieldSpec> = {};
  for (const row of rowsOf(kind)) fields[row.name] = row.spec;
  if (kind !== 'apm') Object.assign(fields, CARD_AND_CHECKOUT_NESTED);
  if (kind === 'card') Object.assign(fields, CARD_EXPIRY);
  if (kind === 'apm') fields['person'] = PERSON_SPEC;
  return obj(fields);
}

/** Fields that carry card data and are refused in a --request file and on the command line. */
export const CARD_DATA_FIELDS: readonly string[] = [
  'card',
  'security_code',
  'card_number',
  'cvv',
  'cvc',
  'pan',
];

/** The amount fields that are checked against the currency's minor digits. */
export const AMOUNT_FIELDS: readonly string[] = [
  'amount',
  'item_total',
  'shipping',
  'handling',
  'tax_total',
  'insurance',
  'shipping_discount',
  'discount',
];
