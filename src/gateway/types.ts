// Request and response shapes of gateway-api.md, every field and nested object. All money amounts
// on the wire are decimal strings; fields the specification types as numbers are numbers.

/** Present on every request. */
export interface Credentials {
  merchant_id: string;
  account_id: string;
  encryption_data?: string;
}

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
  risk_reasons?: RiskReason | RiskReason[];
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

// ---------------------------------------------------------------- query and refund search

/** Form fields of `/v1/retrievalTrans` and `/v1/retrievalRefund` (design.md §1.2). */
export interface SelectionRequest extends Credentials {
  /** Comma-separated, at most 100. */
  order_no?: string;
  /** Comma-separated, at most 100. */
  transaction_id?: string;
  /** `YYYYMMDDhhmmss`, UTC, inclusive. */
  start_date?: string;
  end_date?: string;
}

export interface DeliveryInformation {
  delivery_address?: string;
  delivery_city?: string;
  delivery_country?: string;
  delivery_firstname?: string;
  delivery_lastname?: string;
  delivery_postal_code?: string;
  delivery_state?: string;
}

export interface FraudCheckResult {
  check_items: string;
  /** seen: ACCEPT, REJECT */
  status: string;
}

export interface SubscriptionResult {
  contract_name?: string;
  recurring_deduction_period?: string;
  recurring_deduction_time?: string;
  recurring_id?: string;
  recurring_status?: string;
}

export interface OrderRecord {
  order_no: string;
  transaction_id: string;
  reference_no: string;
  amount: string;
  currency: string;
  payment_status: string;
  query_result: string;
  is3ds: string;
  /** `YYYYMMDDhhmmss`, UTC. */
  transaction_date: string;
  website: string;
  shopper_email: string;
  shopper_phone: string;
  delivery_information: DeliveryInformation;
  antifraud_provider: string;
  fraud_check_result: FraudCheckResult[];
  subscription_result: SubscriptionResult;
}

export interface EnvelopeStatus {
  merchant_id: string;
  account_id: string;
  /** `1` OK, `0` the whole request was rejected. */
  return_status: string;
  return_message: string;
}

export interface QueryResponse extends EnvelopeStatus {
  orders_list: OrderRecord[];
}

export interface RefundRecord {
  transaction_id: string;
  order_no: string;
  amount: string;
  currency: string;
  refund_status: string;
  payment_status: string;
  refund_amount: string;
  refund_reference: string;
  refund_reason: string;
  refund_reference_id: string;
  /** `YYYYMMDDhhmmss`, UTC. */
  refund_date: string;
  refund_processing_date: string;
}

export interface RefundSearchResponse extends EnvelopeStatus {
  encryption_data: string;
  refund_orders: RefundRecord[];
}

// ---------------------------------------------------------------- batch operations

export interface OrderKey {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
}

export type CaptureOrder = OrderKey;
export type CancelOrder = OrderKey;
export interface ReviewOrder extends OrderKey {
  review_flag: string;
}
export interface RefundOrder extends OrderKey {
  refund_amount: string;
  refund_reason: string;
}

export interface CaptureResult extends OrderKey {
  capture_status: string;
  error_message: string;
}
export interface CancelResult extends OrderKey {
  cancel_status: string;
  error_message: string;
}
export interface ReviewResult extends ReviewOrder {
  review_status: string;
  error_message: string;
}
export interface RefundResult {
  amount: string;
  currency: string;
  order_no: string;
  refund_amount: string;
  refund_reason: string;
  transaction_id: string;
  /** `code:text`. */
  refund_message: string;
  refund_reference: string;
  /** `<transaction_id>-NN`. */
  refund_reference_id: string;
  refund_status: string;
}

export interface CaptureRequest extends Credentials {
  capture_orders: CaptureOrder[];
}
export interface CancelRequest extends Credentials {
  cancel_orders: CancelOrder[];
}
export interface ReviewRequest extends Credentials {
  review_orders: ReviewOrder[];
}
export interface RefundRequest extends Credentials {
  refund_orders: RefundOrder[];
}

export interface CaptureResponse extends EnvelopeStatus {
  encryption_data: string;
  capture_orders: CaptureResult[];
}
export interface CancelResponse extends EnvelopeStatus {
  encryption_data: string;
  cancel_orders: CancelResult[];
}
export interface ReviewResponse extends EnvelopeStatus {
  encryption_data: string;
  review_orders: ReviewResult[];
}
export interface RefundResponse extends EnvelopeStatus {
  encryption_data: string;
  refund_orders: RefundResult[];
}

// ---------------------------------------------------------------- payout

export interface Address {
  city?: string;
  country_code?: string;
  postcode?: string;
  state?: string;
  street?: string;
  number?: string;
  street_address?: string;
  complement?: string;
}

export interface BankDetails {
  account_currency?: string;
  account_name: string;
  owner_document_number?: string;
  account_number?: string;
  /** Comma-separated list as text. */
  bank_account_category?: string;
  bank_branch?: string;
  bank_country_code?: string;
  bank_code?: string;
  bank_name?: string;
  bank_street_address?: string;
  binding_mobile_number?: string;
  iban?: string;
  swift_code?: string;
  transaction_reference?: string;
}

