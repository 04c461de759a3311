// Append-only run journal: one JSON object per line in `<stateDir>/runs/<runId>/journal.jsonl`,
// fsync'd before `append` resolves, one process per run at a time (an O_EXCL lock file). Generic:
// the bulk engine and payouts both write their own record types; this module only knows the header
// and the terminal records (`finished`, `interrupted`) that give a run its state.
//
// Durability rule the callers rely on: when `append` resolves, the records are on disk. Appends made
// while a previous write+fsync is in flight are grouped into one write+fsync (group commit), so
// concurrent chunks cost one fsync per batch of records, not one per record.

import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, stat, truncate, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError } from '../errors.js';

export const JOURNAL_FILE = 'journal.jsonl';
export const LOCK_FILE = 'lock';
const JOURNAL_VERSION = 1;
/** Lazily appended records are written once this much text has gathered. */
const LAZY_FLUSH_CHARS = 256 * 1024;

/** What the caller gives `createRun`; the journal adds type, v, runId and createdAt. */
export interface NewRunHeader {
  /** What the run does: `refund`, `capture`, `cancel`, `review`, `payout`, … */
  op: string;
  /** Absolute path of the input file, when there is one. */
  file?: string;
  /** SHA-256 (hex) of the input's bytes. */
  sha256?: string;
  profile?: string;
  baseUrl?: string;
  merchantId?: string;
  accountId?: string;
  /** Who the money moved at: base URL + merchant + account (+ a per-process id for an in-process sandbox). */
  gatewayIdentity?: string;
  rows?: number;
  chunkSize?: number;
  /** Operations may add their own fields. */
  [extra: string]: unknown;
}

/** First record of every journal. */
export interface RunHeader extends NewRunHeader {
  type: 'header';
  v: number;
  runId: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** Any journal record; `type` says which. `at` (ISO 8601) is added by `append` when absent. */
export interface JournalRecord {
  type: string;
  at?: string;
  [field: string]: unknown;
}

export type RunState = 'finished' | 'interrupted' | 'running';

export interface RunInfo {
  runId: string;
  dir: string;
  header: RunHeader;
  /** `running` only while a live process holds the lock; a crashed run reads as `interrupted`. */
  state: RunState;
  /** The last record when it is a terminal one (`finished` / `interrupted`): callers keep counts there. */
  terminal?: JournalRecord;
}

export interface ReadRunResult {
  header: RunHeader;
  /** Every record after the header, in file order. */
  records: JournalRecord[];
  /** True when the last line was incomplete (a crash mid-write) and was ignored. */
  torn: boolean;
}

export interface RunJournal {
  readonly runId: string;
  readonly dir: string;
  readonly path: string;
  readonly header: RunHeader;
  /** Append records; resolves once they are written and fsync'd. Rejects forever after a failed write. */
  append(records: JournalRecord | JournalRecord[]): Promise<void>;
  /**
   * Append records whose loss in a crash is harmless (the reader then sees an earlier state): they
   * are written, in order, with the next `append`, at `close`, or once enough have gathered.
   */
  appendLazy(records: JournalRecord | JournalRecord[]): void;
  /** Flush, close and release the lock. Idempotent. */
  close(): Promise<void>;
}

export function runsDir(stateDir: string): string {
  return join(stateDir, 'runs');
}

export function runDir(stateDir: string, runId: string): string {
  return join(runsDir(stateDir), runId);
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** `20261122-013045-ab12`: UTC time first so ids sort by creation time. */
export function newRunId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2026-11-22T01:30:45.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export function isRunId(s: string): boolean {
  return RUN_ID.test(s);
}

// ---------------------------------------------------------------- lock

interface LockOwner {
  pid: number;
  host: string;
  at: string;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readLock(path: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host, at: String(parsed.at ?? '') };
    }
  } catch {
    // Unreadable or half-written lock: its writer died between open and write.
  }
  return undefined;
}

async function ageMs(path: string): Promise<number> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function lockIsLive(owner: LockOwner | undefined): boolean {
  if (owner === undefined) return false;
  // A lock taken on another host cannot be checked; respect it.
  if (owner.host !== hostname()) return true;
  return pidAlive(owner.pid);
}

/**
 * Take a lock file (O_EXCL) holding our pid and host; a stale one left by a dead process is taken
 * over. `what` names the locked thing in the error ("run 2026…", "refunds.csv"). Resolves to the
 * release function.
 */
