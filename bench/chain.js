// What the journal's hash chain costs (issue 28, target ≤ 5 % on 100,000 refunds): the bulk refund
// run of bench/run.js, each against a freshly seeded sandbox. Two figures:
//   - the chain's own work, measured on the journal each run wrote: its records serialised as the
//     writer does, with the link (a string splice and one SHA-256 per line) and without, the
//     difference as a share of the run's CPU time — all the chain adds to a run;
//   - with BENCH_CHAIN_BASE=<a built checkout of the code before the chain>, whole runs of both
//     builds interleaved (A B B A …): CPU time (user + system), instructions (perf, where it works)
//     and wall time, medians, and the median of the paired ratios (drift in the machine's load
//     spoils a pair least). The base is made with
//       git archive <commit> | tar -x -C /tmp/chain-base && ln -s $PWD/node_modules /tmp/chain-base/
//       (cd /tmp/chain-base && node scripts/build.js)
//   BENCH_CHAIN_ROWS=100000 BENCH_CHAIN_RUNS=5
// Also `payops runs verify ID --journal` on the 100,000-refund journal: a whole process, its CPU time.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, measureNode } from './lib/proc.js';
import { BIN, ledger } from './lib/sandbox.js';
import { int, median, ms, pct } from './lib/stats.js';

export const CHAIN_TARGET = 0.05;

/**
 * The chain's own work on the journal a run wrote: its records serialised as the writer does, with
 * and without the link (a copy of lifecycle/journal.ts serialise and chain.ts withPrev/lineHash:
 * the string splice and one SHA-256 per line). CPU time, medians of 7; the difference is the cost.
 */
function writerCostMs(journal) {
  const text = readFileSync(journal, 'utf8');
  const records = text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const { prev: _prev, ...rec } = JSON.parse(l);
      return rec;
    });
  const cpu = (fn) => {
    const times = [];
    for (let k = 0; k < 7; k++) {
      const t0 = process.cpuUsage();
      fn();
      const t = process.cpuUsage(t0);
      times.push((t.user + t.system) / 1000);
    }
    return median(times);
  };
  let sink = 0;
  const plain = cpu(() => {
    for (const r of records) sink += `${JSON.stringify(r)}\n`.length;
  });
  const chained = cpu(() => {
    let head = createHash('sha256').update('header').digest('hex');
    for (const r of records) {
      const line = `${JSON.stringify(r).slice(0, -1)},"prev":"${head}"}`;
      head = createHash('sha256').update(line).digest('hex');
      sink += `${line}\n`.length;
    }
  });
  if (sink < 0) throw new Error('unreachable');
  return {
    ms: Math.max(0, chained - plain),
    plainMs: plain,
    chainedMs: chained,
    lines: records.length,
    bytes: text.length,
  };
}

