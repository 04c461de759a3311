// The contract between command files and main(). A command file declares its flags and help and
// wraps its implementation with `app.action`, which builds the per-invocation Context, runs the
// implementation, and records the exit code it returns. Implementations are imported lazily
// inside the runner so that `--help` loads none of them.
import { type Command, CommanderError } from 'commander';
import type { Context } from '../context.js';

export type Runner<O = Record<string, unknown>> = (
  ctx: Context,
  opts: O,
  args: string[],
  cmd: Command,
) => Promise<number>;

export interface App {
  // biome-ignore lint/suspicious/noExplicitAny: commander passes untyped action arguments
  action<O = Record<string, any>>(runner: Runner<O>): (...args: any[]) => Promise<void>;
}

/** Commander's option parser for positive integers (`--concurrency 4`). */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) {
      throw new CommanderError(
        2,
        'commander.invalidArgument',
        `${name} must be a whole number ≥ 1, not "${value}"`,
      );
    }
    return Number(value);
  };
}

/** Commander's collector for repeatable options (`--data a=1 --data b=2`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
