// Typed errors. Each carries the exit code of design.md §2; `exitCodeFor` in this file is the one
// place that maps an error to a code, and `main()` (src/cli.ts) is the one place that exits.

export const ExitCode = {
  ok: 0,
  someFailed: 1,
  usage: 2,
  gateway: 3,
  config: 4,
  interrupted: 130,
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
  | 'bad_signature'
  | 'missing_signature';

/**
 * The request's bytes may have reached the server but no trustworthy answer came back
 * (timeout, reset, 5xx, unparseable or wrongly signed response). For a money-moving
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
  ) {
    super(
      `the journal of run ${runId} cannot be read (line ${line}: ${why}); payops cannot tell what that run did, so nothing was sent`,
      {
        hint: `check what run ${runId} did at the gateway (payops query, refunds search, the merchant portal), then move its folder aside — mv ${dir} ${dir}.damaged — and run again`,
      },
    );
  }
}

/** SIGINT: stopped cleanly, journal flushed. */
export class InterruptedError extends PayopsError {
  readonly exitCode = ExitCode.interrupted;
}

export function exitCodeFor(err: unknown): ExitCodeValue {
  if (err instanceof PayopsError) return err.exitCode;
  // commander's own parse errors are usage errors.
  if (isCommanderError(err)) return ExitCode.usage;
  return ExitCode.gateway;
}

export function isCommanderError(err: unknown): err is { code: string; exitCode: number; message: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'string' &&
    (err as { code: string }).code.startsWith('commander.')
  );
}
