// Builds the commander program and maps every outcome to an exit code. This file and the command
// files it registers import nothing heavy: each command loads its implementation when it runs,
// so `payops --help` and argument errors stay as fast as a bare node start allows.
import { Command, CommanderError } from 'commander';
import type { App } from './commands/app.js';
import { registerApprove } from './commands/approve.js';
import { registerArgvGuard } from './commands/argv-guard.js';
import { registerAudit } from './commands/audit.js';
import { registerBulk } from './commands/bulk.js';
import { registerCall } from './commands/call.js';
import { registerCompleteValues, registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { addOptions } from './commands/define.js';
import { registerEvents } from './commands/events.js';
import { GLOBAL_OPTIONS } from './commands/globals.js';
import { groupHelp, helpLayout } from './commands/help.js';
import { registerInspect } from './commands/inspect.js';
import { registerKeys } from './commands/keys.js';
import { registerListen } from './commands/listen.js';
import { registerPay } from './commands/pay.js';
import { registerPayout } from './commands/payout.js';
import { registerPlan } from './commands/plan.js';
import { registerQuery } from './commands/query.js';
import { registerRefunds } from './commands/refunds.js';
import { registerRuns } from './commands/runs.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerStatus } from './commands/status.js';
import { suggestNearCommands } from './commands/suggest.js';
import { checkHome } from './config/home.js';
import {
  type Context,
  type ContextOverrides,
  createContext,
  processIo,
  SANDBOX_NOTE,
  useColor,
} from './context.js';
import { ExitCode, errorCodeFor, exitCodeAfterOutput, exitCodeFor, isCommanderError } from './errors.js';
import { type GlobalOptions, guardOutput, type Io, type OutputState, outputSettled } from './io.js';
import { fitHelp } from './output/help-fit.js';
import type { Paged } from './output/pager.js';
import { reportError } from './output/report-error.js';
import { createRunDocument, gatewayFacts } from './output/run-document.js';
import { redactText } from './redact.js';
import { readVersion } from './version.js';

export function buildProgram(io: Io, app: App): Command {
  // Usage errors echo the offending argument: never echo a card number typed in the wrong place.
  // Help is fitted to a terminal's width, and to 80 columns into a pipe or a file (issue 27, item 7).
  const outWidth = () => (io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : 80);
  const errWidth = () => (io.stderr.isTTY && io.stderr.columns ? io.stderr.columns : 80);
  const output = {
    // Commander writes help (and --version) here.
    writeOut: (s: string) => io.stdout.write(fitHelp(s, outWidth())),
    writeErr: (s: string) => io.stderr.write(redactText(s)),
    getOutHelpWidth: outWidth,
    getErrHelpWidth: errWidth,
  };
  const program = new Command('payops')
    .description(
      'Operate a merchant account on the payment gateway: refunds, captures, queries, payments, payouts.',
    )
    .version(readVersion(), '-V, --version');
  helpLayout(program);
  addOptions(program, GLOBAL_OPTIONS)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(output)
    .exitOverride();

  registerArgvGuard(program, io.cwd);
  registerConfig(program, app);
  registerStatus(program, app);
  registerPay(program, app);
  registerQuery(program, app);
  registerBulk(program, app);
  registerRefunds(program, app);
  registerInspect(program, app);
  registerPayout(program, app);
  registerRuns(program, app);
  registerListen(program, app);
  registerEvents(program, app);
  registerAudit(program, app);
  registerPlan(program, app);
  registerApprove(program, app);
  registerKeys(program, app);
  registerCall(program, app);
  registerSandbox(program, app);
  registerCompletion(program, app);
  registerCompleteValues(program, app);
  groupHelp(program);

  // Subcommands inherit the output settings and the exit override.
  for (const cmd of allCommands(program)) {
    cmd.exitOverride();
    cmd.configureOutput(output);
    cmd.showHelpAfterError('(run with --help for usage)');
  }
  suggestNearCommands(allCommands(program));
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
  // Long output of a listing or the help goes through a pager on a terminal (output/pager.ts).
  // Loaded only then: it brings node:child_process and node:stream, which the shell never loads.
  const paging: Paged | undefined =
    io.stdout.isTTY && pagedInvocation(argv)
      ? (await import('./output/pager.js')).startPaging(io, argv.includes('--no-pager'))
      : undefined;
  if (paging) {
    io = Object.defineProperties(Object.create(io) as Io, {
      stdout: { value: paging.stdout },
      stderr: { value: paging.stderr },
    });
  }
  let code: number = ExitCode.ok;
  let debug = argv.includes('--debug');
  // The sign key(s) this invocation knows, masked in any error report.
  let secrets: readonly string[] = [];
  // A reader that stops early (`| head`) must not stop a run: its writes are dropped from then on.
  const stdout = guardOutput(io.stdout);
  guardOutput(io.stderr);
  let ctx: Context | undefined;
  // What ended the command, for the JSON run document's `error`.
  let failure: unknown;
  const app: App = {
    action: (run) =>
      async function (this: Command) {
        const globals = this.optsWithGlobals<GlobalOptions>();
        debug = Boolean(globals.debug);
        // Before anything reads or writes it: a home that cannot work is refused (exit 4), not spun on.
        checkHome(io.env, io.cwd);
        const c = createContext(io, globals, overrides);
        ctx = c;
        secrets = c.secrets;
        try {
          code = await run(c, this);
        } finally {
          await c.close();
        }
      },
  };

  const program = buildProgram(io, app);
  const outcome = async (): Promise<number> => {
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
        failure = err;
        return ExitCode.usage;
      }
      // Coloured as the command's context says; before one exists (a parse error), as the argv does.
      const color = ctx?.color ?? useColor(io, { noColor: argv.includes('--no-color') });
      failure = err;
      reportError(err, io, { debug, secrets: [...secrets], color });
      return exitCodeFor(err);
    }
  };
  const result = await outcome();
  if (ctx?.runDocument) await finishRunDocument(ctx, result, failure, secrets);
  else if (ctx === undefined && failure !== undefined) await usageRunDocument(argv, io, result, failure);
  const movedMoney = ctx?.movedMoney ?? false;
  // Refunds "succeeded" against the sandbox must never pass for real ones, even under --quiet.
  if (movedMoney && ctx?.usedSandbox && !ctx.sandboxNoted) ctx.log.warn(`payops: ${SANDBOX_NOTE}`);
  // A signal asked to stop while nobody read stdout: waiting for the reader is what it asked not to.
  if (ctx?.stdoutAbandoned && io.exitAtOnce) io.exitAtOnce(result);
  await paging?.finish();
  await outputSettled(io.stdout);
  return afterClosedOutput(result, stdout, movedMoney, io);
}

