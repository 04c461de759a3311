// Asking before money moves. --yes answers for the user; without a terminal to ask on (cron, CI,
// a pipe) and without --yes, refuse rather than hang or guess. The prompt goes to stderr, past the
// logger, so the question (a run id, a gateway address) is made terminal-safe here.

import { UsageError } from '../errors.js';
import type { GlobalOptions, Io } from '../io.js';
import { terminalSafe } from '../quote.js';
import { ask, canAsk, declinedError } from './prompt.js';

export async function confirmOrExit(io: Io, globals: GlobalOptions, question: string): Promise<void> {
  if (globals.yes) return;
  assertCanConfirm(io);
  // Ctrl-C at the prompt: exit 130; No: exit 2 (prompt.ts).
  const yes = await ask(io, ({ confirm }, streams) =>
    confirm({ message: terminalSafe(question), default: false }, streams),
  );
  if (!yes) throw declinedError();
}

/** Without a terminal to ask on (and without --yes, checked first), a confirmation is refused. */
export function assertCanConfirm(io: Io): void {
  if (!canAsk(io)) {
    throw new UsageError('confirmation needed, but there is no terminal to ask on; nothing was sent', {
      hint: 'pass --yes to run without a prompt (check first with --dry-run)',
    });
  }
}
