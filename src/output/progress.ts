// A progress bar on stderr (cli-progress), only for a person watching: stderr is a terminal and
// --quiet is off. Otherwise a no-op, so callers never branch on it.

import cliProgress from 'cli-progress';
import type { GlobalOptions, Io } from '../io.js';

export interface Progress {
  tick(n: number): void;
  /** A short note after the bar (what the run is waiting for); empty clears it. */
  note?(text: string): void;
  stop(): void;
}

const NOOP: Progress = { tick() {}, stop() {} };

export function createProgress(io: Io, globals: GlobalOptions, total: number, label: string): Progress {
  if (!io.stderr.isTTY || globals.quiet || total <= 0) return NOOP;
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: `${label.replace(/[{}]/g, '')} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}{note}`,
      hideCursor: true,
      // The bar gives way so that the counts and a note fit the line: 40 wide from 102 columns on.
      barsize: Math.max(10, Math.min(40, (io.stderr.columns ?? 80) - 62)),
      clearOnComplete: false,
      fps: 10,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { note: '' });
  let done = 0;
  let stopped = false;
  return {
    tick(n) {
      if (stopped) return;
      done = Math.min(total, done + n);
      bar.update(done);
    },
    note(text) {
      if (stopped) return;
      bar.update(done, { note: text ? ` | ${text.replace(/[{}]/g, '')}` : '' });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
