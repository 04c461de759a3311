import type { Command } from 'commander';
import type { App } from './app.js';

export function registerPayout(program: Command, app: App): void {
  program
    .command('payout')
    .description('create payouts from a JSON request or a CSV file (idempotent on request_id)')
    .action(app.action(async () => (await import('./not-built.js')).notBuilt('payout')));
}
