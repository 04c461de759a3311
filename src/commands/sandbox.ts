import type { Command } from 'commander';
import type { App } from './app.js';

export function registerSandbox(program: Command, app: App): void {
  program
    .command('sandbox')
    .description('serve the sandbox gateway on loopback')
    .action(app.action(async () => (await import('./not-built.js')).notBuilt('sandbox')));
}
