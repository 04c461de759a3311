// Running whole processes and measuring them: wall time, CPU time and peak RSS. Peak RSS comes from
// GNU time (`/usr/bin/time -v`) when it is installed, else from a preloaded module that writes
// `process.resourceUsage()` at exit — both read the kernel's own high-water mark.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GNU_TIME = '/usr/bin/time';
const PRELOAD = fileURLToPath(new URL('./rusage-preload.js', import.meta.url));

/** Children still running; `stopAll` ends them when the harness stops early. */
const live = new Set();

export function stopAll() {
  for (const child of live) child.kill('SIGKILL');
}

/** Environment without NODE_EXTRA_CA_CERTS (it adds ~45 ms to every node start here). */
export function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

let perfWorks;
/**
 * Whether `perf stat` can count user-space instructions here (a VM may hide the hardware counters).
 * Instructions are a figure a shared machine's load barely moves, unlike time; BENCH_NO_PERF=1 skips.
 */
export function hasPerf() {
  if (perfWorks === undefined) {
    perfWorks = false;
    if (!process.env.BENCH_NO_PERF) {
      const r = spawnSync('perf', ['stat', '-x', ',', '-e', 'instructions:u', 'true'], { encoding: 'utf8' });
      perfWorks = r.status === 0 && /^\d+,/m.test(r.stderr ?? '');
    }
  }
  return perfWorks;
}

/** BENCH_NO_GNU_TIME=1 forces the fallback (to check it on a machine that has GNU time). */
export function hasGnuTime() {
  return !process.env.BENCH_NO_GNU_TIME && existsSync(GNU_TIME);
}

/**
 * Run `node <args>` to completion and measure it. Resolves { code, ms, maxRssKb, cpuMs, stdout,
 * stderr, instructions }; `ms` is the wall time from spawn to exit as the harness sees it;
 * `instructions` (user space, all threads) only with `countInstructions` where perf works.
 */
export function measureNode(args, { env, cwd, tmp, input, countInstructions } = {}) {
  const tag = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const statsFile = join(tmp, `rusage-${tag}.txt`);
  const perfFile = join(tmp, `perf-${tag}.txt`);
  const gnu = hasGnuTime();
  const perf = Boolean(countInstructions) && hasPerf();
  let cmd = gnu ? GNU_TIME : process.execPath;
  let argv = gnu ? ['-v', '-o', statsFile, process.execPath, ...args] : ['--import', PRELOAD, ...args];
  if (perf) {
    argv = ['stat', '-x', ',', '-e', 'instructions:u', '-o', perfFile, '--', cmd, ...argv];
    cmd = 'perf';
  }
  const childEnv = gnu ? env : { ...env, BENCH_RUSAGE_FILE: statsFile };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { env: childEnv, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(child);
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = performance.now() - started;
      live.delete(child);
      let maxRssKb;
      let cpuMs;
      try {
        const text = readFileSync(statsFile, 'utf8');
        if (gnu) {
          maxRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(text)?.[1]);
          const user = Number(/User time \(seconds\): ([\d.]+)/.exec(text)?.[1]);
          const sys = Number(/System time \(seconds\): ([\d.]+)/.exec(text)?.[1]);
          cpuMs = (user + sys) * 1000;
        } else {
          const usage = JSON.parse(text);
          maxRssKb = usage.maxRSS;
          cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
        }
      } catch {
        // No stats when the child died before writing them; the caller sees the exit code.
      }
      rmSync(statsFile, { force: true });
      let instructions;
      if (perf) {
        try {
          instructions =
            Number(/^(\d+),[^,]*,instructions/m.exec(readFileSync(perfFile, 'utf8'))?.[1]) || undefined;
        } catch {
          // perf wrote nothing: the figure is simply absent.
        }
        rmSync(perfFile, { force: true });
      }
      resolve({
        instructions,
        code: code ?? signal,
        ms,
        maxRssKb,
        cpuMs,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    // A child that exits before reading its stdin (node -e 0) closes the pipe: not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** Start a long-running process (a sandbox); the caller stops it with `stop`. */
export function startProcess(cmd, args, { env, cwd } = {}) {
  const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.on('exit', () => live.delete(child));
  return child;
}

export function stop(child, signal = 'SIGTERM', graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Peak and current RSS (kB) and CPU time (ms) of a running process, from /proc. */
export function procStats(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return {
      hwmKb: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]),
      rssKb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]),
      // USER_HZ is 100 on every Linux this runs on.
      cpuMs: ticks * 10,
    };
  } catch {
    return undefined;
  }
}
