// Ctrl-C during a run, written once for every kind of run. The first SIGINT stops sending: nothing
// new leaves, the requests in flight finish and are journaled. The second stops now: the requests in
// flight are abandoned (aborted through their AbortSignal), and their rows stay `unknown` in the
// journal for --resume to settle at the gateway — their intents were durable before they left, so
// nothing is lost and nothing is sent twice. Later ones are absorbed, and so is every one while the
// run is being closed (results file renamed, terminal record written): a SIGINT left to Node's
// default would end the process before the run is recorded as ended.
//
// SIGTERM and SIGHUP are the same request said another way — `timeout`, systemd, `docker stop`, a
// closed ssh session send them — and get the same answer: left to Node's default they ended the
// process with the outcomes still in memory, `--out` a temporary file and stdout's JSON cut off.
import { setMaxListeners } from 'node:events';
import type { Logger } from '../io.js';

/** The signals that stop a run cleanly; the first one received is the stop signal's `reason`. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Runs `fn` with the signals of Ctrl-C: `stop` (the first: dispatch nothing more; its `reason` is
 * the signal's name), `now` (the second: hand it to the requests in flight, to abort them) and
 * `closing` (call it once the requests are over: a signal then only says that the run ends in a
 * moment, and aborts the signal `closing` returns, for what would wait on a reader). The handler is there until `fn` settles, so `fn` should close the run (results, terminal
 * record) before it returns. `what` names what is in flight in the messages ("requests", "payouts").
 */
export async function whileInterruptible<T>(
  log: Logger,
  what: string,
  fn: (stop: AbortSignal, now: AbortSignal, closing: () => AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const now = new AbortController();
  // Every request in flight listens to these (up to --concurrency 64, and the look-ups): past ten,
  // node printed a leak warning on the operator's terminal in the middle of a run.
  setMaxListeners(0, stop.signal, now.signal);
  let closing = false;
  let toldClosing = false;
  // A signal while the run is being closed: what waits on a reader (stdout's results) stops waiting.
  const late = new AbortController();
  const onSignal = (name: StopSignal) => {
    // A hung-up terminal may not take these lines; they are best effort (the summary says it all).
    try {
      if (closing) {
        if (!toldClosing)
          log.warn('\nthe run is ending: its results and journal are being written; it stops in a moment…');
        toldClosing = true;
        if (!late.signal.aborted) late.abort(name);
      } else if (!stop.signal.aborted) {
        const by = name === 'SIGINT' ? '' : `${name}: `;
        // Two short lines: each fits an 80-column terminal.
        log.warn(
          `\n${by}stopping after the ${what} in flight…\n  press Ctrl-C again to stop now (the journal stays safe)`,
        );
        stop.abort(name);
      } else if (!now.signal.aborted) {
        log.warn(
          `stopping now: the ${what} in flight are abandoned and stay unknown in the journal; resuming the run settles them at the gateway`,
        );
        now.abort(name);
      }
    } catch {
      if (!stop.signal.aborted) stop.abort(name);
    }
  };
  const handlers = STOP_SIGNALS.map((name) => [name, () => onSignal(name)] as const);
  for (const [name, h] of handlers) process.on(name, h);
  try {
    return await fn(stop.signal, now.signal, () => {
      closing = true;
      return late.signal;
    });
  } finally {
    for (const [name, h] of handlers) process.off(name, h);
  }
}
