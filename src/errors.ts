// Typed errors. Each carries the exit code of design.md §2; `exitCodeFor` in this file is the one
// place that maps an error to a code, and `main()` (src/cli.ts) is the one place that exits.

export const ExitCode = {
  ok: 0,
  someFailed: 1,
  usage: 2,
  gateway: 3,
  config: 4,
  /** Ctrl-C (SIGINT): 128 + 2. */
  interrupted: 130,
  /** SIGHUP (a closed terminal or ssh session): 128 + 1. */
  hangup: 129,
  /** SIGTERM (`timeout`, systemd, `docker stop`, `kill`): 128 + 15. */
  terminated: 143,
  /** A command that moved no money, whose stdout's reader went away (`| head`): 128 + SIGPIPE. */
  brokenPipe: 141,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface ErrorDetails {
  /** What the user can do next; printed after the message. */
  hint?: string;
  cause?: unknown;
}

// The shell (dist/cli.cjs) and the lazily loaded implementations share one build of this file
// (dist/errors.cjs, scripts/build.js), so `instanceof` tells a payops error from either of them.

export abstract class PayopsError extends Error {
  abstract readonly exitCode: ExitCodeValue;
  readonly hint: string | undefined;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.hint = details.hint;
  }
}

/**
 * The same error, its hint extended by `more`: a new object of the same class, every other field
 * kept. For a layer that knows what the one below could not (a failed look-up of the check before
 * a run: nothing was sent).
 */
export function withHint<E extends PayopsError>(err: E, more: string): E {
  const copy = Object.create(Object.getPrototypeOf(err)) as E;
  for (const key of Reflect.ownKeys(err)) {
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(err, key)!);
  }
  Object.defineProperty(copy, 'hint', {
    value: err.hint ? `${err.hint}; ${more}` : more,
    enumerable: true,
    configurable: true,
  });
  return copy;
}

/** Bad flags or arguments. Nothing was sent. */
export class UsageError extends PayopsError {
  readonly exitCode = ExitCode.usage;
}

/** One problem in an input file: where it is and what would be right. */
export interface InputProblem {
  file?: string;
  line?: number;
  field?: string;
  message: string;
  /** What a correct value looks like. */
  expected?: string;
}

/** Invalid input (file or request). Nothing was sent. Carries every problem found, not just the first. */
export class InputError extends PayopsError {
  readonly exitCode = ExitCode.usage;
  readonly problems: InputProblem[];
  constructor(message: string, problems: InputProblem[] = [], details: ErrorDetails = {}) {
    super(message, details);
    this.problems = problems;
  }
}

/** Missing or invalid configuration, missing sign key, read-only profile, rejected credentials. */
export class ConfigError extends PayopsError {
  readonly exitCode = ExitCode.config;
}

/** The gateway rejected the credentials or the signature (E1001/E1002/E1003). */
export class AuthError extends PayopsError {
  readonly exitCode = ExitCode.config;
  readonly code: string | undefined;
  constructor(message: string, code?: string, details: ErrorDetails = {}) {
    super(message, details);
    this.code = code;
  }
}

/**
 * The way to the gateway is set up wrong: a proxy asked for credentials (HTTP 407), or base_url is
 * answered with a redirect. The request never reached the gateway's handler, so nothing was
 * processed, and every other request would meet the same. An AuthError (exit 4) so that it is
 * handled as refused credentials are: a bulk run stops at once and leaves its rows unsent.
 */
export class RouteError extends AuthError {}

/** The gateway answered, but with an error for the whole request. */
export class GatewayError extends PayopsError {
  readonly exitCode = ExitCode.gateway;
  readonly status: number | undefined;
  readonly code: string | undefined;
  constructor(message: string, opts: { status?: number; code?: string } & ErrorDetails = {}) {
    super(message, opts);
    this.status = opts.status;
    this.code = opts.code;
  }
}

/** The gateway answered HTTP 200 with return_status 0: the whole request was rejected (return_message says why). */
export class GatewayRejectedError extends GatewayError {}

/** The request certainly never reached the server (refused, DNS, TLS). Safe to retry. */
export class TransportError extends PayopsError {
  readonly exitCode = ExitCode.gateway;
}

/** Why an outcome is unknown (UnknownOutcomeError.reason). */
export type UnknownOutcomeReason =
  | 'timeout'
  | 'reset'
  | 'aborted'
  | 'http_5xx'
  | 'unparseable'
  | 'too_large'
  | 'redirect'
  | 'bad_signature'
  | 'missing_signature';

/**
 * The request's bytes may have reached the server but no trustworthy answer came back
 * (timeout, reset, 5xx, unparseable, too large or wrongly signed response). For a money-moving
 * operation this must never be re-sent blindly: reconcile by querying instead.
 */
export class UnknownOutcomeError extends PayopsError {
  readonly exitCode = ExitCode.gateway;
  readonly reason: string;
  constructor(message: string, reason: string, details: ErrorDetails = {}) {
    super(message, details);
    this.reason = reason;
  }
}

/**
 * A run's journal cannot be read (a damaged line, a header that is not one). payops cannot tell
 * what that run did, so it refuses to decide anything that depends on it — fail closed.
 */
