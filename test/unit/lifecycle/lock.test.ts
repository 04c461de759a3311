// Locks naming their process by host, pid and start time (issue 13, item 16): a crashed run's lock
// whose pid now belongs to an unrelated process is taken over; a lock from another host never is;
// lock files of older payops (pid and host only) keep working; and of many processes racing to take
// over one stale lock, exactly one gets it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { acquireLock, isLocked, processStart } from '../../../src/lifecycle/lock.js';

const linux = existsSync('/proc/self/stat') && existsSync('/proc/sys/kernel/random/boot_id');
const boot = linux ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : '';

let dir: string;
let path: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payops-lock-'));
  path = join(dir, 'lock');
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** A live process that is not payops: its pid is what a crashed run's pid may have become. */
function unrelatedProcess(): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

const lockOf = async () => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;

describe.runIf(linux)('a lock names its process by start time (Linux)', () => {
  it('records host, pid, start time and boot id', async () => {
    const release = await acquireLock(path, 'the thing');
    const lock = await lockOf();
    expect(lock).toMatchObject({ pid: process.pid, host: hostname(), boot });
    expect(lock.start).toBe(processStart(process.pid));
    expect(lock.start).toMatch(/^\d+$/);
    await release();
    expect(existsSync(path)).toBe(false);
  });

  it('a crashed run whose pid now belongs to an unrelated process: taken over', async () => {
    const other = unrelatedProcess();
    // The crashed payops had this pid, but started at another time.
    const start = String(Number(processStart(other.pid!) ?? '0') - 1000);
    await writeFile(path, JSON.stringify({ pid: other.pid, host: hostname(), at: '', start, boot }));
    expect(await isLocked(dir)).toBe(false);
    const release = await acquireLock(path, 'run X');
    expect((await lockOf()).pid).toBe(process.pid);
    await release();
  });

  it('a lock from before a reboot: taken over, whatever runs under its pid now', async () => {
    await writeFile(
      path,
      JSON.stringify({ pid: 1, host: hostname(), at: '', start: processStart(1), boot: 'another-boot' }),
    );
    const release = await acquireLock(path, 'run X');
    expect((await lockOf()).pid).toBe(process.pid);
    await release();
  });

  it('the process that took it, still running: respected', async () => {
    const other = unrelatedProcess();
    const start = processStart(other.pid!);
    await writeFile(path, JSON.stringify({ pid: other.pid, host: hostname(), at: '', start, boot }));
    expect(await isLocked(dir)).toBe(true);
    const err = await acquireLock(path, 'run X').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(new RegExp(`run X is in use by process ${other.pid}`));
    expect((err as UsageError).hint).toMatch(/wait for that process to finish/);
  });
});

describe.runIf(linux && existsSync('/proc/self/ns/pid'))('a lock from another pid namespace (Linux)', () => {
  it('records its namespace, and one from a container sharing the host name is never taken over', async () => {
    const release = await acquireLock(path, 'the thing');
    expect((await lockOf()).ns).toBe(readlinkSync('/proc/self/ns/pid'));
    await release();
    // A payops in a container (same host name with --network host, same kernel, so the same boot):
    // its pid means another process here, whose start time differs — yet it may be running.
    const other = unrelatedProcess();
    const start = String(Number(processStart(other.pid!) ?? '0') - 1000);
    await writeFile(
      path,
      JSON.stringify({ pid: other.pid, host: hostname(), at: '', start, boot, ns: 'pid:[4026530001]' }),
    );
    expect(await isLocked(dir)).toBe(true);
    const err = await acquireLock(path, 'run X').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/in another process namespace/);
    expect((err as UsageError).hint).toMatch(/never takes over.*rm .*lock/s);
    expect(existsSync(path)).toBe(true);
  });
});

