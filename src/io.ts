// The invocation's I/O and global options as types, in a leaf module that imports nothing from
// src/: the output writers, the config resolver, the gateway's log and the Context all describe
// their streams and options with these, without depending on one another.

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

/**
 * What building the configuration and the gateway client needs from an invocation. The Context
 * extends it; config/load.ts and factory.ts take this instead of the Context, so that the Context
 * can load them lazily without an import cycle.
 */
export interface Invocation {
  readonly io: Io;
  readonly globals: GlobalOptions;
  readonly log: Logger;
  /** Mask this value (a sign key) in every error report and log line from now on. */
  addSecret(secret: string | undefined): void;
  /** Register cleanup (close pools, stop the sandbox) run when the command ends. */
  onClose(fn: () => Promise<void> | void): void;
}
