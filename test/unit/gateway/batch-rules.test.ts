// The gateway's batch rules say what gateway-api.md ("Batch order records") and design.md §1.4 say.
// The sandbox and the CLI both read this table, so it is pinned here against the documents' words.
import { describe, expect, it } from 'vitest';
import { allowedFrom, BATCH_RULES, elementMatches, nextStatus } from '../../../src/gateway/batch-rules.js';
import { BATCH_OPERATIONS, ENDPOINTS } from '../../../src/gateway/endpoints.js';
import { PAYMENT_STATUS_LABELS, PAYMENT_STATUSES, PaymentStatus } from '../../../src/gateway/status.js';
import { PAYMENT_STATUS_LABELS as TYPES_LABELS } from '../../../src/gateway/types.js';

describe('payment statuses', () => {
  it('are the codes of design.md §1.3, each with its label', () => {
    expect(PAYMENT_STATUSES).toEqual(['1000', '2000', '2100', '3000', '4000', '4100', '5000', '6000']);
    expect(PaymentStatus.PartiallyRefunded).toBe('4100');
    expect(PAYMENT_STATUS_LABELS['2100']).toBe('held for review');
    // gateway/types.ts still exports the same table (until it re-exports this one).
    expect(PAYMENT_STATUS_LABELS).toEqual(TYPES_LABELS);
  });
});

describe('batch rules', () => {
  it('list the request and result fields of gateway-api.md', () => {
    const order = ['transaction_id', 'order_no', 'currency', 'amount'];
    expect(BATCH_RULES.capture.elementFields).toEqual(order);
    expect(BATCH_RULES.cancel.elementFields).toEqual(order);
    expect(BATCH_RULES.review.elementFields).toEqual([...order, 'review_flag']);
    expect(BATCH_RULES.refund.elementFields).toEqual([...order, 'refund_amount', 'refund_reason']);
    expect(BATCH_RULES.capture.resultFields).toEqual([...order, 'capture_status', 'error_message']);
    expect(BATCH_RULES.review.resultFields).toEqual([
      ...order,
      'review_flag',
      'review_status',
      'error_message',
    ]);
    expect(BATCH_RULES.refund.resultFields).toEqual([
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
    ]);
    for (const op of BATCH_OPERATIONS) {
      const rules = BATCH_RULES[op];
      // Every request field is echoed; the status and message fields are in the result.
      for (const f of rules.elementFields) expect(rules.resultFields).toContain(f);
      expect(rules.resultFields).toContain(ENDPOINTS[op].statusField);
      expect(rules.resultFields).toContain(rules.messageField);
    }
  });

  it('move orders as design.md §1.4 says, and nowhere else', () => {
    const moves = (op: (typeof BATCH_OPERATIONS)[number], el: Record<string, string>, left?: boolean) =>
      Object.fromEntries(
        PAYMENT_STATUSES.flatMap((from) => {
          const to = nextStatus(op, from, el, left);
          return to === undefined ? [] : [[from, to]];
        }),
      );
    expect(moves('capture', {})).toEqual({ '2000': '3000' });
    expect(moves('cancel', {})).toEqual({ '2000': '5000', '2100': '5000' });
    expect(moves('review', { review_flag: '1' })).toEqual({ '2100': '2000' });
    expect(moves('review', { review_flag: '0' })).toEqual({ '2100': '5000' });
    expect(moves('review', { review_flag: '2' })).toEqual({});
    expect(moves('refund', {}, true)).toEqual({ '3000': '4100', '4100': '4100' });
    expect(moves('refund', {}, false)).toEqual({ '3000': '4000', '4100': '4000' });
    expect(allowedFrom('cancel')).toEqual(['2000', '2100']);
    expect(allowedFrom('review')).toEqual(['2100']);
    expect(allowedFrom('refund')).toEqual(['3000', '4100']);
  });

  it('match elements on every field of a condition', () => {
    expect(elementMatches(undefined, {})).toBe(true);
    expect(elementMatches({ review_flag: '1' }, { review_flag: '1', amount: '1' })).toBe(true);
    expect(elementMatches({ review_flag: '1' }, { review_flag: '0' })).toBe(false);
    expect(elementMatches({ review_flag: '1' }, {})).toBe(false);
  });
});