describe('locks without a start time, and other hosts', () => {
  it('an old lock (pid and host only) of a live pid is respected, and the hint says how to remove it', async () => {
    await writeFile(path, JSON.stringify({ pid: 1, host: hostname(), at: '' }));
    const err = await acquireLock(path, 'run X').catch((e: unknown) => e);
    expect((err as UsageError).message).toMatch(/in use by process 1/);
    expect((err as UsageError).hint).toMatch(/does not say when its process started.*rm .*lock/s);
  });

  it('an old lock of a dead pid is taken over', async () => {
    await writeFile(path, JSON.stringify({ pid: deadPid(), host: hostname(), at: '' }));
    const release = await acquireLock(path, 'run X');
    expect((await lockOf()).pid).toBe(process.pid);
    await release();
  });

  it('a lock from another host is never taken over; the message names the host and how to remove it', async () => {
    await writeFile(
      path,
      JSON.stringify({ pid: deadPid(), host: 'build-7.example', at: '', start: '1', boot: 'b' }),
    );
    expect(await isLocked(dir)).toBe(true);
    const err = await acquireLock(path, 'run X').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/in use by process \d+ on host build-7\.example/);
    expect((err as UsageError).hint).toContain(`rm ${path}`);
    expect(JSON.parse(await readFile(path, 'utf8')).host).toBe('build-7.example');
  });
});

describe('racing to take over one stale lock', () => {
  const claimOf = (raw: string) =>
    `${path}.takeover-${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`;

  it('a takeover under way in a live process: the others wait for it, and remove nothing', async () => {
    const raw = JSON.stringify({ pid: deadPid(), host: hostname(), at: '' });
    await writeFile(path, raw);
    await writeFile(claimOf(raw), JSON.stringify({ pid: process.pid, host: hostname(), at: '' }));
    await expect(acquireLock(path, 'run X')).rejects.toThrow(/run X is being taken over by another process/);
    expect(await readFile(path, 'utf8')).toBe(raw);
  });

  it('a takeover left half-way by a process that died: taken over in turn', async () => {
    const raw = JSON.stringify({ pid: deadPid(), host: hostname(), at: '' });
    await writeFile(path, raw);
    await writeFile(claimOf(raw), JSON.stringify({ pid: deadPid(), host: hostname(), at: 'x' }));
    const release = await acquireLock(path, 'run X');
    expect((await lockOf()).pid).toBe(process.pid);
    expect((await readdir(dir)).filter((n) => n.includes('takeover'))).toEqual([]);
    await release();
  });

  const PROCS = 6;
  const ROUNDS = 2;

  it(`${PROCS} processes at once, ${ROUNDS} rounds: exactly one holds it each time, no claim left`, async () => {
    // The lock module built for plain node, so the racers are real processes.
    const bundle = join(dir, 'lock.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('../../../src/lifecycle/lock.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
    const racer = `
      import { acquireLock } from ${JSON.stringify(bundle)};
      const [path, at] = process.argv.slice(1);
      while (Date.now() < Number(at)) {}
      try {
        await acquireLock(path, 'x');
        process.stdout.write('held');
        // Held until the test ends it: a holder gone early would be taken over, rightly.
        setTimeout(() => {}, 60_000);
      } catch (e) {
        process.stdout.write('refused: ' + e.message);
      }`;
    for (let round = 0; round < ROUNDS; round++) {
      const racePath = join(dir, `lock-${round}`);
      await writeFile(racePath, JSON.stringify({ pid: deadPid(), host: hostname(), at: String(round) }));
      const at = Date.now() + 700;
      const outs = await Promise.all(
        Array.from(
          { length: PROCS },
          () =>
            new Promise<string>((resolve) => {
              const c = spawn(process.execPath, ['--input-type=module', '-e', racer, racePath, String(at)]);
              children.push(c);
              let out = '';
              c.stdout.on('data', (d: Buffer) => {
                out += d.toString();
                resolve(out);
              });
              c.on('close', () => resolve(out));
            }),
        ),
      );
      const held = outs.filter((o) => o === 'held');
      expect(held, outs.join('\n')).toHaveLength(1);
      for (const o of outs.filter((x) => x !== 'held')) {
        expect(o).toMatch(
          /refused: x (is in use by process|is being taken over|is being opened by another process|was locked by another)/,
        );
      }
      expect((await readdir(dir)).filter((n) => n.includes('takeover'))).toEqual([]);
      for (const c of children.splice(0)) c.kill('SIGKILL');
    }
  }, 30_000);
});