/** Global options that take a value: their value is not a command word. */
const VALUED = new Set(
  Object.entries(GLOBAL_OPTIONS).flatMap(([name, spec]) =>
    spec.type === 'boolean'
      ? []
      : [`--${name}`, ...('short' in spec && spec.short ? [`-${spec.short}`] : [])],
  ),
);

/**
 * Whether this invocation writes a listing a person reads page by page: the help, `runs show`,
 * `runs list`, `query` and `refunds`. Never a command that asks or moves money.
 */
function pagedInvocation(argv: readonly string[]): boolean {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') return true;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUED.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  const [first, second] = words;
  if (first === 'help') return true;
  if (first === 'runs') return second === 'show' || second === 'list';
  return first === 'query' || first === 'refunds';
}

/** The JSON run document's end (output/run-document.ts), whatever way the command ended. */
async function finishRunDocument(
  ctx: Context,
  code: number,
  failure: unknown,
  secrets: readonly string[],
): Promise<void> {
  const doc = ctx.runDocument!;
  const c = ctx.loadedConfig;
  if (doc.gateway === null && c) doc.gateway = gatewayFacts(c);
  const o = doc.outcome;
  const state =
    failure !== undefined && o?.state === 'finished'
      ? 'stopped'
      : (o?.state ??
        (ctx.globals.dryRun && code === ExitCode.ok ? 'dry_run' : doc.runId ? 'stopped' : 'not_started'));
  const error =
    failure !== undefined
      ? {
          code: errorCodeFor(failure),
          message: redactText(failure instanceof Error ? failure.message : String(failure), [...secrets]),
        }
      : (o?.error ?? null);
  await doc.finish({
    state,
    ...(o?.counts ? { counts: o.counts } : {}),
    ...(o?.totals ? { totals: o.totals } : {}),
    exit_code: code,
    error,
  });
}

/**
 * A money-moving command refused by commander itself (an unknown flag, a bad --settle-time) under
 * `--output json`: nothing ran, and stdout is still the one document a script parses.
 */
async function usageRunDocument(argv: string[], io: Io, code: number, failure: unknown): Promise<void> {
  const json = argv.some((a, i) => a === '--output=json' || (a === '--output' && argv[i + 1] === 'json'));
  const operation = argv.find((a) => ['refund', 'capture', 'cancel', 'review', 'payout'].includes(a));
  if (!json || operation === undefined) return;
  // run-document.ts is in the shell already (imported above); only the outcome list is loaded.
  const outcomes = await (operation === 'payout'
    ? import('./payout/document.js').then((m) => m.PAYOUT_OUTCOMES)
    : import('./bulk/report/results.js').then((m) => m.OUTCOMES));
  const message = (failure as Error).message.replace(/^error: /, '');
  await createRunDocument(io.stdout, operation, outcomes).finish({
    state: 'not_started',
    exit_code: code,
    error: { code: errorCodeFor(failure), message: redactText(message) },
  });
}

/**
 * What main() says when stdout could not be written for another reason than its reader going away;
 * the exit code is errors.ts's (exitCodeAfterOutput).
 */
function afterClosedOutput(code: number, stdout: OutputState, movedMoney: boolean, io: Io): number {
  if (stdout.closed && stdout.error) {
    const e = stdout.error as NodeJS.ErrnoException;
    io.stderr.write(
      `payops: standard output could not be written (${e.code ?? e.message}): what it shows is incomplete${movedMoney ? '; the run journal has every result (payops runs show)' : ''}\n`,
    );
  }
  return exitCodeAfterOutput(code, stdout, movedMoney);
}