export async function acquireLock(path: string, what: string): Promise<() => Promise<void>> {
  const me: LockOwner = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
  const release = async () => {
    const owner = await readLock(path);
    if (owner?.pid === me.pid && owner.host === me.host) await unlink(path).catch(() => {});
  };
  const inUse = (owner: LockOwner) =>
    new UsageError(`${what} is in use by process ${owner.pid} (on ${owner.host})`, {
      hint: 'wait for that process to finish, or stop it: one payops at a time works on it',
    });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(path, 'wx', 0o600);
      try {
        await fh.writeFile(JSON.stringify(me));
      } finally {
        await fh.close();
      }
      if (attempt > 0) {
        // We took over a stale lock: another process may have done the same at the same moment.
        // The last writer wins; the other sees it here and backs off.
        await new Promise((r) => setTimeout(r, 30));
        const owner = await readLock(path);
        if (owner?.pid !== me.pid || owner.host !== me.host) {
          throw owner ? inUse(owner) : new UsageError(`${what} was taken by another process`);
        }
      }
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = await readLock(path);
      if (owner && lockIsLive(owner)) throw inUse(owner);
      if (!owner && (await ageMs(path)) < 2_000) {
        // Empty or half-written: its owner may be writing it right now.
        throw new UsageError(`${what} is being opened by another process`, { hint: 'try again in a moment' });
      }
      await unlink(path).catch(() => {});
    }
  }
  throw new UsageError(`${what} was locked by another process while payops tried to take it over`);
}

/** Take the run's lock; a stale lock left by a dead process is taken over. */
export function lockRun(dir: string, runId: string): Promise<() => Promise<void>> {
  return acquireLock(join(dir, LOCK_FILE), `run ${runId}`);
}

async function isLocked(dir: string): Promise<boolean> {
  return lockIsLive(await readLock(join(dir, LOCK_FILE)));
}

// ---------------------------------------------------------------- writing

async function fsyncDir(dir: string): Promise<void> {
  // Makes a newly created file's directory entry durable; not every platform allows it.
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // best effort
  }
}

function serialise(records: JournalRecord[], now: string): string {
  let out = '';
  for (const r of records) out += `${JSON.stringify(r.at === undefined ? { ...r, at: now } : r)}\n`;
  return out;
}

function journalWriter(
  fh: FileHandle,
  unlock: () => Promise<void>,
  meta: { runId: string; dir: string; path: string; header: RunHeader },
): RunJournal {
  let queued = '';
  let waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  let flushing: Promise<void> | undefined;
  let failure: unknown;
  let closed = false;
  /** Lazy records were written since the last fdatasync. */
  let unsynced = false;

  async function flushLoop(): Promise<void> {
    while (queued !== '') {
      const buf = Buffer.from(queued, 'utf8');
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
        } else unsynced = true;
        for (const w of batch) w.resolve();
      } catch (err) {
        failure ??= err;
        for (const w of batch) w.reject(err);
        for (const w of waiters) w.reject(err);
        waiters = [];
        queued = '';
      }
    }
    flushing = undefined;
  }

  return {
    ...meta,
    append(records) {
      if (closed) return Promise.reject(new Error(`journal of run ${meta.runId} is closed`));
      if (failure !== undefined) return Promise.reject(failure);
      const list = Array.isArray(records) ? records : [records];
      if (list.length === 0) return Promise.resolve();
      queued += serialise(list, new Date().toISOString());
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      flushing ??= flushLoop();
      return done;
    },
    appendLazy(records) {
      if (closed || failure !== undefined) return;
      const list = Array.isArray(records) ? records : [records];
      queued += serialise(list, new Date().toISOString());
      // Bound what a crash can lose and what waits in memory.
      if (queued.length >= LAZY_FLUSH_CHARS) flushing ??= flushLoop();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (queued !== '' && failure === undefined) flushing ??= flushLoop();
      while (flushing !== undefined) await flushing;
      if (unsynced && failure === undefined) await fh.datasync().catch(() => {});
      await fh.close().catch(() => {});
      await unlock();
    },
  };
}

/** Create a new run: its folder, lock and journal with the header record (fsync'd). */
export async function createRun(
  stateDir: string,
  header: NewRunHeader,
  opts: { now?: Date; runId?: string } = {},
): Promise<RunJournal> {
  const now = opts.now ?? new Date();
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
    const unlock = await lockRun(dir, runId);
    try {
      const full: RunHeader = {
        ...header,
        type: 'header',
        v: JOURNAL_VERSION,
        runId,
        createdAt: now.toISOString(),
      };
      const path = join(dir, JOURNAL_FILE);
      const fh = await open(path, 'wx', 0o600);
      await fh.write(`${JSON.stringify(full)}\n`);
      await fh.datasync();
      await fsyncDir(dir);
      return journalWriter(fh, unlock, { runId, dir, path, header: full });
    } catch (err) {
      await unlock();
      throw err;
    }
  }
}

/**
 * Open an existing run to continue it: takes the lock, cuts a torn last line (left by a crash
 * mid-write, so the next record starts on a line of its own), and returns what was recorded.
 */
