import type { Command } from 'commander';
import { type App, collect } from './app.js';

/** The selectors `payops query` and `payops refunds search` share (design.md §1.2). */
export function addSelectorOptions(cmd: Command, dateField: string): Command {
  return cmd
    .option('--order-no <no>', 'order number; repeat it or separate with commas', collect)
    .option('--transaction-id <id>', 'transaction id; repeat it or separate with commas', collect)
    .option('--file <csv>', 'CSV file with a column order_no or transaction_id')
    .option(
      '--from <date>',
      `earliest ${dateField}: YYYY-MM-DD, "YYYY-MM-DD hh:mm:ss" or YYYYMMDDhhmmss (local time unless --utc)`,
    )
    .option('--to <date>', `latest ${dateField}, inclusive; a bare date means to the end of that day`)
    .option('--utc', 'read --from/--to as UTC instead of local time');
}

export function registerQuery(program: Command, app: App): void {
  const cmd = program
    .command('query')
    .description('look up orders by order number, transaction id, CSV file or date range')
    .addHelpText(
      'after',
      `
One order on a terminal is shown as a card; several as a table. --output json|csv (or --out FILE)
gives every field the gateway returned. Orders asked for but not returned are listed as not found
and the exit code is 1. A date range without a list returns the gateway's 100 newest orders in it.

Examples:
  payops query --order-no ORD-1001 --with-refunds
  payops query --file orders.csv --output csv --out statuses.csv
  payops query --from 2026-11-01 --to 2026-11-07 --output json | jq '.[] | select(.payment_status=="2000")'`,
    );
  addSelectorOptions(cmd, 'transaction date')
    .option('--with-refunds', 'also search the refunds of the orders shown')
    .action(app.action(async (ctx, opts) => (await import('../query/command.js')).runQuery(ctx, opts)));
}
