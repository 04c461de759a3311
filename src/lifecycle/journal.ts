// Append-only run journal: one JSON object per line in `<stateDir>/runs/<runId>/journal.jsonl`,
// fsync'd before `append` resolves, one process per run at a time (an O_EXCL lock file). Generic:
// the bulk engine and payouts both write their own record types (typed by the caller, see
// records.ts); this module only knows the header.
//
// Durability rule the callers rely on: when `append` resolves, the records are on disk. Appends made
// while a previous write+fsync is in flight are grouped into one write+fsync (group commit), so
// concurrent chunks cost one fsync per batch of records, not one per record.
import { type FileHandle, mkdir, open, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { CHAINED_VERSION, lineHash, withPrev } from './chain.js';
import { sizeIfExists, syncFolder } from './fs-sync.js';
import { lockRun } from './lock.js';
import {
  assertRunExists,
  isRunId,
  JOURNAL_FILE,
  newRunId,
  runDir,
  runsDir,
  stateWriteError,
  writingState,
} from './paths.js';
import { type ReadRunResult, readRun } from './read.js';
import type { JournalRecord, NewRunHeader, RawRecord, RecordParser, RunHeader } from './records.js';

// The journal's public face: reading runs back and their paths live beside it.
export { isRunId, newRunId, runDir, runsDir } from './paths.js';
export { findRunsByInput, listRuns, type ReadRunResult, type RunInfo, readRecords, readRun } from './read.js';

/** 2: records chained by `prev` (chain.ts, issue 28); journals of version 1 are still read and resumed. */
const JOURNAL_VERSION = CHAINED_VERSION;
/** Lazily appended records are written once this much text has gathered. */
const LAZY_FLUSH_CHARS = 256 * 1024;

/** An open run, written by one process. `W` is the record types this kind of run writes. */
export interface RunJournal<W extends JournalRecord = RawRecord> {
  readonly runId: string;
  readonly dir: string;
  readonly path: string;
  readonly header: RunHeader;
  /**
   * Append records; resolves once they are written and fsync'd. Rejects forever after a failed
   * write, with a LocalWriteError saying the journal could not be written (paths.ts stateWriteError).
   */
  append(records: W | readonly W[]): Promise<void>;
  /**
   * Append records whose loss in a crash is harmless (the reader then sees an earlier state): they
   * are written, in order, with the next `append`, at `close`, or once enough have gathered.
   */
  appendLazy(records: W | readonly W[]): void;
  /**
   * Resolves once every record appended so far, lazy ones too, is written and fsync'd: a row's
   * outcome is shown only after this (docs/reliability.md), so no kill makes the journal say less
   * than the screen did. Costs nothing when no lazy record waits; shares the fsync of appends in
   * flight otherwise. Resolves at once after `close()` (which flushed everything).
   */
  sync(): Promise<void>;
  /**
   * Flush, close and release the lock. Idempotent. Never rejects: a write that failed, here or
   * before (a lazy record, the final flush or fsync), is kept in `failure`.
   */
  close(): Promise<void>;
  /**
   * The first write that failed (a LocalWriteError), or undefined while every record reached the
   * disk. Read it after `close()` to know whether the journal holds everything appended.
   */
  readonly failure: unknown;
}

/**
 * `head`: the hash of the journal's last line, to chain the next record to (chain.ts); undefined for
 * a journal of a version with no chain (resumed as it was written).
 */
function journalWriter<W extends JournalRecord>(
  fh: FileHandle,
  unlock: () => Promise<void>,
  meta: { runId: string; dir: string; path: string; header: RunHeader },
  head: string | undefined,
): RunJournal<W> {
  // Linked here, as records are queued, so lazy and grouped appends chain in the order they are written.
  function serialise(records: readonly JournalRecord[], now: string): string {
    let out = '';
    for (const r of records) {
      let line = JSON.stringify(r.at === undefined ? { ...r, at: now } : r);
      if (head !== undefined) {
        line = withPrev(line, head);
        head = lineHash(line);
      }
      out += `${line}\n`;
    }
    return out;
  }
  let queued = '';
  let waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  let flushing: Promise<void> | undefined;
  let failure: unknown;
  let closed = false;
  /** Lazy records were written since the last fdatasync. */
  let unsynced = false;
  /** Lazy appends so far, and how many of them the last fdatasync covered (sync()). */
  let lazyCount = 0;
  let syncedCount = 0;
  /** close() under way or done: sync() then waits for it (it flushes and fsyncs everything). */
  let closing: Promise<void> | undefined;

  async function flushLoop(): Promise<void> {
    // Waiters alone (sync()) still get their fdatasync.
    while (queued !== '' || waiters.length > 0) {
      const buf = Buffer.from(queued, 'utf8');
      const covers = lazyCount;
      const batch = waiters;
      queued = '';
      waiters = [];
      try {
        let off = 0;
        while (off < buf.length) {
          const { bytesWritten } = await fh.write(buf, off, buf.length - off);
          off += bytesWritten;
        }
        // Lazy records alone need no fsync (a crash that loses them costs a reconciliation); the
        // next durable append's fdatasync covers them, since it flushes the whole file.
        if (batch.length > 0) {
          await fh.datasync();
          unsynced = false;
          syncedCount = Math.max(syncedCount, covers);
        } else unsynced = true;
        for (const w of batch) w.resolve();
      } catch (cause) {
        // Said as what it is (a full disk, an I/O error), not as whatever the caller was doing.
        const err = stateWriteError(cause, meta.dir, meta.runId);
        failure ??= err;
        for (const w of batch) w.reject(err);
        for (const w of waiters) w.reject(err);
        waiters = [];
        queued = '';
      }
    }
    flushing = undefined;
  }

  async function closeNow(): Promise<void> {
    closed = true;
    if (queued !== '' && failure === undefined) flushing ??= flushLoop();
    while (flushing !== undefined) await flushing;
    if (unsynced && failure === undefined) {
      await fh.datasync().catch((cause: unknown) => {
        failure ??= stateWriteError(cause, meta.dir, meta.runId);
      });
    }
    await fh.close().catch(() => {});
    await unlock();
  }

  return {
    ...meta,
    get failure() {
      return failure;
    },
    append(records) {
      if (closed) return Promise.reject(new Error(`journal of run ${meta.runId} is closed`));
      if (failure !== undefined) return Promise.reject(failure);
      const list: readonly W[] = Array.isArray(records) ? records : [records as W];
      if (list.length === 0) return Promise.resolve();
      queued += serialise(list, new Date().toISOString());
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      flushing ??= flushLoop();
      return done;
    },
    appendLazy(records) {
      if (closed || failure !== undefined) return;
      const list: readonly W[] = Array.isArray(records) ? records : [records as W];
      queued += serialise(list, new Date().toISOString());
      lazyCount++;
      // Bound what a crash can lose and what waits in memory.
      if (queued.length >= LAZY_FLUSH_CHARS) flushing ??= flushLoop();
    },
    sync() {
      if (failure !== undefined) return Promise.reject(failure);
      if (closing !== undefined) return closing;
      if (syncedCount >= lazyCount) return Promise.resolve();
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      flushing ??= flushLoop();
      return done;
    },
    close() {
      closing ??= closeNow();
      return closing;
    },
  };
}

/** Create a new run: its folder, lock and journal with the header record (fsync'd). */
export async function createRun<W extends JournalRecord = RawRecord>(
  stateDir: string,
  header: NewRunHeader,
  opts: { now?: Date; runId?: string } = {},
): Promise<RunJournal<W>> {
  const now = opts.now ?? new Date();
  // Every write here happens before anything is sent: a failure says so (exit 4).
  return writingState(stateDir, async () => {
    await mkdir(runsDir(stateDir), { recursive: true, mode: 0o700 });
    for (let attempt = 0; ; attempt++) {
      // A caller-chosen id (shown in the plan before the run exists) is used once; collisions get a new one.
      const runId = attempt === 0 && opts.runId && isRunId(opts.runId) ? opts.runId : newRunId(now);
      const dir = runDir(stateDir, runId);
      try {
        await mkdir(dir, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 20) continue;
        throw err;
      }
      return startJournal<W>(dir, runId, header, now);
    }
  });
}

async function startJournal<W extends JournalRecord>(
  dir: string,
  runId: string,
  header: NewRunHeader,
  now: Date,
): Promise<RunJournal<W>> {
  const unlock = await lockRun(dir, runId);
  let fh: FileHandle | undefined;
  try {
    const full: RunHeader = {
      ...header,
      type: 'header',
      v: JOURNAL_VERSION,
      runId,
      createdAt: now.toISOString(),
    };
    const path = join(dir, JOURNAL_FILE);
    fh = await open(path, 'wx', 0o600);
    const line = JSON.stringify(full);
    await fh.write(`${line}\n`);
    await fh.datasync();
    await syncFolder(dir);
    return journalWriter<W>(fh, unlock, { runId, dir, path, header: full }, lineHash(line));
  } catch (err) {
    await fh?.close().catch(() => {});
    await unlock();
    throw err;
  }
}

/**
 * Open an existing run to continue it: takes the lock, cuts a torn last line (left by a crash
 * mid-write, so the next record starts on a line of its own), and returns what was recorded.
 */
export async function openRun<R = RawRecord, W extends JournalRecord = RawRecord>(
  stateDir: string,
  runId: string,
  parse?: RecordParser<R>,
): Promise<{ journal: RunJournal<W> } & ReadRunResult<R>> {
  const dir = runDir(stateDir, runId);
  const path = join(dir, JOURNAL_FILE);
  await assertRunExists(path, runId);
  const unlock = await writingState(stateDir, () => lockRun(dir, runId));
  try {
    await writingState(stateDir, () => cutTornTail(path));
    const read = await readRun(stateDir, runId, parse);
    const fh = await writingState(stateDir, () => open(path, 'a'));
    // Goes on from the last line's hash (read.ts refused a broken chain); a version 1 journal stays unchained.
    const head = read.chain.legacy ? undefined : read.chain.head;
    const journal = journalWriter<W>(fh, unlock, { runId, dir, path, header: read.header }, head);
    return { journal, ...read };
  } catch (err) {
    await unlock();
    throw err;
  }
}

/** An append-only JSONL file's last line left incomplete by a crash, cut away (nothing when it does not exist). */
export async function cutTornTail(path: string): Promise<void> {
  const size = await sizeIfExists(path);
  if (!size) return;
  const fh = await open(path, 'r');
  try {
    // Walk back to the last newline; everything after it is a partial record.
    const step = 64 * 1024;
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - step);
      const buf = Buffer.alloc(end - start);
      await fh.read(buf, 0, buf.length, start);
      const nl = buf.lastIndexOf(0x0a);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep < size) await truncate(path, keep);
        return;
      }
      end = start;
    }
    await truncate(path, 0);
  } finally {
    await fh.close();
  }
}
