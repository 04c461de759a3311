import type { Command } from 'commander';
import type { App } from './app.js';
import { addSelectorOptions } from './query.js';

export function registerRefunds(program: Command, app: App): void {
  const refunds = program.command('refunds').description('refund records');
  const search = refunds
    .command('search')
    .description('search refund records by order number, transaction id, CSV file or date range')
    .addHelpText(
      'after',
      `
Each refund is one record, referenced <transaction_id>-NN (01, 02, …). Orders asked for that have
no refund record are listed on stderr and the exit code is 1. --from/--to select on refund_date.

Examples:
  payops refunds search --transaction-id T123
  payops refunds search --from 2026-11-01 --output csv --out refunds.csv`,
    );
  addSelectorOptions(search, 'refund date').action(
    app.action(async (ctx, opts) => (await import('../query/command.js')).runRefundSearch(ctx, opts)),
  );
}
