import type { Command } from 'commander';
import type { App } from './app.js';

export function registerCall(program: Command, app: App): void {
  program
    .command('call')
    .description('send a signed raw request to any gateway path')
    .action(app.action(async () => (await import('./not-built.js')).notBuilt('call')));
}
