import { defineCommand, defineGroup } from './define.js';

export const registerKeys = defineGroup({
  name: 'keys',
  description: 'your personal key for signing plans and approvals (four eyes, docs/approvals.md)',
  help: `
Your key signs the plans you make (payops plan) and the plans you approve (payops approve). It is
yours alone: an Ed25519 pair kept in the config folder (PAYOPS_HOME), never the gateway's sign key.
Your team lists everyone's \`payops keys show\` line in its approvers file.

Examples:
  payops keys create --name "Ana Silva"
  payops keys create --name "Ana Silva" --passphrase
  payops keys show >> team/approvers.txt`,
  commands: [
    defineCommand({
      name: 'create',
      description: 'make your key pair; prints the line for the approvers file',
      options: {
        name: {
          type: 'string',
          value: 'text',
          description: 'your name as your team knows it',
          required: true,
        },
        passphrase: {
          type: 'boolean',
          description:
            'protect the private key with a passphrase, asked twice (or env PAYOPS_KEY_PASSPHRASE)',
        },
        force: { type: 'boolean', description: 'replace the key you have' },
      },
      help: `
The private key is written to <config folder>/keys/personal.json, mode 0600. With --passphrase, or
with PAYOPS_KEY_PASSPHRASE set, it is stored encrypted (PKCS#8, aes-256-cbc) and the passphrase is
asked for (or read from PAYOPS_KEY_PASSPHRASE) each time you sign. An existing key is replaced only
with --force.

Examples:
  payops keys create --name "Ana Silva"
  PAYOPS_KEY_PASSPHRASE=… payops keys create --name "Cron Runner"`,
      run: async (ctx, opts) =>
        (await import('../approval/keys.js')).runKeysCreate(ctx, {
          name: opts.name,
          ...(opts.passphrase ? { passphrase: true } : {}),
          ...(opts.force ? { force: true } : {}),
        }),
    }),
    defineCommand({
      name: 'show',
      description: 'print your name, fingerprint and public key on one line (for the approvers file)',
      help: `
The line is NAME SHA256:<fingerprint> ed25519:<public key>; the approvers file is made of them.
It holds nothing secret.

Examples:
  payops keys show`,
      run: async (ctx) => (await import('../approval/keys.js')).runKeysShow(ctx),
    }),
  ],
});
