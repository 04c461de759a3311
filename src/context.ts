// Per-invocation context: streams, global options, and lazily created config and gateway client.
// Nothing here runs on import; `createContext` is called once by main() for each invocation, so
// tests can run many invocations in one process without shared state. How the config and the
// client are built is a seam (ContextOverrides, in the spirit of gh's cmdutil.Factory): the real
// builders load lazily from config/load.ts and factory.ts; a test passes its own.

import type { ResolvedConfig } from './config/resolve.js';
import type { GatewayClient } from './gateway/client.js';
import type { GlobalOptions, Invocation, Io, Logger } from './io.js';
import { gatewayFacts, type RunDocument } from './output/run-document.js';
import { tone } from './output/tone.js';
import { fitMessage } from './output/width.js';
import { terminalSafe } from './quote.js';
import { redactSecrets } from './redact.js';

export interface Context extends Invocation {
  readonly color: boolean;
  /** Resolved configuration (flag > environment > profile); starts the in-process sandbox with --sandbox. */
  config(): Promise<ResolvedConfig>;
  /** The signed gateway client; fails with a ConfigError (exit 4) when no sign key is configured. */
  client(): Promise<GatewayClient>;
  /** Values masked in every error report and log line of this invocation (the sign key). */
  readonly secrets: readonly string[];
  /**
   * True once a request that can move money (a money-moving endpoint, or `payops call`) was handed
   * to the client (factory.ts tells it; an injected client does not): such a command's exit code
   * stays its own when stdout's reader is gone, and a sandbox run says so.
   */
  readonly movedMoney: boolean;
  /** True once config() resolved to the in-process sandbox (--sandbox, base_url "sandbox", or none). */
  readonly usedSandbox: boolean;
  /**
   * Set by a command whose own summary line said that the built-in sandbox served it (a bulk run);
   * otherwise main() says so in a line of its own after any command that moved money there.
   */
  sandboxNoted: boolean;
  /**
   * Set by a run stopped by a signal while rows still waited for stdout's reader: main() then ends
   * the process without waiting for that reader (the rows are in the journal; runs show has them).
   */
  stdoutAbandoned: boolean;
  /**
   * A money-moving run under `--output json`: the one JSON document its stdout carries
   * (output/run-document.ts). The command opens it; main() finishes it on every way out.
   */
  runDocument: RunDocument | undefined;
  /** The settings once config() has resolved them (for the run document's gateway). */
  readonly loadedConfig: ResolvedConfig | undefined;
  close(): Promise<void>;
}

/** How every run the built-in sandbox served says so, even under --quiet. */
export const SANDBOX_NOTE = 'built-in sandbox: no real money moved';

/**
 * Replacements for how an invocation builds its config and its gateway client; each defaults to the
 * real one. In-process command tests use them through `main(argv, io, overrides)`:
 *
 *   const fake = fakeGateway(10);
 *   await main(['refund', '--file', f, '--yes'], io, { clientFactory: () => fake.client });
 *
 * Without `loadConfig` the real resolution runs on `io.env` (PAYOPS_HOME: where the config file and
 * run journals are). With no gateway configured it starts the embedded sandbox, so a test with a
 * fake client sets PAYOPS_BASE_URL (any https:// URL), PAYOPS_MERCHANT_ID, PAYOPS_ACCOUNT_ID and
 * PAYOPS_SIGN_KEY in `io.env`, or passes `loadConfig`. The Context does not close an injected
 * client: it belongs to the test.
 */
export interface ContextOverrides {
  /** Replaces config/load.ts's loadConfig (flags, environment, profile) and factory.ts's startEmbeddedSandbox. */
  loadConfig?: (ctx: Context) => Promise<ResolvedConfig>;
  /** Replaces factory.ts's clientFromConfig; called once per invocation, with the loaded config. */
  clientFactory?: (ctx: Context, config: ResolvedConfig) => GatewayClient | Promise<GatewayClient>;
}

export function processIo(): Io {
  return {
    // Looked up when a command reads it: node builds process.stdin on first use, and for a file or
    // /dev/null that loads the file streams and fs/promises (~3 ms of every `payops --help`).
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    exitAtOnce: (code) => process.exit(code),
  };
}

