// The endpoints table: every operation of gateway-api.md as data, written once and used by the
// client, the bulk engine and the sandbox alike.

export type OperationName =
  | 'authorise'
  | 'checkout'
  | 'query'
  | 'capture'
  | 'review'
  | 'cancel'
  | 'refund'
  | 'refundSearch'
  | 'payout';

export type BodyFormat = 'json' | 'form';
export type ResponseFormat = 'xml' | 'json' | 'html';

export interface Endpoint {
  readonly op: OperationName;
  readonly path: string;
  readonly requestFormat: BodyFormat;
  readonly responseFormat: ResponseFormat;
  /** Name of the per-order array in the request and response envelope (batch and search operations). */
  readonly batchArray?:
    | 'capture_orders'
    | 'cancel_orders'
    | 'review_orders'
    | 'refund_orders'
    | 'orders_list';
  /** Maximum orders in one request. */
  readonly limit?: number;
  /** Moves money or changes an order's state: never re-sent once its bytes may have left. */
  readonly moneyMoving: boolean;
  /**
   * Whether every response carries `encryption_data`; a missing one is then treated like a bad one.
   * Responses of other operations are verified whenever they carry a signature (the card result does,
   * the APM result does not).
   */
  readonly signedResponse: boolean;
  /** Per-order status field in batch results. */
  readonly statusField?: 'capture_status' | 'cancel_status' | 'review_status' | 'refund_status';
}

export const ENDPOINTS = {
  authorise: {
    op: 'authorise',
    path: '/v1/authorise',
    requestFormat: 'json',
    responseFormat: 'xml',
    moneyMoving: true,
    signedResponse: true,
  },
  checkout: {
    op: 'checkout',
    path: '/v1/checkout',
    requestFormat: 'json',
    responseFormat: 'html',
    moneyMoving: true,
    signedResponse: false,
  },
  query: {
    op: 'query',
    path: '/v1/retrievalTrans',
    requestFormat: 'form',
    responseFormat: 'json',
    batchArray: 'orders_list',
    limit: 100,
    moneyMoving: false,
    signedResponse: false,
  },
  refundSearch: {
    op: 'refundSearch',
    path: '/v1/retrievalRefund',
    requestFormat: 'form',
    responseFormat: 'json',
    batchArray: 'refund_orders',
    limit: 100,
    moneyMoving: false,
    signedResponse: true,
  },
  capture: {
    op: 'capture',
    path: '/v1/capture',
    requestFormat: 'json',
    responseFormat: 'json',
    batchArray: 'capture_orders',
    limit: 50,
    moneyMoving: true,
    signedResponse: true,
    statusField: 'capture_status',
  },
  review: {
    op: 'review',
    path: '/v1/review',
    requestFormat: 'json',
    responseFormat: 'json',
    batchArray: 'review_orders',
    limit: 100,
    moneyMoving: true,
    signedResponse: true,
    statusField: 'review_status',
  },
  cancel: {
    op: 'cancel',
    path: '/v1/cancel',
    requestFormat: 'json',
    responseFormat: 'json',
    batchArray: 'cancel_orders',
    limit: 50,
    moneyMoving: true,
    signedResponse: true,
    statusField: 'cancel_status',
  },
  refund: {
    op: 'refund',
    path: '/v1/refund',
    requestFormat: 'json',
    responseFormat: 'json',
    batchArray: 'refund_orders',
    limit: 50,
    moneyMoving: true,
    signedResponse: true,
    statusField: 'refund_status',
  },
  payout: {
    op: 'payout',
    path: '/v1/payout',
    requestFormat: 'json',
    responseFormat: 'json',
    moneyMoving: true,
    // gateway-api.md names batch and direct-payment answers as signed, not the payout record: an
    // unsigned one is read (its fields checked by src/payout/answer.ts); a signature, if any, must verify.
    signedResponse: false,
  },
} as const satisfies Record<OperationName, Endpoint>;

export type BatchOperation = 'capture' | 'cancel' | 'review' | 'refund';
export const BATCH_OPERATIONS: readonly BatchOperation[] = ['capture', 'cancel', 'review', 'refund'];

export function endpointFor(op: OperationName): Endpoint {
  return ENDPOINTS[op];
}

/** The endpoint served at a path, if any (used by the sandbox router and `payops call`). */
export function endpointByPath(path: string): Endpoint | undefined {
  return Object.values(ENDPOINTS).find((e) => e.path === path);
}
