// Builds the commander program and maps every outcome to an exit code. This file and the command
// files it registers import nothing heavy: each command loads its implementation when it runs,
// so `payops --help` and argument errors stay as fast as a bare node start allows.
import { Command, CommanderError, Option } from 'commander';
import { type App, positiveInt } from './commands/app.js';
import { registerBulk } from './commands/bulk.js';
import { registerCall } from './commands/call.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerPay } from './commands/pay.js';
import { registerPayout } from './commands/payout.js';
import { registerQuery } from './commands/query.js';
import { registerRefunds } from './commands/refunds.js';
import { registerRuns } from './commands/runs.js';
import { registerSandbox } from './commands/sandbox.js';
import { type ContextOverrides, createContext, processIo } from './context.js';
import { ExitCode, exitCodeFor, isCommanderError } from './errors.js';
import type { GlobalOptions, Io } from './io.js';
import { reportError } from './output/report-error.js';
import { redactText } from './redact.js';
import { readVersion } from './version.js';

export function buildProgram(io: Io, app: App): Command {
  // Usage errors echo the offending argument: never echo a card number typed in the wrong place.
  const output = {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(redactText(s)),
  };
  const program = new Command('payops')
    .description(
      'Operate a merchant account on the payment gateway: refunds, captures, queries, payments, payouts.',
    )
    .version(readVersion(), '-V, --version')
    .option('--profile <name>', 'configuration profile to use (env PAYOPS_PROFILE)')
    .option('--sandbox', 'start an in-process sandbox gateway and run the command against it')
    .addOption(
      new Option('--output <format>', 'result format (default: table on a terminal, csv otherwise)').choices([
        'table',
        'csv',
        'json',
      ]),
    )
    .option('--out <file>', 'write results to FILE (CSV, or JSON when it ends in .json)')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--dry-run', 'validate and print the plan; send nothing')
    .option('--concurrency <n>', 'requests in flight at once (default 4)', positiveInt('--concurrency'))
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 30000)', positiveInt('--timeout'))
    .option('--base-url <url>', 'gateway base URL (env PAYOPS_BASE_URL)')
    .option('--merchant-id <id>', 'merchant id (env PAYOPS_MERCHANT_ID)')
    .option('--account-id <id>', 'account id (env PAYOPS_ACCOUNT_ID)')
    .option(
      '--sign-key <key>',
      'sign key (prefer PAYOPS_SIGN_KEY or the profile: flags end up in shell history)',
    )
    .option('--allow-insecure-http', 'allow plain http:// to a host other than loopback')
    .option('-v, --verbose', 'log each request (method, path, status, duration) to stderr')
    .option('--debug', 'also log request and response bodies (card data masked, secrets removed)')
    .option('-q, --quiet', 'print nothing on stderr but errors')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(output)
    .exitOverride();

  registerConfig(program, app);
  registerPay(program, app);
  registerQuery(program, app);
  registerBulk(program, app);
  registerRefunds(program, app);
  registerPayout(program, app);
  registerRuns(program, app);
  registerCall(program, app);
  registerSandbox(program, app);
  registerCompletion(program, app);

  // Subcommands inherit the output settings and the exit override.
  for (const cmd of allCommands(program)) {
    cmd.exitOverride();
    cmd.configureOutput(output);
    cmd.showHelpAfterError('(run with --help for usage)');
  }
  return program;
}

export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/**
 * Run one invocation. `io` carries the streams, environment and working directory; `overrides`
 * replaces how the Context builds its config and gateway client — in-process tests pass a fake
 * gateway here: `main(argv, io, { clientFactory: () => fake.client })` (see ContextOverrides).
 */
export async function main(
  argv: string[],
  io: Io = processIo(),
  overrides: ContextOverrides = {},
): Promise<number> {
  let code: number = ExitCode.ok;
  let debug = argv.includes('--debug');
  // The sign key(s) this invocation knows, masked in any error report.
  let secrets: readonly string[] = [];
  const app: App = {
    action:
      (runner) =>
      async (...args) => {
        const cmd = args[args.length - 1] as Command;
        const globals = cmd.optsWithGlobals() as GlobalOptions;
        debug = Boolean(globals.debug);
        const ctx = createContext(io, globals, overrides);
        secrets = ctx.secrets;
        try {
          code = await runner(ctx, cmd.opts() as never, args.slice(0, -2) as string[], cmd);
        } finally {
          await ctx.close();
        }
      },
  };

  const program = buildProgram(io, app);
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return ExitCode.usage;
    }
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError || isCommanderError(err)) {
      const e = err as CommanderError;
      // --help and --version end here with exit code 0; commander has already printed them.
      if (e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version') {
        return ExitCode.ok;
      }
      // `payops pay` without a subcommand: commander printed the help.
      return ExitCode.usage;
    }
    reportError(err, io, { debug, secrets: [...secrets] });
    return exitCodeFor(err);
  }
}
