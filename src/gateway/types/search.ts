// The query (/v1/retrievalTrans) and refund search (/v1/retrievalRefund): the selection they are
// sent and the records they answer.
import type { Credentials, EnvelopeStatus } from './common.js';

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
