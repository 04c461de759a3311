// The flags of `payops capture|cancel|review|refund`: one order given by flags, or a file.
import { UsageError } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import type { InlineOrder } from './input.js';

export interface BulkFlags {
  file?: string;
  transactionId?: string;
  orderNo?: string;
  currency?: string;
  amount?: string;
  refundAmount?: string;
  refundReason?: string;
  reviewFlag?: string;
  resume?: boolean;
  force?: boolean;
  maxOrders?: number;
  maxAmount?: string[];
}

const ORDER_FLAGS: Record<BatchOperation, Array<[string, keyof BulkFlags]>> = {
  capture: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
  ],
  cancel: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
  ],
  review: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
    ['review_flag', 'reviewFlag'],
  ],
  refund: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
    ['refund_amount', 'refundAmount'],
    ['refund_reason', 'refundReason'],
  ],
};

const ALL_ORDER_FLAGS: Array<keyof BulkFlags> = [
  'transactionId',
  'orderNo',
  'currency',
  'amount',
  'refundAmount',
  'refundReason',
  'reviewFlag',
];

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** One order given by flags, or undefined for --file; refuses both, neither, and foreign flags. */
export function inlineOrder(op: BatchOperation, flags: BulkFlags): InlineOrder | undefined {
  const given = ALL_ORDER_FLAGS.filter((k) => flags[k] !== undefined);
  if (flags.file !== undefined) {
    if (given.length > 0) {
      throw new UsageError(
        `give either --file or the order flags, not both (${given.map(flagName).join(', ')})`,
      );
    }
    return undefined;
  }
  if (given.length === 0) {
    throw new UsageError(
      `give --file FILE.csv, or one order with ${ORDER_FLAGS[op].map(([, k]) => flagName(k)).join(' ')}`,
    );
  }
  const allowed = new Set(ORDER_FLAGS[op].map(([, k]) => k));
  const foreign = given.filter((k) => !allowed.has(k));
  if (foreign.length > 0) {
    throw new UsageError(
      `${foreign.map(flagName).join(', ')} ${foreign.length > 1 ? 'do' : 'does'} not apply to ${op}`,
    );
  }
  // Missing values become empty cells, so validation names each missing flag.
  return ORDER_FLAGS[op].map(([field, key]) => [field, String(flags[key] ?? '')]);
}
