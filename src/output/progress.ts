// A progress line on stderr, only for a person watching: stderr is a terminal and --quiet is off.
// Otherwise a no-op, so callers never branch on it. Drawn by hand (one line, redrawn at most 10
// times a second): the bar gives way to the counts, which always fit the terminal's width.
//   refund [██████████░░░░░░░░░░] 3,000/5,000 · 2,950 ok · 50 failed · 1:02
// The bar counts settled rows (an answer from the gateway), not rows handed on: a run stopped by
// Ctrl-C does not jump to 100%. On Ctrl-C the line is cleared before anything else is said.

import type { GlobalOptions, Io } from '../io.js';
import { formatCount } from './summary.js';
import { cutToWidth } from './width.js';

export interface Progress {
  /** `n` more rows settled, of which `ok` succeeded (or were already done) and `failed` failed. */
  tick(n: number, ok?: number, failed?: number): void;
  /** A short note after the counts (what the run is waiting for); empty clears it. */
  note?(text: string): void;
  /** Run `fn` (which writes a message) with the line cleared, then draw it again below. */
  aside?(fn: () => void): void;
  /** Clear the line for good. */
  stop(): void;
}

const NOOP: Progress = { tick() {}, stop() {} };

export interface LineState {
  label: string;
  done: number;
  total: number;
  ok: number;
  failed: number;
  elapsedMs: number;
  note: string;
  columns: number;
}

/** 42 s → "0:42", 3,725 s → "1:02:05". */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** The line as drawn: at most `columns - 3` wide (see room). */
export function progressLine(s: LineState): string {
  const counts = `${formatCount(s.done)}/${formatCount(s.total)} · ${formatCount(s.ok)} ok · ${formatCount(s.failed)} failed · ${formatElapsed(s.elapsedMs)}`;
  const rest = `${counts}${s.note ? ` · ${s.note}` : ''}`;
  // Two columns spare besides the last: the terminal's own "^C" echo must not wrap the line, or
  // clearing it would clear only the wrapped part.
  const room = s.columns - 3;
  const barSize = Math.min(40, room - s.label.length - 4 - rest.length);
  if (barSize < 5) return cutToWidth(`${s.label} ${rest}`, room);
  const filled = s.total > 0 ? Math.round((barSize * Math.min(s.done, s.total)) / s.total) : 0;
  return `${s.label} [${'█'.repeat(filled)}${'░'.repeat(barSize - filled)}] ${rest}`;
}

export function createProgress(io: Io, globals: GlobalOptions, total: number, label: string): Progress {
  if (!io.stderr.isTTY || globals.quiet || total <= 0) return NOOP;
  const out = io.stderr;
  const started = Date.now();
  const state: LineState = {
    label: label.replace(/[^\x20-\x7e]/g, ''),
    done: 0,
    total,
    ok: 0,
    failed: 0,
    elapsedMs: 0,
    note: '',
    columns: 80,
  };
  let stopped = false;
  let drawn = '';
  const draw = () => {
    state.elapsedMs = Date.now() - started;
    state.columns = io.stderr.columns || 80;
    const line = progressLine(state);
    if (line === drawn) return;
    drawn = line;
    out.write(`\r${line}\u001b[K`);
  };
  const clear = () => {
    out.write('\r\u001b[K');
    drawn = '';
  };
  out.write('\u001b[?25l'); // hide the cursor while the line is redrawn
  draw();
  // Redrawn on a timer (only when the line changed): counts, and the elapsed time while the run waits.
  const timer = setInterval(draw, 100);
  timer.unref();
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    process.off('SIGINT', onSigint);
    clear();
    out.write('\u001b[?25h');
  };
  // Registered before the run's own Ctrl-C handler (src/lifecycle/interrupt.ts), so this runs first: the
  // line is gone before "stopping after the requests in flight…" is written.
  const onSigint = () => {
    stop();
    // Nobody else listens (a Ctrl-C outside a run's handler): Node's default, end the process.
    if (process.listenerCount('SIGINT') === 0) process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onSigint);
  return {
    tick(n, ok = 0, failed = 0) {
      if (stopped) return;
      state.done = Math.min(total, state.done + n);
      state.ok += ok;
      state.failed += failed;
      // The last rows are drawn at once; the others with the next redraw.
      if (state.done === total) draw();
    },
    note(text) {
      if (stopped) return;
      state.note = text.replace(/[^\x20-\x7e]/g, '');
    },
    aside(fn) {
      if (stopped) return fn();
      clear();
      fn();
      draw();
    },
    stop,
  };
}
