// The contract between command files and main(). Command files declare their flags and help with
// defineCommand (define.ts), whose action is wrapped by `app.action`: it builds the per-invocation
// Context, runs the command, records the exit code it returns and closes the Context.
// Implementations are imported lazily inside each command's `run`, so `--help` loads none of them.
import { type Command, CommanderError } from 'commander';
import { MAX_SETTLE_MS, parseDuration, parseTimeout, TIMEOUT_EXPECTED } from '../config/keys.js';
import type { Context } from '../context.js';

export interface App {
  /** A commander action handler that runs `run` with the Context of this invocation. */
  action(run: (ctx: Context, cmd: Command) => Promise<number>): (this: Command) => Promise<void>;
}

/** Parser for options of whole numbers ≥ 1 (`--concurrency 4`). */
export function positiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new CommanderError(
      2,
      'commander.invalidArgument',
      `${flag} must be a whole number ≥ 1, not "${value}"`,
    );
  }
  return Number(value);
}

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
export function attempts(value: string, flag: string): number {
  const n = positiveInt(value, flag);
  if (n > 10) {
    throw new CommanderError(2, 'commander.invalidArgument', `${flag} must be from 1 to 10, not "${value}"`);
  }
  return n;
}

/** Commander's collector for repeatable options (`--data a=1 --data b=2`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
