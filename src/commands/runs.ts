import type { Command } from 'commander';
import type { App } from './app.js';

export function registerRuns(program: Command, app: App): void {
  const runs = program.command('runs').description('bulk runs and their journals');
  for (const [name, description] of [
    ['list', 'list bulk runs, newest first'],
    ['show', 'show the results of run ID'],
    ['resume', 'resume the interrupted run ID'],
  ] as const) {
    runs
      .command(name)
      .description(description)
      .action(app.action(async () => (await import('./not-built.js')).notBuilt(`runs ${name}`)));
  }
}