/**
 * Colour only on a TTY, and never when NO_COLOR is set (https://no-color.org) or --no-color given
 * (commander reads `--no-color` as `color: false`).
 */
export function useColor(io: Io, globals?: GlobalOptions): boolean {
  if (globals?.noColor || (globals as { color?: unknown } | undefined)?.color === false) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io.stderr.isTTY);
}

/**
 * The one way info, warn, --verbose and --debug lines reach stderr: sign keys masked, and every
 * character a terminal would act on shown escaped (terminalSafe), whatever the line carries — a
 * gateway's answer echoed under --debug, a file name in a plan line. Line feeds and tabs are kept
 * (a line may be a block); values a message already quote()d are safe text and pass unchanged.
 */
export function createLogger(io: Io, globals: GlobalOptions, secrets: readonly string[] = []): Logger {
  const color = useColor(io, globals);
  const line = (raw: string) => {
    let s = terminalSafe(redactSecrets(raw, secrets));
    // On a terminal, wrapped at spaces to its width (issue 27, item 7); a log keeps a message a line.
    const columns = io.stderr.isTTY ? io.stderr.columns : undefined;
    if (columns) s = fitMessage(s.replace(/\n$/, '').split('\n'), columns).join('\n');
    // Coloured after wrapping: the width counts only what shows.
    s = tone(s, color);
    io.stderr.write(s.endsWith('\n') ? s : `${s}\n`);
  };
  return {
    info: (m) => {
      if (!globals.quiet) line(m);
    },
    warn: (m) => line(m),
    verbose: (m) => {
      if (globals.verbose || globals.debug) line(m);
    },
    debug: (m) => {
      if (globals.debug) line(m);
    },
    debugEnabled: Boolean(globals.debug),
  };
}

export function createContext(io: Io, globals: GlobalOptions, overrides: ContextOverrides = {}): Context {
  const secrets: string[] = [];
  const log = createLogger(io, globals, secrets);
  const closers: Array<() => Promise<void> | void> = [];
  let configPromise: Promise<ResolvedConfig> | undefined;
  let clientPromise: Promise<GatewayClient> | undefined;
  let movedMoney = false;
  let usedSandbox = false;
  let loadedConfig: ResolvedConfig | undefined;
  const addSecret = (secret: string | undefined) => {
    if (secret && !secrets.includes(secret)) secrets.push(secret);
  };
  // Known before any config is read, so even an early error masks them.
  addSecret(globals.signKey);
  addSecret(io.env.PAYOPS_SIGN_KEY);

  const ctx: Context = {
    io,
    globals,
    log,
    color: useColor(io, globals),
    secrets,
    get movedMoney() {
      return movedMoney;
    },
    get usedSandbox() {
      return usedSandbox;
    },
    sandboxNoted: false,
    stdoutAbandoned: false,
    runDocument: undefined,
    get loadedConfig() {
      return loadedConfig;
    },
    noteMoneyMoving() {
      movedMoney = true;
    },
    addSecret,
    config() {
      configPromise ??= (
        overrides.loadConfig
          ? overrides.loadConfig(ctx)
          : import('./config/load.js')
              .then((m) => m.loadConfig(ctx))
              .then(async (config) =>
                config.sandbox ? (await import('./factory.js')).startEmbeddedSandbox(ctx, config) : config,
              )
      ).then((config) => {
        if (config.sandbox) usedSandbox = true;
        loadedConfig = config;
        // The run document names its gateway in its first lines, before its rows.
        if (ctx.runDocument && ctx.runDocument.gateway === null)
          ctx.runDocument.gateway = gatewayFacts(config);
        return config;
      });
      return configPromise;
    },
    client() {
      clientPromise ??= (async () => {
        const config = await ctx.config();
        const factory = await import('./factory.js');
        const client = overrides.clientFactory
          ? await overrides.clientFactory(ctx, config)
          : await factory.clientFromConfig(ctx, config);
        // --dry-run: whatever a command does, nothing that can move money leaves (factory.ts).
        return globals.dryRun ? factory.refuseMoneyMoving(client) : client;
      })();
      return clientPromise;
    },
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      // Last registered, first closed: the client's pool before the sandbox it talks to.
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch {
          // Cleanup must never hide the command's own result.
        }
      }
      closers.length = 0;
    },
  };
  return ctx;
}
