import { defineCommand, defineGroup } from './define.js';

const impl = () => import('../setup/config-commands.js');

export const registerConfig = defineGroup({
  name: 'config',
  description: 'manage configuration profiles',
  help:
    '\nKeys: base_url, merchant_id, account_id, sign_key, timeout, concurrency, settle_time, read_only, status_labels, rate,\n' +
    'confirm_typed_above, decimal_mark,\n' +
    "columns.refund, columns.capture, columns.cancel, columns.review, columns.payout, columns.query (a file's headers, as --columns),\n" +
    'approvers_file, approval_required, approvals (four-eyes approval: docs/approvals.md).\n' +
    'The sign key is never printed. `payops status` shows which settings are in use and where each\n' +
    'came from. See docs/configuration.md.\n\n' +
    'Examples:\n' +
    '  payops config init\n' +
    '  payops config set base_url https://gateway.example.com --profile live\n' +
    '  payops config use live',
  commands: [
    defineCommand({
      name: 'init',
      description: 'create or update a profile by answering questions, and test it',
      help: `
Offers the built-in sandbox with its demo values, or asks for a real gateway's address (https://),
merchant id, account id and sign key (hidden). A real gateway is then asked two read-only questions
to check that it accepts the key and answers query calls from this machine. Nothing is saved until
the last answer; Ctrl-C at any question saves nothing (exit 130).

Examples:
  payops config init
  payops config init --profile live`,
      run: async (ctx) => (await impl()).runConfigInit(ctx),
    }),
    defineCommand({
      name: 'set',
      description: 'set KEY to VALUE in the current profile (sign_key: asked for, or read from stdin)',
      args: {
        key: { description: 'configuration key' },
        value: { description: 'new value (leave out for sign_key)', optional: true },
      },
      help: `
Examples:
  payops config set merchant_id 800001
  payops config set sign_key                      (asks for the key, hidden)
  payops config set read_only true --profile support`,
      run: async (ctx, _opts, { key, value }) => (await impl()).configSet(ctx, key, value),
    }),
    defineCommand({
      name: 'unset',
      description: 'remove KEY from the current profile',
      args: { key: { description: 'configuration key' } },
      help: `
Examples:
  payops config unset columns.refund
  payops config unset rate --profile live`,
      run: async (ctx, _opts, { key }) => (await impl()).configUnset(ctx, key),
    }),
    defineCommand({
      name: 'get',
      description: 'print the value of KEY in effect (sign_key: only whether it is set)',
      args: { key: { description: 'configuration key' } },
      help: `
Examples:
  payops config get base_url
  payops config get sign_key --profile live       (only whether it is set)`,
      run: async (ctx, _opts, { key }) => (await impl()).configGet(ctx, key),
    }),
    defineCommand({
      name: 'list',
      description: 'list profiles and their settings (sign key masked)',
      help: `
Examples:
  payops config list
  payops config list --output json`,
      run: async (ctx) => (await impl()).configList(ctx),
    }),
    defineCommand({
      name: 'use',
      description: 'make PROFILE the one used when no --profile is given',
      args: { profile: { description: 'profile name' } },
      help: `
Examples:
  payops config use live
  payops config use sandbox-demo`,
      run: async (ctx, _opts, { profile }) => (await impl()).configUse(ctx, profile),
    }),
  ],
});
