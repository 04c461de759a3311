// What a wait says while it waits. On a terminal: one line on stderr, redrawn each second —
// "waiting for the shopper… 0:42 (up to 10m; Ctrl-C stops waiting)" — and cleared at the end. Not
// on a terminal: the same words once, as a line of its own (a log reads it; a script's stdout never
// does). Nothing with --quiet.
import type { GlobalOptions, Io } from '../io.js';
import { STOP_SIGNALS } from '../lifecycle/interrupt.js';
import { formatElapsed } from '../output/progress.js';
import { durationText } from './duration.js';

export interface WaitLine {
  tick(elapsedMs: number): void;
  stop(): void;
}

export function waitLine(io: Io, globals: GlobalOptions, what: string, waitMs: number): WaitLine {
  const tail = `(up to ${durationText(waitMs)}; Ctrl-C stops waiting)`;
  if (globals.quiet) return { tick() {}, stop() {} };
  if (!io.stderr.isTTY) {
    io.stderr.write(`${what}… ${tail}\n`);
    return { tick() {}, stop() {} };
  }
  let drawn = false;
  const draw = (ms: number) => {
    const line = `${what}… ${formatElapsed(ms)} ${tail}`;
    const room = (io.stderr.columns || 80) - 3;
    io.stderr.write(`\r${line.length > room ? line.slice(0, room) : line}\u001b[K`);
    drawn = true;
  };
  draw(0);
  return {
    tick: draw,
    stop() {
      if (drawn) io.stderr.write('\r\u001b[K');
      drawn = false;
    },
  };
}

/**
 * Runs `fn` with an AbortSignal that Ctrl-C (SIGTERM, SIGHUP) aborts, its reason the signal's name:
 * a wait only stops waiting, so the first signal is enough and nothing is left half done.
 */
export async function whileWaiting<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const handlers = STOP_SIGNALS.map((name) => [name, () => stop.abort(name)] as const);
  for (const [name, h] of handlers) process.on(name, h);
  try {
    return await fn(stop.signal);
  } finally {
    for (const [name, h] of handlers) process.off(name, h);
  }
}
