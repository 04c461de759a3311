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
  /**
   * Ends the process at once with `code`, dropping what stdout still holds for a reader: only the
   * real process has it (context.ts processIo), for a run stopped by a signal while nobody read its
   * results (they are all in the journal).
   */
  exitAtOnce?: (code: number) => void;
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
  rate?: number;
  verbose?: boolean;
  quiet?: boolean;
  /** Tables cut nothing (--wide). */
  wide?: boolean;
  debug?: boolean;
  baseUrl?: string;
  merchantId?: string;
  accountId?: string;
  signKey?: string;
  allowInsecureHttp?: boolean;
  /** --no-color: no colour on stderr or in tables, whatever the terminal (also NO_COLOR). */
  noColor?: boolean;
  /**
   * --no-pager. commander keeps it as `pager: false`; main() decides paging from argv before any
   * parse (output/pager.ts), so nothing reads this field.
   */
  noPager?: boolean;
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
  /** The client was handed a request that can move money (factory.ts calls it). */
  noteMoneyMoving(): void;
}

/** What became of an output stream's reader, as guardOutput() saw it. */
export interface OutputState {
  /** The stream can take no more: its reader went away (EPIPE) or writing failed. */
  readonly closed: boolean;
  /** Why, when it was not a reader going away (EPIPE): a full disk behind `> file`, say. */
  readonly error: Error | undefined;
}

const GUARD = Symbol.for('payops.outputGuard');

/**
 * Keeps a closed stdout (`payops … | head -2`) from ending the process: an 'error' event without a
 * listener is thrown, and that killed runs half-way. After the first error every write is dropped
 * (and reports success), and writers waiting for 'drain' are released, so a run goes on sending,
 * journaling and writing --out as if the output were still read. Idempotent per stream.
 */
export function guardOutput(stream: NodeJS.WritableStream): OutputState {
  const tagged = stream as NodeJS.WritableStream & { [GUARD]?: OutputState };
  const existing = tagged[GUARD];
  if (existing) return existing;
  const state: { closed: boolean; error: Error | undefined } = { closed: false, error: undefined };
  const write = stream.write;
  stream.write = function guardedWrite(this: NodeJS.WritableStream, ...args: unknown[]): boolean {
    if (!state.closed) return (write as (...a: unknown[]) => boolean).apply(this, args);
    // Dropped: a callback still hears that the chunk is done with.
    const cb = args.find((a): a is () => void => typeof a === 'function');
    if (cb) queueMicrotask(cb);
    return true;
  } as typeof stream.write;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (state.closed) return;
    state.closed = true;
    if (err.code !== 'EPIPE') state.error = err;
    // A writer waiting for room (backpressure) would wait forever on a closed stream.
    stream.emit('drain');
  });
  tagged[GUARD] = state;
  return state;
}

/**
 * Resolves once what was written to `stream` so far has left, or failed: a pipe's EPIPE comes a tick
 * after the write that met it, and must be seen before the exit code is chosen.
 */
export async function outputSettled(stream: NodeJS.WritableStream): Promise<void> {
  await new Promise<void>((resolve) => {
    try {
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
  await new Promise((resolve) => setImmediate(resolve));
}
