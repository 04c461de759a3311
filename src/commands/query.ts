import type { Command } from 'commander';
import type { App } from './app.js';

export function registerQuery(program: Command, app: App): void {
  program
    .command('query')
    .description('look up orders by order number, transaction id, CSV file or date range')
    .action(app.action(async () => (await import('./not-built.js')).notBuilt('query')));
}
