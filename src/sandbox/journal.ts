// `--data DIR`: an append-only JSONL log of the store's mutations. Records of one HTTP request are
// buffered and written with a single write + fsync before the response goes out, so an answered
// request is durable and a batch of 50 costs one fsync, not 50.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { JournalRecord, Store } from './store.js';

export const JOURNAL_FILE = 'sandbox-journal.jsonl';

export class Journal {
  readonly path: string;
  readonly #fd: number;
  readonly #pending: string[] = [];

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /** Replay the log in `dir` into `store` (if any), then open it for appending. */
  static open(dir: string, store: Store): { journal: Journal; replayed: number } {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, JOURNAL_FILE);
    let replayed = 0;
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      const end = text.lastIndexOf('\n') + 1;
      // A crash mid-write leaves a torn last line: drop it, or the next append would glue onto it.
      if (end < text.length) truncateSync(path, Buffer.byteLength(text.slice(0, end)));
      let start = 0;
      while (start < end) {
        const nl = text.indexOf('\n', start);
        const line = text.slice(start, nl);
        start = nl + 1;
        if (line.length === 0) continue;
        store.replay(JSON.parse(line) as JournalRecord);
        replayed++;
      }
    }
    const journal = new Journal(path, openSync(path, 'a'));
    store.sink = (record) => journal.record(record);
    return { journal, replayed };
  }

  record(record: JournalRecord): void {
    this.#pending.push(JSON.stringify(record));
  }

  /** Write and fsync whatever the current request changed. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const chunk = Buffer.from(`${this.#pending.join('\n')}\n`);
    this.#pending.length = 0;
    for (let off = 0; off < chunk.length; ) off += writeSync(this.#fd, chunk, off);
    fsyncSync(this.#fd);
  }

  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}
