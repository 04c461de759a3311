// Request and response shapes of gateway-api.md, every field and nested object, by area under
// types/; this module gathers them (import from here), maps each operation to its request, response
// and batch element, and holds the status labels and error codes. All money amounts on the wire are
// decimal strings; fields the specification types as numbers are numbers.

export type * from './types/batch.js';
export type * from './types/common.js';
export type * from './types/payment.js';
export type * from './types/payout.js';
export type * from './types/search.js';

import type {
  CancelOrder,
  CancelRequest,
  CancelResponse,
  CancelResult,
  CaptureOrder,
  CaptureRequest,
  CaptureResponse,
  CaptureResult,
  RefundOrder,
  RefundRequest,
  RefundResponse,
  RefundResult,
  ReviewOrder,
  ReviewRequest,
  ReviewResponse,
  ReviewResult,
} from './types/batch.js';
import type {
  ApmPaymentRequest,
  ApmPaymentResult,
  CardPaymentRequest,
  CardPaymentResult,
  CheckoutPaymentRequest,
} from './types/payment.js';
import type { PayoutRequest, PayoutResponse } from './types/payout.js';
import type { QueryResponse, RefundSearchResponse, SelectionRequest } from './types/search.js';

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
