// The notification events of design.md §1.9, the one list: the sandbox makes them, payops listen and
// payops events check a filter against them.
export const PAYMENT_EVENT_TYPES = [
  'payment.approved',
  'payment.declined',
  'payment.pending',
  'payment.captured',
  'payment.cancelled',
  'payment.refunded',
] as const;
export const PAYOUT_EVENT_TYPES = ['payout.completed', 'payout.pending', 'payout.failed'] as const;
export const EVENT_TYPES: readonly string[] = [...PAYMENT_EVENT_TYPES, ...PAYOUT_EVENT_TYPES];

export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];
export type PayoutEventType = (typeof PAYOUT_EVENT_TYPES)[number];