export class JournalDamagedError extends PayopsError {
  readonly exitCode = ExitCode.config;
  constructor(
    readonly runId: string,
    readonly dir: string,
    readonly line: number,
    why: string,
    /** Another wording of the same refusal (a broken hash chain). */
    text?: { message: string; hint: string },
  ) {
    super(
      text?.message ??
        `the journal of run ${runId} cannot be read (line ${line}: ${why}); payops cannot tell what that run did, so nothing was sent`,
      {
        hint:
          text?.hint ??
          `check what run ${runId} did at the gateway (payops query, refunds search, the merchant portal), then move its folder aside — mv ${dir} ${dir}.damaged — and run again`,
      },
    );
  }
}

/**
 * A run journal whose hash chain is broken (lifecycle/chain.ts): a record was changed, removed or
 * moved after it was written. Refused as a damaged journal is (exit 4): what that run did cannot be
 * taken from it.
 */
export class JournalChainError extends JournalDamagedError {
  constructor(runId: string, dir: string, line: number, type: string, why: string) {
    super(runId, dir, line, why, {
      message: `the journal of run ${runId} was changed after it was written (line ${line}, ${type}: ${why}); payops cannot trust what it says that run did, so nothing was sent`,
      hint: `\`payops runs verify ${runId} --journal\` shows the break; check what run ${runId} did at the gateway (payops query, refunds search, the merchant portal), then restore the journal from a copy, or move its folder aside — mv ${dir} ${dir}.damaged — and run again`,
    });
  }
}

/**
 * A file payops must write could not be written: its state folder or a run's journal (then nothing
 * more is sent — money never moves without a journal record), or a results file. The cause is the
 * machine's (read-only or unwritable folder, full disk, I/O error), so it is exit 4 like configuration.
 */
export class LocalWriteError extends PayopsError {
  readonly exitCode = ExitCode.config;
}

/** A file-system error in words, with its code: "the disk is full (ENOSPC)". */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EFBIG: 'the file is larger than this process may write',
    EIO: 'an input/output error of the disk',
    ENOTDIR: 'a part of the path is a file, not a folder',
    ENOENT: 'a folder on the way does not exist',
    EISDIR: 'it is a folder',
    EEXIST: 'something else is already there',
  };
  if (typeof code === 'string' && words[code]) return `${words[code]} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/** SIGINT: stopped cleanly, journal flushed. */
export class InterruptedError extends PayopsError {
  readonly exitCode = ExitCode.interrupted;
}

/**
 * The exit code of a run stopped cleanly by a signal (lifecycle/interrupt.ts): 128 + its number, as the
 * shell reports a process the signal ended, though the run first closed its results and journal.
 */
export function exitCodeForSignal(signal: unknown): ExitCodeValue {
  if (signal === 'SIGTERM') return ExitCode.terminated;
  if (signal === 'SIGHUP') return ExitCode.hangup;
  return ExitCode.interrupted;
}

export function exitCodeFor(err: unknown): ExitCodeValue {
  if (err instanceof PayopsError) return err.exitCode;
  // commander's own parse errors are usage errors.
  if (isCommanderError(err)) return ExitCode.usage;
  return ExitCode.gateway;
}

/**
 * A stable word for what stopped a command, for scripts (the `error.code` of the JSON run document,
 * output/run-document.ts): the same classes exitCodeFor reads, named rather than numbered.
 */
export function errorCodeFor(err: unknown): string {
  if (err instanceof RouteError) return 'route';
  if (err instanceof AuthError) return 'auth';
  if (err instanceof UsageError) return 'usage';
  if (err instanceof InputError) return 'input';
  if (err instanceof ConfigError) return 'config';
  if (err instanceof GatewayError) return 'gateway';
  if (err instanceof TransportError) return 'transport';
  if (err instanceof UnknownOutcomeError) return 'unknown_outcome';
  if (err instanceof JournalDamagedError) return 'journal';
  if (err instanceof LocalWriteError) return 'local_write';
  if (err instanceof InterruptedError) return 'interrupted';
  if (isCommanderError(err)) return 'usage';
  return 'unexpected';
}

/**
 * The exit code once stdout's reader may have gone away (`output`: what became of stdout, as
 * io.ts guardOutput saw it). A command that moved money keeps its own: its results are journaled
 * (and in --out) whatever happened to the screen. One that only read (--help, query, runs show)
 * ends as git and gh do when `| head` closes the pipe — as if killed by SIGPIPE, 141 — or, when
 * writing failed for another reason (a full disk behind `> file`) after it had succeeded, with 4:
 * what it was asked to show was not written.
 */
export function exitCodeAfterOutput(
  code: number,
  output: { readonly closed: boolean; readonly error: Error | undefined },
  movedMoney: boolean,
): number {
  if (!output.closed || movedMoney) return code;
  if (output.error) return code === ExitCode.ok ? ExitCode.config : code;
  return ExitCode.brokenPipe;
}

export function isCommanderError(err: unknown): err is { code: string; exitCode: number; message: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'string' &&
    (err as { code: string }).code.startsWith('commander.')
  );
}
