import type { Command } from 'commander';
import type { App } from './app.js';

const impl = () => import('../config/commands.js');

export function registerConfig(program: Command, app: App): void {
  const config = program
    .command('config')
    .description('manage configuration profiles')
    .addHelpText(
      'after',
      '\nKeys: base_url, merchant_id, account_id, sign_key, timeout, concurrency, read_only, status_labels.\n' +
        'The sign key is never printed. See docs/configuration.md.',
    );
  config
    .command('init')
    .description('create or update a profile interactively')
    .action(app.action(async (ctx) => (await impl()).configInit(ctx)));
  config
    .command('set')
    .description('set KEY to VALUE in the current profile (sign_key: asked for, or read from stdin)')
    .argument('<key>', 'configuration key')
    .argument('[value]', 'new value (leave out for sign_key)')
    .action(app.action(async (ctx, _opts, args) => (await impl()).configSet(ctx, args[0]!, args[1])));
  config
    .command('get')
    .description('print the value of KEY in effect (sign_key: only whether it is set)')
    .argument('<key>', 'configuration key')
    .action(app.action(async (ctx, _opts, args) => (await impl()).configGet(ctx, args[0]!)));
  config
    .command('list')
    .description('list profiles and their settings (sign key masked)')
    .action(app.action(async (ctx) => (await impl()).configList(ctx)));
  config
    .command('use')
    .description('make PROFILE the default')
    .argument('<profile>', 'profile name')
    .action(app.action(async (ctx, _opts, args) => (await impl()).configUse(ctx, args[0]!)));
}
