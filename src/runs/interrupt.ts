// Ctrl-C during a run, written once for every kind of run. The first SIGINT stops sending: nothing
// new leaves, the requests in flight finish and are journaled. The second stops now: the requests in
// flight are abandoned (aborted through their AbortSignal), and their rows stay `unknown` in the
// journal for --resume to settle at the gateway — their intents were durable before they left, so
// nothing is lost and nothing is sent twice. Later ones are absorbed, so that the journal is always
// closed properly (a run that stops now ends within a second or so).
import type { Logger } from '../io.js';

/**
 * Runs `fn` with the two signals of Ctrl-C: `stop` (the first: dispatch nothing more) and `now`
 * (the second: hand it to the requests in flight, to abort them). The handler is gone when it
 * returns. `what` names what is in flight in the messages ("requests", "payouts").
 */
export async function whileInterruptible<T>(
  log: Logger,
  what: string,
  fn: (stop: AbortSignal, now: AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const now = new AbortController();
  const onSigint = () => {
    if (!stop.signal.aborted) {
      log.warn(
        `\nstopping after the ${what} in flight (press Ctrl-C again to stop now; the journal stays safe)…`,
      );
      stop.abort();
    } else if (!now.signal.aborted) {
      log.warn(
        `stopping now: the ${what} in flight are abandoned and stay unknown in the journal; resuming the run settles them at the gateway`,
      );
      now.abort();
    }
  };
  process.on('SIGINT', onSigint);
  try {
    return await fn(stop.signal, now.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
