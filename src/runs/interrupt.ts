// Ctrl-C during a run, written once for every kind of run: the first SIGINT says what happens next
// and aborts the signal the run polls (in-flight requests finish and are journaled); later ones are
// absorbed so that the journal is always closed properly.
import type { Logger } from '../io.js';

/** Runs `fn` with an AbortSignal that the first SIGINT aborts; the handler is gone when it returns. */
export async function whileInterruptible<T>(
  log: Logger,
  message: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => {
    if (!controller.signal.aborted) log.warn(message);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
