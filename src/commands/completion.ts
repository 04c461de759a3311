import type { Command } from 'commander';
import type { App } from './app.js';

export function registerCompletion(program: Command, app: App): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh, fish)')
    .action(app.action(async () => (await import('./not-built.js')).notBuilt('completion')));
}
