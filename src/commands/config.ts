import { defineCommand, defineGroup } from './define.js';

const impl = () => import('../config/commands.js');

export const registerConfig = defineGroup({
  name: 'config',
  description: 'manage configuration profiles',
  help:
    '\nKeys: base_url, merchant_id, account_id, sign_key, timeout, concurrency, settle_time, read_only, status_labels, decimal_mark.\n' +
    'The sign key is never printed. See docs/configuration.md.',
  commands: [
    defineCommand({
      name: 'init',
      description: 'create or update a profile interactively',
      run: async (ctx) => (await impl()).configInit(ctx),
    }),
    defineCommand({
      name: 'set',
      description: 'set KEY to VALUE in the current profile (sign_key: asked for, or read from stdin)',
      args: {
        key: { description: 'configuration key' },
        value: { description: 'new value (leave out for sign_key)', optional: true },
      },
      run: async (ctx, _opts, { key, value }) => (await impl()).configSet(ctx, key, value),
    }),
    defineCommand({
      name: 'get',
      description: 'print the value of KEY in effect (sign_key: only whether it is set)',
      args: { key: { description: 'configuration key' } },
      run: async (ctx, _opts, { key }) => (await impl()).configGet(ctx, key),
    }),
    defineCommand({
      name: 'list',
      description: 'list profiles and their settings (sign key masked)',
      run: async (ctx) => (await impl()).configList(ctx),
    }),
    defineCommand({
      name: 'use',
      description: 'make PROFILE the default',
      args: { profile: { description: 'profile name' } },
      run: async (ctx, _opts, { profile }) => (await impl()).configUse(ctx, profile),
    }),
  ],
});
