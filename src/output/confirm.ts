// Asking before money moves. --yes answers for the user; without a terminal to ask on (cron, CI,
// a pipe) and without --yes, refuse rather than hang or guess. The prompt goes to stderr, past the
// logger, so the question (a run id, a gateway address) is made terminal-safe here.

import { UsageError } from '../errors.js';
import type { GlobalOptions, Io } from '../io.js';
import { terminalSafe } from '../quote.js';

export async function confirmOrExit(io: Io, globals: GlobalOptions, question: string): Promise<void> {
  if (globals.yes) return;
  if (!io.stdin.isTTY || !io.stderr.isTTY) {
    throw new UsageError('confirmation needed, but there is no terminal to ask on; nothing was sent', {
      hint: 'pass --yes to run without a prompt (check first with --dry-run)',
    });
  }
  const { confirm } = await import('@inquirer/prompts');
  let yes: boolean;
  try {
    yes = await confirm(
      { message: terminalSafe(question), default: false },
      {
        input: io.stdin as NodeJS.ReadableStream,
        output: io.stderr as NodeJS.WritableStream,
        clearPromptOnDone: false,
      },
    );
  } catch (err) {
    // Ctrl+C or Esc at the prompt: the same as no.
    throw new UsageError('aborted, nothing sent', { cause: err });
  }
  if (!yes) throw new UsageError('aborted, nothing sent');
}