export async function openRun(
  stateDir: string,
  runId: string,
): Promise<{ journal: RunJournal } & ReadRunResult> {
  const dir = runDir(stateDir, runId);
  const path = join(dir, JOURNAL_FILE);
  await assertRunExists(path, runId);
  const unlock = await lockRun(dir, runId);
  try {
    await cutTornTail(path);
    const read = await readRun(stateDir, runId);
    const fh = await open(path, 'a');
    const journal = journalWriter(fh, unlock, { runId, dir, path, header: read.header });
    return { journal, ...read };
  } catch (err) {
    await unlock();
    throw err;
  }
}

async function assertRunExists(path: string, runId: string): Promise<void> {
  try {
    await stat(path);
  } catch {
    throw new UsageError(`there is no run ${runId}`, { hint: 'see `payops runs list`' });
  }
}

async function cutTornTail(path: string): Promise<void> {
  const size = (await stat(path)).size;
  if (size === 0) return;
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

// ---------------------------------------------------------------- reading

/** Records of a run in file order (header first); a torn last line is skipped. */
export async function* readRecords(stateDir: string, runId: string): AsyncGenerator<JournalRecord> {
  const path = join(runDir(stateDir, runId), JOURNAL_FILE);
  await assertRunExists(path, runId);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let pendingBad: { lineNo: number; err: unknown } | undefined;
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line === '') continue;
    if (pendingBad !== undefined) {
      throw new Error(`journal of run ${runId} is damaged at line ${pendingBad.lineNo}`, {
        cause: pendingBad.err,
      });
    }
    try {
      yield JSON.parse(line) as JournalRecord;
    } catch (err) {
      // Only acceptable as the very last line (a crash mid-write); decided when the next line comes.
      pendingBad = { lineNo, err };
    }
  }
}

export async function readRun(stateDir: string, runId: string): Promise<ReadRunResult> {
  const path = join(runDir(stateDir, runId), JOURNAL_FILE);
  await assertRunExists(path, runId);
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n');
  const records: JournalRecord[] = [];
  let torn = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch (err) {
      const isLast = lines.slice(i + 1).every((l) => l === '');
      if (!isLast) throw new Error(`journal of run ${runId} is damaged at line ${i + 1}`, { cause: err });
      torn = true;
    }
  }
  const header = records.shift();
  if (header?.type !== 'header') throw new Error(`journal of run ${runId} has no header`);
  return { header: header as RunHeader, records, torn };
}

async function readHeader(path: string): Promise<RunHeader | undefined> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const parsed = JSON.parse(line) as JournalRecord;
      return parsed.type === 'header' ? (parsed as RunHeader) : undefined;
    }
  } catch {
    return undefined;
  } finally {
    lines.close();
  }
  return undefined;
}

/** The last complete record, read from the file's tail only. */
async function readLastRecord(path: string): Promise<JournalRecord | undefined> {
  const size = (await stat(path)).size;
  const fh = await open(path, 'r');
  try {
    let span = Math.min(size, 64 * 1024);
    for (;;) {
      const buf = Buffer.alloc(span);
      await fh.read(buf, 0, span, size - span);
      const lines = buf.toString('utf8').split('\n');
      // The first piece may be a cut line unless we read from the file's start.
      const from = span === size ? 0 : 1;
      for (let i = lines.length - 1; i >= from; i--) {
        const line = lines[i]!;
        if (line === '') continue;
        try {
          return JSON.parse(line) as JournalRecord;
        } catch {
          // torn tail: try the line before
        }
      }
      if (span === size) return undefined;
      span = Math.min(size, span * 4);
    }
  } finally {
    await fh.close();
  }
}

/** Every run, newest first, with its state. Journals that cannot be read are skipped. */
export async function listRuns(stateDir: string): Promise<RunInfo[]> {
  let names: string[];
  try {
    names = await readdir(runsDir(stateDir));
  } catch {
    return [];
  }
  const ids = names.filter(isRunId).sort().reverse();
  const out: RunInfo[] = [];
  for (const runId of ids) {
    const dir = runDir(stateDir, runId);
    const path = join(dir, JOURNAL_FILE);
    try {
      const header = await readHeader(path);
      if (header === undefined) continue;
      const last = await readLastRecord(path);
      const info: RunInfo = { runId, dir, header, state: 'interrupted' };
      if (last?.type === 'finished') info.state = 'finished';
      else if (await isLocked(dir)) info.state = 'running';
      if (last?.type === 'finished' || last?.type === 'interrupted') info.terminal = last;
      out.push(info);
    } catch {
      // a run folder without a readable journal (created, then crashed before the header landed)
    }
  }
  return out;
}

/** Runs of the same input (SHA-256), operation and gateway identity, newest first. */
export async function findRunsByInput(
  stateDir: string,
  sha256: string,
  op: string,
  gatewayIdentity: string,
): Promise<RunInfo[]> {
  return (await listRuns(stateDir)).filter(
    (r) => r.header.sha256 === sha256 && r.header.op === op && r.header.gatewayIdentity === gatewayIdentity,
  );
}
