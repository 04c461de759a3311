import { CommanderError } from 'commander';
import { defineCommand } from './define.js';

function portNumber(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new CommanderError(2, 'commander.invalidArgument', `${flag} must be 0–65535, not "${value}"`);
  }
  return Number(value);
}

function seedCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 1_000_000) {
    throw new CommanderError(
      2,
      'commander.invalidArgument',
      `${flag} must be a whole number 0–1000000, not "${value}"`,
    );
  }
  return Number(value);
}

export const registerSandbox = defineCommand({
  name: 'sandbox',
  description: 'serve the sandbox gateway (demo credentials, test cards, admin API) until Ctrl-C',
  options: {
    host: {
      type: 'string',
      value: 'host',
      description: 'address to listen on (loopback unless --allow-remote)',
      default: '127.0.0.1',
    },
    port: {
      type: 'number',
      value: 'port',
      description: 'port to listen on; 0 picks a free one',
      parse: portNumber,
      default: 8787,
    },
    seed: {
      type: 'number',
      value: 'n',
      description: 'start with N captured (3000) orders',
      parse: seedCount,
    },
    samples: {
      type: 'boolean',
      description: 'also load the sample orders of samples/sandbox-orders.csv (ORD-1001…)',
    },
    data: {
      type: 'string',
      value: 'dir',
      description: 'keep state in DIR (append-only log) and reload it at start',
    },
    'registered-ip': {
      type: 'string[]',
      value: 'ip',
      description: 'caller IP allowed on the query endpoint (repeatable)',
    },
    'notify-retries': {
      type: 'string',
      value: 'list',
      description: 'delays between notification delivery attempts (default 1s,5s,30s,2m,10m; none)',
    },
    'notify-timeout': {
      type: 'string',
      value: 'time',
      description: "a notification delivery's deadline for the receiver's answer (default 10s)",
    },
    'allow-remote': {
      type: 'boolean',
      description: 'allow a non-loopback --host (the sandbox has no real security)',
    },
  },
  help: '\nPrints the base URL on stdout (for scripts) and the demo credentials on stderr.\nSee docs/sandbox.md.',
  run: async (ctx, opts) => (await import('../sandbox/run-sandbox.js')).runSandbox(ctx, opts),
});