export async function chainCost({
  creds,
  tmp,
  freshHome,
  preparedSandbox,
  rows,
  runs,
  concurrency,
  base,
  log = () => {},
}) {
  const sides = [{ name: 'payops (chained journal)', bin: BIN, chained: true }];
  if (base) {
    if (!existsSync(join(base, 'dist')))
      throw new Error(`BENCH_CHAIN_BASE ${base} has no dist/: build it first`);
    sides.push({ name: `before the chain (${base})`, bin: join(base, 'bin/payops.js'), chained: false });
  }
  for (const s of sides) Object.assign(s, { cpuMs: [], ms: [], instructions: [] });
  const hashing = [];
  let verify;
  for (let i = 0; i < runs; i++) {
    for (const s of i % 2 ? [...sides].reverse() : sides) {
      log(`chain ${int(rows)} refunds: ${s.name}, run ${i + 1}/${runs}`);
      const { sb, file } = await preparedSandbox(rows, `chain-${i}-${s.chained ? 'a' : 'b'}`);
      const home = freshHome();
      try {
        const env = cleanEnv({ ...creds, PAYOPS_BASE_URL: sb.url, PAYOPS_HOME: home });
        const args = [s.bin, 'refund', '--file', file, '--yes', '--out', join(tmp, `chain-${i}.csv`)];
        const r = await measureNode([...args, '--concurrency', String(concurrency)], {
          env,
          cwd: tmp,
          tmp,
          countInstructions: true,
        });
        if (r.code !== 0) throw new Error(`${s.name} exited ${r.code}: ${r.stderr.slice(-800)}`);
        const refunds = (await ledger(sb.url)).filter((e) => e.kind === 'refund').length;
        if (refunds !== rows) throw new Error(`${s.name}: ledger has ${refunds} refunds for ${rows} rows`);
        s.cpuMs.push(r.cpuMs);
        s.ms.push(r.ms);
        if (r.instructions !== undefined) s.instructions.push(r.instructions);
        if (s.chained) {
          const runId = readdirSync(join(home, 'state', 'runs')).find((d) => /^\d{8}-/.test(d));
          const journal = join(home, 'state', 'runs', runId, 'journal.jsonl');
          const h = writerCostMs(journal);
          hashing.push({ ...h, share: h.ms / r.cpuMs });
          if (verify === undefined) {
            const v = await measureNode([BIN, 'runs', 'verify', runId, '--journal'], { env, cwd: tmp, tmp });
            if (v.code !== 0)
              throw new Error(`runs verify --journal exited ${v.code}: ${v.stdout}${v.stderr}`);
            verify = { cpuMs: v.cpuMs, ms: v.ms, lines: h.lines, bytes: h.bytes };
          }
        }
      } finally {
        await sb.stop();
      }
    }
  }
  const result = {
    rows,
    runs,
    hashing: {
      ms: median(hashing.map((h) => h.ms)),
      share: median(hashing.map((h) => h.share)),
      plainMs: median(hashing.map((h) => h.plainMs)),
      chainedMs: median(hashing.map((h) => h.chainedMs)),
      lines: hashing[0]?.lines,
      bytes: hashing[0]?.bytes,
    },
    verify,
    sides: sides.map((s) => ({
      name: s.name,
      cpuMs: median(s.cpuMs),
      ms: median(s.ms),
      instructions: s.instructions.length === s.cpuMs.length ? median(s.instructions) : undefined,
      all: { cpuMs: s.cpuMs, ms: s.ms, instructions: s.instructions },
    })),
  };
  if (base) {
    const [a, b] = sides;
    const paired = (key) =>
      a[key].length === b[key].length && a[key].length > 0
        ? median(a[key].map((x, k) => x / b[key][k]))
        : undefined;
    result.vsBase = { cpu: paired('cpuMs'), wall: paired('ms'), instructions: paired('instructions') };
  }
  return result;
}

/** Rows of the printed and Markdown table. */
export function chainTable(r) {
  const out = [['measure', 'value', 'target', 'verdict']];
  const h = r.hashing;
  out.push([
    `the chain's own work: the run's ${int(h.lines)} journal lines (${(h.bytes / 1e6).toFixed(1)} MB) serialised with the link vs without (${ms(h.chainedMs)} vs ${ms(h.plainMs)}), share of the run's CPU`,
    `${ms(h.ms)} = ${pct(h.share)}`,
    `≤ ${pct(CHAIN_TARGET)}`,
    h.share <= CHAIN_TARGET ? 'ok' : 'MISSED',
  ]);
  for (const s of r.sides) {
    out.push([
      `${int(r.rows)} refunds, ${s.name}: CPU / wall${s.instructions ? ' / instructions' : ''} (medians of ${r.runs})`,
      `${ms(s.cpuMs)} / ${ms(s.ms)}${s.instructions ? ` / ${(s.instructions / 1e9).toFixed(2)} G` : ''}`,
      '',
      '',
    ]);
  }
  if (r.vsBase) {
    const { cpu, wall, instructions } = r.vsBase;
    const over = (x) => (x === undefined ? 'n/a' : `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)} %`);
    out.push([
      'chained vs before the chain, median of paired ratios: CPU / wall / instructions',
      `${over(cpu)} / ${over(wall)} / ${over(instructions)}`,
      `≤ +${pct(CHAIN_TARGET)}`,
      cpu !== undefined && cpu - 1 <= CHAIN_TARGET ? 'ok' : 'MISSED',
    ]);
  }
  if (r.verify) {
    out.push([
      `payops runs verify ID --journal on that journal (whole process): CPU / wall`,
      `${ms(r.verify.cpuMs)} / ${ms(r.verify.ms)}`,
      '',
      '',
    ]);
  }
  return out;
}
