// Locks held by one payops process: a run's own lock (one process per run) and the input lock (one
// process per input, operation and gateway, from the duplicate check to the end of the run). An
// O_EXCL file naming the process that took it: host, pid and, on Linux, the process's start time
// and the boot it started in — a pid alone is reused, and a crashed run's lock must not look live
// forever because an unrelated process got its number. A lock whose process is gone is taken over
// (see takeOver: never two holders, however many payops race for it); a lock taken on another host
// is never taken over, since payops cannot see that host's processes — nor is one taken in another
// pid namespace (a container sharing the host's name and kernel), whose pids mean other processes.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export const LOCK_FILE = 'lock';

export interface LockOwner {
  pid: number;
  host: string;
  at: string;
  /** /proc/<pid>/stat field 22 (clock ticks since boot); absent where there is no /proc. */
  start?: string;
  /** /proc/sys/kernel/random/boot_id: a start time is only comparable within one boot. */
  boot?: string;
  /** /proc/self/ns/pid: pids and start times are only comparable within one pid namespace. */
  ns?: string;
  /** Tells apart two holders in one process (a run's lock and its input's are different files). */
  nonce?: string;
}

/** What a lock says of its owner now. */
export type Liveness =
  | 'live'
  /** The process is gone, or its pid now belongs to another process: taken over. */
  | 'dead'
  /** Taken on another host: never taken over. */
  | 'elsewhere'
  /** Taken in another pid namespace of this host (a container): never taken over. */
  | 'other-namespace'
  /** Lock files without a start time (older payops, or no /proc): a live pid is taken as the owner. */
  | 'pid-alive';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The start time of process `pid` (Linux), or undefined when it cannot be read (no /proc, no such pid). */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2, the command name, is in parentheses and may hold spaces or ')': count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
    const start = fields[19];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

let bootIdCache: string | null | undefined;
function bootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache ?? undefined;
}

let nsCache: string | null | undefined;
function pidNamespace(): string | undefined {
  if (nsCache === undefined) {
    try {
      nsCache = readlinkSync('/proc/self/ns/pid') || null;
    } catch {
      nsCache = null;
    }
  }
  return nsCache ?? undefined;
}

/** This process, as its locks name it. */
function me(): LockOwner {
  const start = processStart(process.pid);
  const boot = bootId();
  const ns = pidNamespace();
  return {
    pid: process.pid,
    host: hostname(),
    at: new Date().toISOString(),
    // A start time is only ever recorded with the namespace it can be checked in.
    ...(start && boot && ns ? { start, boot, ns } : {}),
    nonce: randomBytes(6).toString('hex'),
  };
}

export function liveness(owner: LockOwner): Liveness {
  if (owner.host !== hostname()) return 'elsewhere';
  if (owner.start !== undefined && owner.boot !== undefined) {
    const boot = bootId();
    if (boot !== undefined) {
      // A reboot since: every process of that boot is gone.
      if (owner.boot !== boot) return 'dead';
      // Containers share the kernel (and its boot id) but not the pids: its pid is not ours to judge.
      if (owner.ns !== undefined && owner.ns !== pidNamespace()) return 'other-namespace';
      const start = processStart(owner.pid);
      if (start !== undefined) return start === owner.start ? 'live' : 'dead';
      // No /proc entry: the process is gone — unless /proc hides other users' processes.
      return pidAlive(owner.pid) ? 'pid-alive' : 'dead';
    }
  }
  return pidAlive(owner.pid) ? 'pid-alive' : 'dead';
}

interface Read {
  raw: string;
  owner: LockOwner | undefined;
}

async function readLock(path: string): Promise<Read | undefined> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const p = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof p.pid === 'number' && typeof p.host === 'string') {
      return {
        raw,
        owner: {
          pid: p.pid,
          host: p.host,
          at: String(p.at ?? ''),
          ...(typeof p.start === 'string' ? { start: p.start } : {}),
          ...(typeof p.boot === 'string' ? { boot: p.boot } : {}),
          ...(typeof p.ns === 'string' ? { ns: p.ns } : {}),
          ...(typeof p.nonce === 'string' ? { nonce: p.nonce } : {}),
        },
      };
    }
  } catch {
    // Unreadable or half-written lock: its writer died between open and write, or is writing now.
  }
  return { raw, owner: undefined };
}

async function ageMs(path: string): Promise<number> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Create `path` holding `owner`, or false when it exists (O_EXCL). */
async function create(path: string, owner: LockOwner): Promise<boolean> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(JSON.stringify(owner));
  } finally {
    await fh.close();
  }
  return true;
}

const same = (a: LockOwner | undefined, b: LockOwner) =>
  a !== undefined && a.pid === b.pid && a.host === b.host && a.nonce === b.nonce;

