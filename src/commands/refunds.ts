import type { Command } from 'commander';
import type { App } from './app.js';

export function registerRefunds(program: Command, app: App): void {
  const refunds = program.command('refunds').description('refund records');
  refunds
    .command('search')
    .description('search refund records by order number, transaction id, CSV file or date range')
    .action(app.action(async () => (await import('./not-built.js')).notBuilt('refunds search')));
}
