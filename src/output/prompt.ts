// Every question payops asks at a terminal goes through here, so that all of them end the same
// way: Ctrl-C (or the terminal closing) at any prompt is exit 130, "cancelled — nothing was sent";
// answering No is exit 2, "nothing was sent". Nothing a prompt library throws reaches the user as
// "this is unexpected". The prompts are read from stdin and drawn on stderr, so stdout stays the
// command's output.
import { InterruptedError, UsageError } from '../errors.js';
import type { Io } from '../io.js';

type Prompts = typeof import('@inquirer/prompts');

/** Where the prompts read and draw: stdin and stderr of this invocation. */
export interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  clearPromptOnDone: false;
}

/** What was not done when a prompt is left: money not sent (default), or settings not saved. */
export type Unsent = 'sent' | 'saved';

/** The error a left prompt ends with (exit 130). */
export function cancelledError(unsent: Unsent = 'sent', cause?: unknown): InterruptedError {
  return new InterruptedError(`cancelled — nothing was ${unsent}`, cause === undefined ? {} : { cause });
}

/** The error answering No ends with (exit 2). */
export function declinedError(unsent: Unsent = 'sent'): UsageError {
  return new UsageError(`nothing was ${unsent}`);
}

/** Ctrl-C, Esc-abort or a closed terminal at an @inquirer prompt (its errors, by name). */
export function isPromptLeft(err: unknown): boolean {
  return (
    err instanceof Error && ['ExitPromptError', 'AbortPromptError', 'CancelPromptError'].includes(err.name)
  );
}

/**
 * Runs one or more questions; `questions` gets the prompt functions and the streams to pass them.
 * A prompt left by Ctrl-C becomes cancelledError(unsent); any other error passes through.
 */
export async function ask<T>(
  io: Io,
  questions: (prompts: Prompts, streams: PromptStreams) => Promise<T>,
  unsent: Unsent = 'sent',
): Promise<T> {
  const prompts = await import('@inquirer/prompts');
  const streams: PromptStreams = {
    input: io.stdin as NodeJS.ReadableStream,
    output: io.stderr as NodeJS.WritableStream,
    clearPromptOnDone: false,
  };
  try {
    return await questions(prompts, streams);
  } catch (err) {
    if (isPromptLeft(err)) throw cancelledError(unsent, err);
    throw err;
  }
}

/** Whether both ends of a prompt are a terminal: without one, payops never waits for an answer. */
export function canAsk(io: Io): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}
