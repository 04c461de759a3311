// Locks held by one payops process: a run's own lock (one process per run) and the input lock (one
// process per input, operation and gateway, from the duplicate check to the end of the run). An
// O_EXCL file holding pid and host; a stale one left by a dead process is taken over.
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export const LOCK_FILE = 'lock';

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

export async function isLocked(dir: string): Promise<boolean> {
  return lockIsLive(await readLock(join(dir, LOCK_FILE)));
}
