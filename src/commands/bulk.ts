import type { Command } from 'commander';
import type { BatchOperation } from '../gateway/endpoints.js';
import { type App, positiveInt } from './app.js';
import { defineCommand } from './define.js';

const DESCRIPTIONS: Record<BatchOperation, string> = {
  capture: 'capture authorised orders from a CSV file or one order by flags',
  cancel: 'cancel authorised or held orders from a CSV file or one order by flags',
  review: 'approve (1) or reject (0) orders held for review, from a CSV file or by flags',
  refund: 'refund captured orders, fully or partially, from a CSV file or one order by flags',
};

const COLUMNS: Record<BatchOperation, string> = {
  capture: 'transaction_id,order_no,currency,amount',
  cancel: 'transaction_id,order_no,currency,amount',
  review: 'transaction_id,order_no,currency,amount,review_flag',
  refund: 'transaction_id,order_no,currency,amount,refund_amount,refund_reason',
};

export function registerBulk(program: Command, app: App): void {
  for (const op of ['capture', 'cancel', 'review', 'refund'] as const) {
    defineCommand({
      name: op,
      description: DESCRIPTIONS[op],
      options: {
        file: {
          type: 'string',
          value: 'csv',
          description: `orders to ${op}, one per row (columns ${COLUMNS[op]})`,
        },
        'transaction-id': { type: 'string', value: 'id', description: 'one order: its transaction_id' },
        'order-no': { type: 'string', value: 'no', description: 'one order: its order_no' },
        currency: { type: 'string', value: 'code', description: 'one order: ISO 4217 currency code' },
        amount: { type: 'string', value: 'amount', description: 'one order: the order amount, e.g. 10.50' },
        ...(op === 'refund'
          ? {
              'refund-amount': {
                type: 'string',
                value: 'amount',
                description: 'one order: the amount to refund (≤ amount)',
              },
              'refund-reason': { type: 'string', value: 'text', description: 'one order: the refund reason' },
            }
          : {}),
        ...(op === 'review'
          ? {
              'review-flag': {
                type: 'string',
                value: '0|1',
                description: 'one order: 1 approves, 0 rejects',
              },
            }
          : {}),
        resume: {
          type: 'boolean',
          description: 'continue the unfinished run of this file (nothing is sent twice)',
        },
        force: { type: 'boolean', description: 'run a file again that an earlier run already processed' },
        'max-orders': {
          type: 'number',
          value: 'n',
          description: 'refuse a file with more orders than this',
          parse: positiveInt,
        },
        'max-amount': {
          type: 'string[]',
          value: 'CUR:AMOUNT',
          description: 'refuse a file whose total in CUR is above AMOUNT (repeatable)',
        },
      },
      help: `
Every row is checked before anything is sent (all problems listed with file:line; exit 2).
The plan (rows, requests, totals per currency, gateway) is shown and confirmed first; --yes skips the
question, --dry-run stops after the plan. Each request is journaled before it is sent, so a run that
is interrupted or loses answers can be resumed (--resume) without sending anything twice.
Results: one row per input row with outcome succeeded|failed|unknown (table on a terminal, CSV/JSON
with --out or when piped). Exit 0 all succeeded, 1 some failed, 3 some unknown, 2 invalid input.

Examples:
  payops ${op} --file samples/${op === 'refund' ? 'refunds' : op}.csv --dry-run
  payops ${op} --file ${op}.csv --yes --out ${op}-results.csv
  payops ${op} --file ${op}.csv --resume --yes --out ${op}-results.csv`,
      run: async (ctx, opts) => (await import('../bulk/command.js')).runBulk(ctx, op, opts),
    })(program, app);
  }
}
