// Payment requests (card, APM, checkout) and their results (the XML `respon` of /v1/authorise),
// every field and nested object of gateway-api.md. Money amounts on the wire are decimal strings.
import type { Credentials } from './common.js';

// ---------------------------------------------------------------- payment request

export interface BasicItemData {
  name?: string;
  quantity?: string;
  type?: string;
  category?: string;
  productId?: string;
  price?: { amount_usd?: number; amount_local_currency?: number; currency?: string };
}

export interface CartItem {
  basic_item_data: BasicItemData;
}

export interface AccountOwner {
  first_name?: string;
  last_name?: string;
  email?: string;
  account_id?: string;
  created?: number;
  past_orders_count?: number;
  past_orders_sum?: number;
  lastLogin_ip?: string;
  registration_ip?: string;
}

export interface TotalDiscount {
  coupon_code_used: string;
  discount_type: string;
}

export interface AdditionalInformation {
  mpi_info: { eci?: string; cavv?: string; xid?: string; dsTransID?: string };
}

export interface Subscription {
  contract?: string;
  contract_name?: string;
  contract_amount?: string;
  interval?: string;
  interval_count?: string;
  billing_cycle?: number;
  promotion_cycle?: number;
  contract_start?: string;
  contract_end?: string;
  price_id?: string;
}

/** Fields shared by card, APM and checkout payment requests. */
export interface PaymentRequestBase extends Credentials {
  order_no: string;
  currency: string;
  amount: string;
  item_total?: string;
  shipping?: string;
  handling?: string;
  tax_total?: string;
  insurance?: string;
  shipping_discount?: string;
  discount?: string;
  /** "the service" in the specification: the merchant web site (design.md §1.8). */
  website?: string;
  /** `name#,#item number#,#unit price#,#quantity` entries joined by `#;#`. */
  items?: string;
  note?: string;
  shopper_id?: string;
  shopper_email?: string;
  shopper_ip?: string;
  shopper_phone?: string;
  shopper_level?: string;
  first_name?: string;
  last_name?: string;
  notify_url?: string;
  document?: string;
  birth_date?: string;
  billing_country?: string;
  billing_state?: string;
  billing_city?: string;
  billing_address?: string;
  billing_postal_code?: string;
  os?: string;
  browser?: string;
  browser_lang?: string;
  time_zone?: string;
  resolution?: string;
  cookie_new?: string;
  cookie_old?: string;
  delivery_firstname?: string;
  delivery_lastname?: string;
  delivery_country?: string;
  delivery_state?: string;
  delivery_city?: string;
  delivery_address?: string;
  delivery_postal_code?: string;
  custom?: string;
  device_fingerprint?: string;
  platform_source?: string;
  device_type?: string;
  color_depth?: string;
}

/** Fields for card and checkout only. */
export interface CardAndCheckoutFields {
  open3d?: string;
  token_flag?: string;
  token_id?: string;
  challenge_window_size?: string;
  session_id?: string;
  installments?: string;
  installments_id?: string;
  order_type?: string;
  checkout_time?: number;
  user_agent?: string;
  vendor_token_cookie?: string;
  cart_items?: CartItem[];
  account_owner?: AccountOwner[];
  total_discount?: TotalDiscount[];
  additional_information?: AdditionalInformation[];
  price_id?: string;
  quote_id?: string;
  quote_price?: string;
  storefront_domains?: string;
  subscription?: Subscription;
}

export interface CardPaymentRequest extends PaymentRequestBase, CardAndCheckoutFields {
  card: string;
  expiration_month: string;
  expiration_year: string;
  security_code: string;
  accept?: string;
}

export type CheckoutPaymentRequest = PaymentRequestBase & CardAndCheckoutFields;

export interface BankAccountLabel {
  account_type?: string;
  account_number?: string;
  branch_number?: string;
  owner_document_number?: string;
  owner_name?: string;
  branch_country?: string;
  currency?: string;
  bank?: { code?: string; name?: string };
}

export interface Person {
  document_number?: string;
  document_type?: string;
  social_name?: string;
  email?: string;
  phone_country_code?: string;
  phone_area_code?: string;
  phone_number?: string;
  birth_date?: string;
  net_monthly_average_income?: string;
  address_street?: string;
  address_number?: string;
  address_complement?: string;
  address_postal_code?: string;
  address_city?: string;
  address_state?: string;
  address_country?: string;
  fiscal_country?: string;
  documents?: {
    file_type?: string;
    file_data?: string;
    file_url?: string;
    labels?: { person_bank_account_id?: string; bank_account?: BankAccountLabel };
  };
}

export interface ApmPaymentRequest extends PaymentRequestBase {
  payment_method: string;
  bank_code?: string;
  delivery_district_name?: string;
  delivery_street_name?: string;
  return_url?: string;
  person?: Person;
}

// ---------------------------------------------------------------- payment results (XML `respon`)

export interface RiskReason {
  name?: string;
  status?: string;
}

export interface CardPaymentResult {
  merchant_id: string;
  account_id: string;
  order_no: string;
  amount: string;
  currency: string;
  transaction_id: string;
  /** Masked: first 6, last 4. */
  card: string;
  /** `1` approved, `0` declined, `2` pending (design.md §1.3). */
  order_status: string;
  /** `code:text`. */
  result_info: string;
  contract_name?: string;
  recurring_id?: string;
  recurring_deduction_period?: string;
  recurring_deduction_time?: string;
  note?: string;
  token_id?: string;
  connector?: string;
  threeds_result?: string;
  risk_action?: string;
  risk_score?: string;
  /** Always a list, even with one reason (design.md §1.1). */
  risk_reasons?: RiskReason[];
  encryption_data: string;
}

export interface ApmPaymentResult {
  merchant_id: string;
  account_id: string;
  order_no: string;
  amount: string;
  currency: string;
  issuer_url: string;
}

/** `/v1/authorise` and APM error bodies (HTTP 400/404). */
export interface ApmError {
  code: string;
  message: string;
}