export interface Beneficiary {
  first_name?: string;
  last_name?: string;
  company_name?: string;
  /** YYYY-MM-DD */
  date_of_birth?: string;
  entity_type: string;
  additional_info?: {
    business_area?: string;
    business_phone_number?: string;
    business_registration_number?: string;
    personal_email?: string;
    personal_id_number?: string;
    personal_id_type?: string;
    personal_mobile_number?: string;
    personal_net_monthly_average_income?: string;
    personal_phone_country_code?: string;
    personal_phone_area_code?: string;
    personal_fiscal_country?: string;
  };
  address?: Address;
  person_documents?: Array<{ file_type?: string; file_url?: string; labels?: string[] }>;
  bank_details: BankDetails;
}

export interface Payer {
  first_name?: string;
  last_name?: string;
  company_name?: string;
  date_of_birth?: string;
  entity_type: string;
  additional_info?: {
    business_registration_number?: string;
    business_registration_type?: string;
    external_id?: string;
    personal_email?: string;
    personal_id_number?: string;
    job?: string;
  };
  address?: Pick<Address, 'city' | 'country_code' | 'postcode' | 'state' | 'street_address'>;
}

export interface PayoutRequest extends Credentials {
  beneficiary_id?: string;
  beneficiary: Beneficiary;
  payer: Payer;
  client_data?: string;
  fee_paid_by?: string;
  payment_amount: string;
  payment_currency: string;
  /** YYYY-MM-DD */
  payment_date?: string;
  payment_method: string;
  reason?: string;
  reference?: string;
  /** UUID; the gateway is idempotent on it. */
  request_id: string;
  source_amount?: string;
  source_currency?: string;
  swift_charge_option?: string;
  fund_source?: string;
  notify_url?: string;
}

export type PayoutResponseBankDetails = Omit<BankDetails, 'bank_code'> & { local_clearing_system?: string };

export interface PayoutResponse extends Omit<PayoutRequest, 'notify_url' | 'beneficiary'> {
  beneficiary: Omit<Beneficiary, 'bank_details'> & { bank_details: PayoutResponseBankDetails };
  amount_beneficiary_receives: number;
  amount_payer_pays: number;
  fee_amount: number;
  fee_currency: string;
  /** `YYYY-MM-DDThh:mm:ss+hhmm` */
  created_at: string;
  last_updated_at: string;
  failure_reason: string;
  failure_type: string;
  payer_id: string;
  transaction_id: string;
  short_reference_id: string;
  /** seen: COMPLETED */
  status: string;
}

// ---------------------------------------------------------------- per-operation maps

export interface BatchOrderOf {
  capture: CaptureOrder;
  cancel: CancelOrder;
  review: ReviewOrder;
  refund: RefundOrder;
}
export interface BatchResultOf {
  capture: CaptureResult;
  cancel: CancelResult;
  review: ReviewResult;
  refund: RefundResult;
}

export interface RequestOf {
  authorise: CardPaymentRequest | ApmPaymentRequest;
  checkout: CheckoutPaymentRequest;
  query: SelectionRequest;
  refundSearch: SelectionRequest;
  capture: CaptureRequest;
  cancel: CancelRequest;
  review: ReviewRequest;
  refund: RefundRequest;
  payout: PayoutRequest;
}

export interface ResponseOf {
  authorise: CardPaymentResult | ApmPaymentResult;
  /** The HTML page as text. */
  checkout: string;
  query: QueryResponse;
  refundSearch: RefundSearchResponse;
  capture: CaptureResponse;
  cancel: CancelResponse;
  review: ReviewResponse;
  refund: RefundResponse;
  payout: PayoutResponse;
}

// ---------------------------------------------------------------- codes (design.md §1.3)

export const PAYMENT_STATUS_LABELS: Readonly<Record<string, string>> = {
  '1000': 'pending',
  '2000': 'authorised',
  '2100': 'held for review',
  '3000': 'captured',
  '4000': 'fully refunded',
  '4100': 'partially refunded',
  '5000': 'cancelled',
  '6000': 'declined',
};

export const ERROR_CODES = {
  E1001: 'invalid signature',
  E1002: 'unknown merchant or account',
  E1003: 'caller IP not registered',
  E1004: 'too many orders in one request',
  E1005: 'malformed request',
  E2001: 'order not found',
  E2002: 'currency or amount does not match the order',
  E2003: "operation not allowed in the order's state",
  E2004: 'refund exceeds the refundable balance',
  E2005: 'duplicate order_no',
  E3001: 'declined',
  E3002: 'insufficient funds',
  E3003: '3-D Secure required',
  E3004: 'expired card',
  E3005: 'invalid card number',
  E4001: 'invalid beneficiary details',
  E4002: 'request_id reused with other content',
  E9001: 'temporarily unavailable',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** Split a `code:text` message; messages without a code give `code` undefined. */
export function splitCodedMessage(message: string): { code: string | undefined; text: string } {
  const m = /^([A-Z]?\d{4}):(.*)$/s.exec(message);
  return m ? { code: m[1], text: m[2]!.trim() } : { code: undefined, text: message };
}
