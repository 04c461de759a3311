// The support agent's look-up (issue 15): one-order `payops query ORD-1001` against a sandbox running
// in another process, and `payops --help`, each against a bare `node -e 0`. Whole processes, timed
// from spawn to exit, interleaved (so drift in the machine's load hits all three alike); medians,
// and ratios of the medians. NODE_EXTRA_CA_CERTS is unset on every side. Then the same runs once
// more for their CPU time (user + system, from GNU time or the process's own resource usage): on a
// loaded machine the wall times mostly measure waiting for a core, the CPU time much less so.
//   BENCH_LOOKUP_RUNS=30 BENCH_LOOKUP_WARMUP=3
import { spawnSync } from 'node:child_process';
import { cleanEnv, measureNode } from './lib/proc.js';
import { BIN, startSandbox } from './lib/sandbox.js';
import { median } from './lib/stats.js';

export const LOOKUP_TARGETS = { query: 3, help: 1.3 };

/**
 * Runs the section; `creds` are the sandbox's demo credentials, `home` a fresh PAYOPS_HOME.
 * Resolves { runs, warmup, form, results: [{ name, medianMs, minMs, runs, failedRuns, ratio }] }.
 */
export async function lookup({ creds, home, tmp, runs = 30, warmup = 3, log = () => {} }) {
  const sb = await startSandbox({ extraArgs: ['--samples'] });
  try {
    const env = cleanEnv({ ...creds, PAYOPS_BASE_URL: sb.url, PAYOPS_HOME: home });
    // `payops query ORD-1001` where the positional form exists; `--order-no` where it does not yet.
    let form = ['query', 'ORD-1001'];
    const probe = spawnSync(process.execPath, [BIN, ...form], { env, encoding: 'utf8' });
    if (probe.status === 2) form = ['query', '--order-no', 'ORD-1001'];
    const check = spawnSync(process.execPath, [BIN, ...form], { env, encoding: 'utf8' });
    if (check.status !== 0 || !check.stdout.includes('ORD-1001')) {
      throw new Error(`payops ${form.join(' ')} exited ${check.status}: ${check.stderr.slice(-400)}`);
    }
    const commands = [
      { name: 'node -e 0', argv: ['-e', '0'] },
      { name: 'payops --help', argv: [BIN, '--help'] },
      { name: `payops ${form.join(' ')}`, argv: [BIN, ...form] },
    ];
    const times = commands.map(() => []);
    const failed = commands.map(() => 0);
    log(`look-up: ${runs} runs of ${commands.map((c) => c.name).join(', ')}`);
    for (let i = 0; i < warmup + runs; i++) {
      commands.forEach((c, j) => {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, c.argv, { env, stdio: 'ignore' });
        const dt = performance.now() - t0;
        if (i < warmup) return;
        times[j].push(dt);
        if (r.status !== 0) failed[j]++;
      });
    }
    const cpu = commands.map(() => []);
    log(`look-up: ${runs} more runs of each for their CPU time`);
    for (let i = 0; i < runs; i++) {
      for (const [j, c] of commands.entries()) {
        const r = await measureNode(c.argv, { env, cwd: tmp, tmp });
        if (r.cpuMs !== undefined && !Number.isNaN(r.cpuMs)) cpu[j].push(r.cpuMs);
      }
    }
    const base = median(times[0]);
    const baseCpu = median(cpu[0]);
    return {
      runs,
      warmup,
      form: form.join(' '),
      results: commands.map((c, j) => ({
        name: c.name,
        medianMs: median(times[j]),
        minMs: Math.min(...times[j]),
        runs: times[j].length,
        failedRuns: failed[j],
        ratio: median(times[j]) / base,
        cpuMs: median(cpu[j]),
        cpuRatio: median(cpu[j]) / baseCpu,
      })),
    };
  } finally {
    await sb.stop();
  }
}
