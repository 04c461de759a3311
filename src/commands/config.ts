import type { Command } from 'commander';
import type { App } from './app.js';

export function registerConfig(program: Command, app: App): void {
  const config = program.command('config').description('manage configuration profiles');
  for (const [name, description] of [
    ['init', 'create or update a profile interactively'],
    ['set', 'set KEY to VALUE in the current profile'],
    ['get', 'print the value of KEY'],
    ['list', 'list profiles and their settings (sign key masked)'],
    ['use', 'make PROFILE the default'],
  ] as const) {
    config
      .command(name)
      .description(description)
      .action(app.action(async () => (await import('./not-built.js')).notBuilt(`config ${name}`)));
  }
}
