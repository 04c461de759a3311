import { type Command, CommanderError } from 'commander';
import type { SandboxCommandOptions } from '../sandbox/run.js';
import { type App, collect } from './app.js';

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new CommanderError(2, 'commander.invalidArgument', `--port must be 0–65535, not "${value}"`);
  }
  return Number(value);
}

function seedCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 1_000_000) {
    throw new CommanderError(
      2,
      'commander.invalidArgument',
      `--seed must be a whole number 0–1000000, not "${value}"`,
    );
  }
  return Number(value);
}

export function registerSandbox(program: Command, app: App): void {
  program
    .command('sandbox')
    .description('serve the sandbox gateway (demo credentials, test cards, admin API) until Ctrl-C')
    .option('--host <host>', 'address to listen on (loopback unless --allow-remote)', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', portNumber, 8787)
    .option('--seed <n>', 'start with N captured (3000) orders', seedCount)
    .option('--samples', 'also load the sample orders of samples/sandbox-orders.csv (ORD-1001…)')
    .option('--data <dir>', 'keep state in DIR (append-only log) and reload it at start')
    .option('--registered-ip <ip>', 'caller IP allowed on the query endpoint (repeatable)', collect)
    .option('--allow-remote', 'allow a non-loopback --host (the sandbox has no real security)')
    .addHelpText(
      'after',
      '\nPrints the base URL on stdout (for scripts) and the demo credentials on stderr.\nSee docs/sandbox.md.',
    )
    .action(
      app.action<SandboxCommandOptions>(async (ctx, opts) =>
        (await import('../sandbox/run.js')).runSandbox(ctx, opts),
      ),
    );
}
