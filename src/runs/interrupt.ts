// Ctrl-C during a run, written once for every kind of run. The first SIGINT stops sending: nothing
// new leaves, the requests in flight finish and are journaled. The second stops now: the requests in
// flight are abandoned (aborted through their AbortSignal), and their rows stay `unknown` in the
// journal for --resume to settle at the gateway — their intents were durable before they left, so
// nothing is lost and nothing is sent twice. Later ones are absorbed, and so is every one while the
// run is being closed (results file renamed, terminal record written): a SIGINT left to Node's
// default would end the process before the run is recorded as ended.
import { setMaxListeners } from 'node:events';
import type { Logger } from '../io.js';

/**
 * Runs `fn` with the signals of Ctrl-C: `stop` (the first: dispatch nothing more), `now` (the
 * second: hand it to the requests in flight, to abort them) and `closing` (call it once the requests
 * are over: a Ctrl-C then only says that the run ends in a moment). The handler is there until `fn` settles, so `fn` should
 * close the run (results, terminal record) before it returns. `what` names what is in flight in
 * the messages ("requests", "payouts").
 */
export async function whileInterruptible<T>(
  log: Logger,
  what: string,
  fn: (stop: AbortSignal, now: AbortSignal, closing: () => void) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const now = new AbortController();
  // Every request in flight listens to these (up to --concurrency 64, and the look-ups): past ten,
  // node printed a leak warning on the operator's terminal in the middle of a run.
  setMaxListeners(0, stop.signal, now.signal);
  let closing = false;
  let toldClosing = false;
  const onSigint = () => {
    if (closing) {
      if (!toldClosing)
        log.warn('\nthe run is ending: its results and journal are being written; it stops in a moment…');
      toldClosing = true;
    } else if (!stop.signal.aborted) {
      // Two short lines: each fits an 80-column terminal.
      log.warn(
        `\nstopping after the ${what} in flight…\n  press Ctrl-C again to stop now (the journal stays safe)`,
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
    return await fn(stop.signal, now.signal, () => {
      closing = true;
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
}
