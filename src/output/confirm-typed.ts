// The confirmation for a large run (the profile's confirm_typed_above): the operator types the
// number of rows instead of `y`, so that a habit of pressing y does not send a run of that size.
// --yes still answers for them (cron must keep working); without a terminal and without --yes,
// refuse, as confirm.ts does.

import { UsageError } from '../errors.js';
import type { GlobalOptions, Io } from '../io.js';
import { terminalSafe } from '../quote.js';
import { assertCanConfirm } from './confirm.js';
import { ask } from './prompt.js';
import { formatCount } from './summary.js';

export async function confirmTypedOrExit(
  io: Io,
  globals: GlobalOptions,
  question: string,
  typed: { rows: number; why: string },
): Promise<void> {
  if (globals.yes) return;
  assertCanConfirm(io);
  const want = String(typed.rows);
  // Ctrl-C at the prompt: exit 130, nothing was sent (output/prompt.ts).
  const answer = await ask(io, ({ input }, streams) =>
    input(
      {
        message: `${terminalSafe(question)}\n  ${terminalSafe(typed.why)}\n  type the number of rows (${formatCount(typed.rows)}) to go ahead:`,
      },
      streams,
    ),
  );
  // "1,600" and "1600" are the same answer.
  if (answer.replace(/[,\s_]/g, '') !== want) {
    throw new UsageError(
      `nothing was sent: the answer was ${JSON.stringify(terminalSafe(answer.trim()))}, not ${formatCount(typed.rows)}`,
    );
  }
}
