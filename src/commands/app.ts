// The contract between command files and main(). Command files declare their flags and help with
// defineCommand (define.ts), whose action is wrapped by `app.action`: it builds the per-invocation
// Context, runs the command, records the exit code it returns and closes the Context.
// Implementations are imported lazily inside each command's `run`, so `--help` loads none of them.
import { type Command, CommanderError } from 'commander';
import {
  DEFAULT_SETTLE_MS,
  MAX_CONCURRENCY,
  MAX_RATE,
  MAX_SETTLE_MS,
  parseDuration,
  parseTimeout,
  TIMEOUT_EXPECTED,
} from '../config/keys.js';
import type { Context } from '../context.js';

export interface App {
  /** A commander action handler that runs `run` with the Context of this invocation. */
  action(run: (ctx: Context, cmd: Command) => Promise<number>): (this: Command) => Promise<void>;
}

/** Parser for options of whole numbers from `min` to `max`; the refusal says the range (issue 24). */
export function intIn(min: number, max: number): (value: string, flag: string) => number {
  return (value, flag) => {
    // Digits only, compared as text first: 99999999999999999999 is no number of requests (nor a float).
    const n = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= min && n <= max)) {
      throw new CommanderError(
        2,
        'commander.invalidArgument',
        `${flag} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, not "${value}"`,
      );
    }
    return n;
  };
}

/** Parser for options of whole numbers ≥ 1 (`--max-orders 5000`), up to the largest exact integer. */
export const positiveInt = intIn(1, Number.MAX_SAFE_INTEGER);
/** --concurrency: the profile key's range (config/keys.ts). */
export const concurrency = intIn(1, MAX_CONCURRENCY);
/** --rate: the profile key's range. */
export const rate = intIn(1, MAX_RATE);

/** Parser for durations (`--settle-time 30s`): 500ms, 30s, 2m, 1h, or a number of seconds → ms. */
export function duration(value: string, flag: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms > MAX_SETTLE_MS) {
    throw new CommanderError(
      2,
      'commander.invalidArgument',
      `${flag} must be a duration such as 30s, 2m or 500ms (at most 1h), not "${value}"`,
    );
  }
  return ms;
}

/**
 * --settle-time: a duration above 0. With 0 a lost request is concluded "not applied" the moment
 * the gateway does not show it, and sent again: a gateway that commits it a moment later refunds
 * the row twice (docs/bulk.md §5). A short one is allowed; the plan says what it risks (report.ts).
 */
export function settleTime(value: string, flag: string): number {
  const ms = duration(value, flag);
  if (ms === 0) {
    throw new CommanderError(
      2,
      'commander.invalidArgument',
      `${flag} must be more than 0 (default ${DEFAULT_SETTLE_MS / 1000}s): with 0 a request whose answer was lost is sent again at once, and a gateway that applies it a moment later refunds that row twice`,
    );
  }
  return ms;
}

/** Parser for --timeout: milliseconds (`30000`) or a duration with its unit (`30s`). */
export function timeout(value: string, flag: string): number {
  const ms = parseTimeout(value);
  if (ms === undefined) {
    throw new CommanderError(
      2,
      'commander.invalidArgument',
      `${flag} must be ${TIMEOUT_EXPECTED}, not "${value}"`,
    );
  }
  return ms;
}

/** Parser for small whole numbers of attempts (`--max-attempts 3`): 1–10. */
export const attempts = intIn(1, 10);

/** Commander's collector for repeatable options (`--data a=1 --data b=2`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
