// The batch operations (capture, cancel, review, refund) at the wire: each one's request and result
// element fields (gateway-api.md "Batch order records") and its state machine (design.md §1.4).
// Data only, read by the sandbox (which implements it) and by the CLI's bulk operations table
// (src/bulk/operations.ts, which adds the CLI's words, flags and columns). Path, array name,
// per-request limit and status field are in the endpoints table.
import type { BatchOperation } from './endpoints.js';
import { PaymentStatus } from './status.js';

/** Element field values a rule applies to (review: `review_flag` '1' approves, '0' rejects). */
export type ElementCondition = Readonly<Record<string, string>>;

/** One move of an order's payment_status that the operation makes. */
export interface Transition {
  /** The states that allow it; from any other the gateway answers E2003. */
  readonly from: readonly PaymentStatus[];
  readonly to: PaymentStatus;
  /** Only for elements with these field values. */
  readonly when?: ElementCondition;
  /** Refunds: whether some of the order's amount is still refundable afterwards. */
  readonly balance?: 'left' | 'none';
}

export interface BatchRules {
  /** Request element fields in wire order; all are strings and all are required. */
  readonly elementFields: readonly string[];
  /** Result element fields in the spec's order: request fields echoed, then the gateway's own. */
  readonly resultFields: readonly string[];
  /** The result field holding the gateway's `code:text` message. */
  readonly messageField: 'error_message' | 'refund_message';
  readonly transitions: readonly Transition[];
}

const S = PaymentStatus;
/** The fields that name the order, first in every request element. */
export const ORDER_FIELDS = ['transaction_id', 'order_no', 'currency', 'amount'] as const;

export const BATCH_RULES: Readonly<Record<BatchOperation, BatchRules>> = {
  capture: {
    elementFields: ORDER_FIELDS,
    resultFields: [...ORDER_FIELDS, 'capture_status', 'error_message'],
    messageField: 'error_message',
    transitions: [{ from: [S.Authorised], to: S.Captured }],
  },
  cancel: {
    elementFields: ORDER_FIELDS,
    resultFields: [...ORDER_FIELDS, 'cancel_status', 'error_message'],
    messageField: 'error_message',
    transitions: [{ from: [S.Authorised, S.HeldForReview], to: S.Cancelled }],
  },
  review: {
    elementFields: [...ORDER_FIELDS, 'review_flag'],
    resultFields: [...ORDER_FIELDS, 'review_flag', 'review_status', 'error_message'],
    messageField: 'error_message',
    transitions: [
      { from: [S.HeldForReview], to: S.Authorised, when: { review_flag: '1' } },
      { from: [S.HeldForReview], to: S.Cancelled, when: { review_flag: '0' } },
    ],
  },
  refund: {
    elementFields: [...ORDER_FIELDS, 'refund_amount', 'refund_reason'],
    // The spec lists the refund result alphabetically, unlike the others.
    resultFields: [
      'amount',
      'currency',
      'order_no',
      'refund_amount',
      'refund_reason',
      'transaction_id',
      'refund_message',
      'refund_reference',
      'refund_reference_id',
      'refund_status',
    ],
    messageField: 'refund_message',
    transitions: [
      { from: [S.Captured, S.PartiallyRefunded], to: S.PartiallyRefunded, balance: 'left' },
      { from: [S.Captured, S.PartiallyRefunded], to: S.FullyRefunded, balance: 'none' },
    ],
  },
};

/** Whether an element has every field value of `when` (no condition: every element). */
export function elementMatches(
  when: ElementCondition | undefined,
  element: Readonly<Record<string, unknown>>,
): boolean {
  if (when === undefined) return true;
  for (const field in when) if (element[field] !== when[field]) return false;
  return true;
}

const allowed = new Map<BatchOperation, readonly PaymentStatus[]>();

/** The states from which the operation can take effect (for some element). */
export function allowedFrom(op: BatchOperation): readonly PaymentStatus[] {
  let states = allowed.get(op);
  if (states === undefined) {
    states = [...new Set(BATCH_RULES[op].transitions.flatMap((t) => t.from))];
    allowed.set(op, states);
  }
  return states;
}

/**
 * The state an order in `from` moves to when the operation applies with `element`, or undefined
 * when the operation is not allowed there. `balanceLeft`: refunds only, whether some of the amount
 * stays refundable after this refund.
 */
export function nextStatus(
  op: BatchOperation,
  from: string,
  element: Readonly<Record<string, unknown>>,
  balanceLeft = false,
): PaymentStatus | undefined {
  for (const t of BATCH_RULES[op].transitions) {
    if (!(t.from as readonly string[]).includes(from)) continue;
    if (!elementMatches(t.when, element)) continue;
    if (t.balance !== undefined && (t.balance === 'left') !== balanceLeft) continue;
    return t.to;
  }
  return undefined;
}
