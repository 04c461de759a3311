import { defineCommand, defineGroup } from './define.js';
import { ORDER_ARGS, selectorOptions, withPositional } from './query.js';

export const registerRefunds = defineGroup({
  name: 'refunds',
  description: 'refund records',
  commands: [
    defineCommand({
      name: 'search',
      description: 'search refund records by order number, transaction id, CSV file or date range',
      args: ORDER_ARGS,
      options: selectorOptions('refund date'),
      help: `
Each refund is one record, referenced <transaction_id>-NN (01, 02, …). Orders asked for that have
no refund record are listed on stderr and the exit code is 1. --from/--to select on refund_date;
a range alone returns the 100 newest, --all every refund of the range.

Examples:
  payops refunds search ORD-1001 ORD-1002
  payops refunds search --transaction-id T123
  payops refunds search --from 2026-11-01 --output csv --out refunds.csv
  payops refunds search --from 2026-11-01 --to 2026-11-30 --all --out november.csv`,

      run: async (ctx, opts, args) =>
        (await import('../query/command.js')).runRefundSearch(ctx, withPositional(opts, args['order-nos'])),
    }),
  ],
});
