// Between a run's outcomes and where they are shown (stdout, --out). Two rules meet here:
//  - a row's outcome is in the journal, fsync'd, before it is printed or written: whatever kills
//    payops afterwards (SIGKILL included), `runs show` never says less than the screen did;
//  - sending and journaling never wait on the output: a stdout nobody reads (`| sleep 40`, a
//    stalled ssh session) held a run at its first rows. Rows wait here instead, in memory up to a
//    bound, then in a private file in the run's folder, and are written once the reader takes them.
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Text of rows held in memory before the rest waits on disk. */
export const MEMORY_BOUND = 1024 * 1024;
/** The file in a run's folder holding the rows the output has not taken yet (removed at the end). */
export const WAITING_FILE = 'results-waiting.jsonl';

export interface PumpOptions {
  /** Makes what the journal was given durable (RunJournal.sync). */
  sync: () => Promise<void>;
  /** Writes one row; a returned promise is the destination's backpressure. */
  write: (cells: readonly string[]) => Promise<void> | undefined;
  /** The run's folder, for the rows waiting on disk. */
  dir: string;
  memoryBound?: number;
}

export interface ResultsPump {
  /** Queue one row; never waits. */
  push(cells: readonly string[]): void;
  /** Rows queued and not yet written. */
  readonly waiting: number;
  /**
   * Resolves once every queued row is written (or, after a failure, rejects with it), with 0; or,
   * when `cut` aborts first, at once with the number of rows left unwritten (they are dropped).
   */
  finish(cut?: AbortSignal): Promise<number>;
}

export function startPump(o: PumpOptions): ResultsPump {
  const bound = o.memoryBound ?? MEMORY_BOUND;
  let memory: (readonly string[])[] = [];
  let memoryChars = 0;
  // Rows on disk: appended at `spillEnd`, read back from `spillRead`. Once rows spill, every later
  // row goes there too until the reader has caught up, so the order holds.
  let spillFd: number | undefined;
  let spillEnd = 0;
  let spillRead = 0;
  let spillRows = 0;
  let partial = '';
  // Rows after the file could not be written (a full disk): kept in memory, after the file's rows.
  let late: (readonly string[])[] = [];
  let spillBroken = false;
  let waiting = 0;
  let finishing = false;
  let wake: (() => void) | undefined;
  let failure: unknown;
  const spillPath = join(o.dir, WAITING_FILE);

  const spill = (cells: readonly string[]) => {
    if (spillFd === undefined) spillFd = openSync(spillPath, 'w+', 0o600);
    const buf = Buffer.from(`${JSON.stringify(cells)}\n`, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(spillFd, buf, off, buf.length - off, spillEnd + off);
    spillEnd += buf.length;
    spillRows++;
  };

  const readSpill = (): (readonly string[])[] => {
    if (spillFd === undefined || spillRead >= spillEnd) return [];
    const size = Math.min(spillEnd - spillRead, 256 * 1024);
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(spillFd, buf, got, size - got, spillRead + got);
      if (n === 0) break;
      got += n;
    }
    spillRead += got;
    const text = partial + buf.subarray(0, got).toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    const rows = lines.map((l) => JSON.parse(l) as string[]);
    spillRows -= rows.length;
    return rows;
  };

  const closeSpill = () => {
    if (spillFd === undefined) return;
    closeSync(spillFd);
    spillFd = undefined;
    spillEnd = spillRead = 0;
    partial = '';
    rmSync(spillPath, { force: true });
  };

  const loop = async () => {
    for (;;) {
      if (memory.length === 0 && spillRows === 0 && late.length === 0) {
        closeSpill();
        spillBroken = false;
        if (finishing) return;
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = undefined;
        continue;
      }
      // Every row queued so far had its outcome appended before it was queued: one fsync covers
      // them all. A journal that failed is told by the run; the rows are still written, since
      // the results may then be the only record.
      await o.sync().catch(() => {});
      let batch: (readonly string[])[];
      if (memory.length > 0) {
        batch = memory;
        memory = [];
        memoryChars = 0;
      } else if (spillRows > 0) batch = readSpill();
      else {
        batch = late;
        late = [];
      }
      for (const cells of batch) {
        const w = o.write(cells);
        if (w) await w;
        waiting--;
      }
    }
  };
  const running = loop().catch((err: unknown) => {
    failure = err;
  });

  return {
    push(cells) {
      if (failure !== undefined) return;
      waiting++;
      if (spillBroken) late.push(cells);
      else if (spillFd !== undefined || memoryChars > bound) {
        try {
          spill(cells);
        } catch {
          // Sending must not stop for the results' sake: the journal has them all.
          spillBroken = true;
          late.push(cells);
        }
      } else {
        memory.push(cells);
        for (const c of cells) memoryChars += c.length + 2;
      }
      wake?.();
    },
    get waiting() {
      return waiting;
    },
    async finish(cut) {
      finishing = true;
      wake?.();
      if (cut && !cut.aborted) {
        let onCut = () => {};
        const stopped = new Promise<void>((r) => {
          onCut = () => r();
          cut.addEventListener('abort', onCut, { once: true });
        });
        await Promise.race([running, stopped]);
        cut.removeEventListener('abort', onCut);
      }
      const left = waiting;
      if (cut?.aborted && left > 0) {
        // The loop may stay parked on a write nobody takes: it is left there, and the rows with it.
        memory = [];
        late = [];
        spillRows = 0;
        waiting = 0;
      } else await running;
      try {
        closeSpill();
      } catch {}
      if (failure !== undefined) throw failure;
      return cut?.aborted ? left : 0;
    },
  };
}
