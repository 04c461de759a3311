// Per-invocation context: streams, global options, and lazily created config and gateway client.
// Nothing here runs on import; `createContext` is called once by main() for each invocation, so
// tests can run many invocations in one process without shared state.

import type { ResolvedConfig } from './config/resolve.js';
import type { GatewayClient } from './gateway/client.js';

export interface OutStream {
  write(chunk: string | Uint8Array): boolean;
  isTTY?: boolean;
  columns?: number;
}

export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: OutStream & NodeJS.WritableStream;
  stderr: OutStream & NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export type OutputFormat = 'table' | 'csv' | 'json';

/** Options that every command accepts (design.md §2). */
export interface GlobalOptions {
  profile?: string;
  sandbox?: boolean;
  output?: OutputFormat;
  out?: string;
  yes?: boolean;
  dryRun?: boolean;
  concurrency?: number;
  timeout?: number;
  verbose?: boolean;
  quiet?: boolean;
  debug?: boolean;
  baseUrl?: string;
  merchantId?: string;
  accountId?: string;
  signKey?: string;
  allowInsecureHttp?: boolean;
}

export interface Logger {
  /** Human progress and summaries (stderr); silent with --quiet. */
  info(message: string): void;
  /** Always shown on stderr, even with --quiet. */
  warn(message: string): void;
  /** --verbose and --debug only. */
  verbose(message: string): void;
  /** --debug only. Callers must pass already-redacted text. */
  debug(message: string): void;
  /**
   * False when debug() would print nothing, so hot paths can skip building (redacting) the message.
   * Loggers that leave it undefined are treated as enabled.
   */
  readonly debugEnabled?: boolean;
}

export interface Context {
  readonly io: Io;
  readonly globals: GlobalOptions;
  readonly log: Logger;
  readonly color: boolean;
  /** Resolved configuration (flag > environment > profile); starts the in-process sandbox with --sandbox. */
  config(): Promise<ResolvedConfig>;
  /** The signed gateway client; fails with a ConfigError (exit 4) when no sign key is configured. */
  client(): Promise<GatewayClient>;
  /** Values masked in every error report and log line of this invocation (the sign key). */
  readonly secrets: readonly string[];
  addSecret(secret: string | undefined): void;
  /** Register cleanup (close pools, stop the sandbox) run when the command ends. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export function processIo(): Io {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour only on a TTY, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(io: Io): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io.stderr.isTTY);
}

/** Mask each secret (sign key) in a line of text. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets)
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('****');
  return out;
}

export function createLogger(io: Io, globals: GlobalOptions, secrets: readonly string[] = []): Logger {
  const line = (raw: string) => {
    const s = maskSecrets(raw, secrets);
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

export function createContext(io: Io, globals: GlobalOptions): Context {
  const secrets: string[] = [];
  const log = createLogger(io, globals, secrets);
  const closers: Array<() => Promise<void> | void> = [];
  let configPromise: Promise<ResolvedConfig> | undefined;
  let clientPromise: Promise<GatewayClient> | undefined;
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
    color: useColor(io),
    secrets,
    addSecret,
    config() {
      configPromise ??= import('./config/load.js').then((m) => m.loadConfig(ctx));
      return configPromise;
    },
    client() {
      clientPromise ??= (async () => {
        const config = await ctx.config();
        const { clientFromConfig } = await import('./gateway/client.js');
        return clientFromConfig(ctx, config);
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
