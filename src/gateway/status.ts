// An order's payment_status codes (design.md §1.3) by name, so that the state machine, the
// sandbox and reconciliation say `PaymentStatus.Captured` rather than '3000'. Data only.

export const PaymentStatus = {
  /** The shopper must act (APM, checkout, 3-D Secure). */
  Pending: '1000',
  /** Awaiting capture. */
  Authorised: '2000',
  HeldForReview: '2100',
  Captured: '3000',
  FullyRefunded: '4000',
  PartiallyRefunded: '4100',
  Cancelled: '5000',
  Declined: '6000',
} as const;

export type PaymentStatus = (typeof PaymentStatus)[keyof typeof PaymentStatus];

/** Every payment status, in code order. */
export const PAYMENT_STATUSES: readonly PaymentStatus[] = Object.values(PaymentStatus);

/**
 * The label the CLI shows beside a code. Keyed by any string because codes arrive from the wire,
 * where an unknown one is possible. (gateway/types.ts exports the same table under the same name
 * until its split; both should become this one.)
 */
export const PAYMENT_STATUS_LABELS: Readonly<Record<string, string>> = {
  [PaymentStatus.Pending]: 'pending',
  [PaymentStatus.Authorised]: 'authorised',
  [PaymentStatus.HeldForReview]: 'held for review',
  [PaymentStatus.Captured]: 'captured',
  [PaymentStatus.FullyRefunded]: 'fully refunded',
  [PaymentStatus.PartiallyRefunded]: 'partially refunded',
  [PaymentStatus.Cancelled]: 'cancelled',
  [PaymentStatus.Declined]: 'declined',
} satisfies Record<PaymentStatus, string>;
