// The four batch operations (capture, cancel, review, refund): the per-order elements sent, the
// per-order results answered, and their envelopes.
import type { Credentials, EnvelopeStatus } from './common.js';

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