/** Why a lock cannot be taken: who holds it, and what the user can do. */
function heldBy(what: string, path: string, owner: LockOwner, state: Liveness): UsageError {
  if (state === 'elsewhere') {
    return new UsageError(`${what} is in use by process ${owner.pid} on host ${owner.host}`, {
      hint: `payops never takes over a lock from another host. If ${owner.host} is gone, or no payops runs there any more, remove the lock: rm ${path}`,
    });
  }
  if (state === 'other-namespace') {
    return new UsageError(
      `${what} is in use by process ${owner.pid} in another process namespace on ${owner.host} (a container, or the host seen from one)`,
      {
        hint: `payops cannot see the processes of another namespace, so it never takes over such a lock. If no payops runs there any more, remove the lock: rm ${path}`,
      },
    );
  }
  const unsure =
    owner.start === undefined
      ? 'this lock (from an older payops, or a system without /proc) does not say when its process started'
      : `payops cannot read when process ${owner.pid} started`;
  return new UsageError(`${what} is in use by process ${owner.pid} (on ${owner.host})`, {
    hint:
      state === 'live'
        ? 'wait for that process to finish, or stop it: one payops at a time works on it'
        : `wait for that process to finish, or stop it: one payops at a time works on it. (${unsure}, so it cannot tell whether process ${owner.pid} is still the payops that took it: if no payops is running, remove the lock: rm ${path})`,
  });
}

/**
 * Remove the lock at `path` that `stale` was read from, when it is still that lock: a takeover is
 * serialised by an O_EXCL claim named after the stale lock's bytes, so of every process that found
 * this lock stale only one removes it, and one that comes later finds new bytes and removes nothing.
 * A claim left by a process that died while taking over is itself taken over the same way.
 */
async function takeOver(path: string, stale: Read, what: string, depth = 0): Promise<void> {
  const tag = createHash('sha256').update(stale.raw).digest('hex').slice(0, 16);
  const claim = `${path}.takeover-${tag}`;
  const mine = me();
  if (!(await create(claim, mine))) {
    const other = await readLock(claim);
    if (other === undefined) return; // its taker is done: try the lock again
    const state = other.owner ? liveness(other.owner) : 'dead';
    const young = other.owner === undefined && (await ageMs(claim)) < 2_000;
    if (state !== 'dead' || young || depth >= 2) {
      throw new UsageError(`${what} is being taken over by another process`, {
        hint: `try again in a moment${depth >= 2 ? `; if no payops is running, remove ${path} and ${claim}` : ''}`,
      });
    }
    await takeOver(claim, other, what, depth + 1);
    if (!(await create(claim, mine))) {
      throw new UsageError(`${what} is being taken over by another process`, {
        hint: 'try again in a moment',
      });
    }
  }
  try {
    const now = await readLock(path);
    if (now !== undefined && now.raw === stale.raw) await unlink(path).catch(() => {});
  } finally {
    await unlink(claim).catch(() => {});
  }
}

/**
 * Take a lock file (O_EXCL) naming this process; one left by a process that is gone is taken over.
 * `what` names the locked thing in the error ("run 2026…", "refunds.csv"). Resolves to the release
 * function.
 */
export async function acquireLock(path: string, what: string): Promise<() => Promise<void>> {
  const mine = me();
  const release = async () => {
    const now = await readLock(path).catch(() => undefined);
    if (same(now?.owner, mine)) await unlink(path).catch(() => {});
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await create(path, mine)) return release;
    const found = await readLock(path);
    if (found === undefined) continue; // released meanwhile
    if (found.owner === undefined) {
      // Empty or half-written: its owner may be writing it right now.
      if ((await ageMs(path)) < 2_000) {
        throw new UsageError(`${what} is being opened by another process`, { hint: 'try again in a moment' });
      }
    } else {
      const state = liveness(found.owner);
      if (state !== 'dead') throw heldBy(what, path, found.owner, state);
    }
    await takeOver(path, found, what);
  }
  throw new UsageError(`${what} was locked by another process while payops tried to take it over`, {
    hint: 'try again in a moment',
  });
}

/** Take the run's lock; a stale lock left by a dead process is taken over. */
export function lockRun(dir: string, runId: string): Promise<() => Promise<void>> {
  return acquireLock(join(dir, LOCK_FILE), `run ${runId}`);
}

/** Whether a process other than a gone one holds the run's lock (runs list: "running"). */
export async function isLocked(dir: string): Promise<boolean> {
  return isLockHeld(join(dir, LOCK_FILE));
}

/** Whether a process other than a gone one holds the lock file at `path` (a lock left by a crash is not). */
export async function isLockHeld(path: string): Promise<boolean> {
  const found = await readLock(path).catch(() => undefined);
  return found?.owner !== undefined && liveness(found.owner) !== 'dead';
}
