#!/usr/bin/env node
// `npm run bench`: every figure of issue 7 in one run, side by side, on this machine — start-up vs a
// bare node, the sandbox's start time and memory, bulk refunds vs the ceiling and vs one request per
// order, peak memory, and how cost grows with the file. Prints a table (and its Markdown for
// docs/performance.md) and writes bench/results.json.
//
// Sizes come from the environment so that a quick run is one variable away:
//   BENCH_ROWS=100000         bulk refund rows (the growth and dry-run sizes follow it when set)
//   BENCH_DRYRUN_ROWS=1000000 rows of the --dry-run memory test
//   BENCH_GROWTH=1000,10000,100000
//   BENCH_SANDBOX_SEED=100000 BENCH_REPEAT=5 BENCH_CONCURRENCY=4 BENCH_STARTUP_RUNS=100
//   BENCH_PEER_SAMPLE=2000 BENCH_SHELL_SAMPLE=200
//   BENCH_LOOKUP_RUNS=30 (the one-order look-up of issue 15, bench/lookup.js)
//   BENCH_LISTEN_EVENTS=20000 BENCH_LISTEN_RATE=1000 BENCH_LISTEN_CONNECTIONS=8 (payops listen, bench/listen.js)
//   BENCH_ONLY=startup,lookup,sandbox,bulk,peer,memory,growth,xlsx,xlsxdry,listen,chain   BENCH_KEEP=1 (keep the temp dir)
//   BENCH_XLSX_ROWS=100000 rows of the .xlsx refund file (dry run and against the sandbox)
//   BENCH_XLSX_DRY_ROWS=100000 BENCH_XLSX_DRY_RUNS=7 BENCH_XLSX_BASE=<built checkout> (issue 26's
//     .xlsx dry run without a gateway, interleaved with the CSV's and the base's; bench/xlsx-dry.js)
//   BENCH_CHAIN_ROWS=100000 BENCH_CHAIN_RUNS=5 BENCH_CHAIN_BASE=<built checkout before the chain> (issue 28's
//     journal hash chain: its cost on the refund run, alone and against the base; bench/chain.js)
//   BENCH_NO_PERF=1 (skip `perf stat`, which counts each bulk side's instructions where it works)
// Every server it starts it stops; all traffic is to 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chainCost, chainTable } from './chain.js';
import { refundFileFromExport, syntheticRefundFile } from './lib/data.js';
import { cleanEnv, hasGnuTime, measureNode, stopAll } from './lib/proc.js';
import { BIN, exportOrdersCsv, ledger, startSandbox } from './lib/sandbox.js';
import { selfCheck } from './lib/sign.js';
import { int, mb, mean, median, ms, pct, ratio, renderMarkdown, renderTable, stddev } from './lib/stats.js';
import { csvToXlsx } from './lib/xlsx.js';
import { listenBench, listenTable } from './listen.js';
import { LOOKUP_TARGETS, lookup } from './lookup.js';
import { xlsxDryRun, xlsxDryTable } from './xlsx-dry.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CEILING = join(ROOT, 'bench/ceiling.js');
const PER_ORDER = join(ROOT, 'bench/per-order.js');
const PER_ORDER_SH = join(ROOT, 'bench/per-order.sh');
const RESULTS = join(ROOT, 'bench/results.json');
const CREDS = {
  PAYOPS_MERCHANT_ID: '800001',
  PAYOPS_ACCOUNT_ID: '800001001',
  PAYOPS_SIGN_KEY: 'sandbox-sign-key',
};

const envInt = (name, fallback) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${v}`);
  return n;
};
const rowsSet = process.env.BENCH_ROWS !== undefined;
const ROWS = envInt('BENCH_ROWS', 100_000);
const CFG = {
  rows: ROWS,
  dryRunRows: envInt('BENCH_DRYRUN_ROWS', rowsSet ? ROWS * 10 : 1_000_000),
  growth: (process.env.BENCH_GROWTH ?? (rowsSet ? `${ROWS / 100},${ROWS / 10},${ROWS}` : '1000,10000,100000'))
    .split(',')
    .map((s) => Math.round(Number(s)))
    .filter((n) => n > 0),
  sandboxSeed: envInt('BENCH_SANDBOX_SEED', 100_000),
  sandboxStarts: envInt('BENCH_SANDBOX_STARTS', 3),
  repeat: Math.max(1, envInt('BENCH_REPEAT', 5)),
  concurrency: Math.max(1, envInt('BENCH_CONCURRENCY', 4)),
  startupRuns: Math.max(3, envInt('BENCH_STARTUP_RUNS', 100)),
  startupWarmup: envInt('BENCH_STARTUP_WARMUP', 10),
  lookupRuns: Math.max(3, envInt('BENCH_LOOKUP_RUNS', 30)),
  peerSample: envInt('BENCH_PEER_SAMPLE', 2000),
  shellSample: envInt('BENCH_SHELL_SAMPLE', 200),
  only: process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined,
};
const wanted = (section) => !CFG.only || CFG.only.has(section);
const log = (msg) => process.stderr.write(`· ${msg}\n`);

const tmp = mkdtempSync(join(tmpdir(), 'payops-bench-'));
let homeCounter = 0;
const freshHome = () => {
  const dir = join(tmp, `home-${++homeCounter}`);
  mkdirSync(dir);
  return dir;
};

process.on('SIGINT', () => {
  stopAll();
  process.exitCode = 130;
});

let hyperfine;
/** hyperfine's version line, or null when absent (BENCH_NO_HYPERFINE=1 forces the own loop). */
function hyperfineVersion() {
  if (hyperfine === undefined) {
    const r = process.env.BENCH_NO_HYPERFINE
      ? undefined
      : spawnSync('hyperfine', ['--version'], { encoding: 'utf8' });
    hyperfine = r?.status === 0 ? r.stdout.trim() : null;
  }
  return hyperfine;
}

function machine() {
  const cpuinfo = (() => {
    try {
      return readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      return '';
    }
  })();
  const hf = hyperfineVersion();
  return {
    nproc: availableParallelism(),
    cpu: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown',
    memGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    hyperfine: hf,
    gnuTime: hasGnuTime(),
    loadavgAtStart: loadavg().map((x) => Number(x.toFixed(2))),
  };
}

// ---------------------------------------------------------------------------------------------
// Start-up: hyperfine when installed (well-kept, warm-up, outlier detection), else our own loop.

async function startup() {
  const commands = [
    { name: 'node -e 0', argv: ['-e', '0'] },
    { name: 'payops --version', argv: [BIN, '--version'] },
    { name: 'payops --help', argv: [BIN, '--help'] },
  ];
  const env = cleanEnv();
  let tool;
  let results;
  const hf = hyperfineVersion();
  if (hf) {
    tool = hf;
    const json = join(tmp, 'startup.json');
    const args = ['-N', '-i', '--warmup', String(CFG.startupWarmup), '--runs', String(CFG.startupRuns)];
    args.push('--export-json', json, '--style', 'none');
    for (const c of commands) args.push('-n', c.name, [process.execPath, ...c.argv].join(' '));
    const run = spawnSync('hyperfine', args, { env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`hyperfine failed: ${run.stderr}`);
    const out = JSON.parse(readFileSync(json, 'utf8'));
    results = out.results.map((r) => ({
      name: r.command,
      meanMs: r.mean * 1000,
      stddevMs: r.stddev * 1000,
      medianMs: r.median * 1000,
      runs: r.times.length,
      failedRuns: (r.exit_codes ?? []).filter((c) => c !== 0).length,
    }));
  } else {
    tool = 'spawnSync loop (hyperfine not installed)';
    const times = commands.map(() => []);
    const failed = commands.map(() => 0);
    for (let i = 0; i < CFG.startupWarmup + CFG.startupRuns; i++) {
      // Interleaved, so drift in machine load hits every command alike.
      commands.forEach((c, j) => {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, c.argv, { env, stdio: 'ignore' });
        const dt = performance.now() - t0;
        if (i >= CFG.startupWarmup) {
          times[j].push(dt);
          if (r.status !== 0) failed[j]++;
        }
      });
    }
    results = commands.map((c, j) => ({
      name: c.name,
      meanMs: mean(times[j]),
      stddevMs: stddev(times[j]),
      medianMs: median(times[j]),
      runs: times[j].length,
      failedRuns: failed[j],
    }));
  }
  const base = results[0].meanMs;
  for (const r of results) r.ratio = r.meanMs / base;
  return { tool, runs: CFG.startupRuns, warmup: CFG.startupWarmup, results };
}

// ---------------------------------------------------------------------------------------------
// Sandbox start time and memory.

async function sandboxStart() {
  const starts = [];
  for (let i = 0; i < CFG.sandboxStarts; i++) {
    log(`sandbox --seed ${CFG.sandboxSeed}: start ${i + 1}/${CFG.sandboxStarts}`);
    const sb = await startSandbox({ seed: CFG.sandboxSeed });
    const s = sb.stats();
    await sb.stop();
    starts.push({ urlMs: sb.urlMs, readyMs: sb.readyMs, hwmKb: s?.hwmKb, rssKb: s?.rssKb });
  }
  return {
    seed: CFG.sandboxSeed,
    starts,
    readyMs: median(starts.map((s) => s.readyMs)),
    hwmKb: Math.max(...starts.map((s) => s.hwmKb ?? 0)),
  };
}

// ---------------------------------------------------------------------------------------------
// Bulk refunds: payops vs the ceiling, each against a fresh sandbox seeded with the same orders.

async function preparedSandbox(rows, label) {
  const sb = await startSandbox({ seed: rows });
  const file = join(tmp, `refunds-${label}.csv`);
  const written = await refundFileFromExport(await exportOrdersCsv(sb.url), file, { limit: rows });
  if (written !== rows) {
    await sb.stop();
    throw new Error(`sandbox --seed ${rows} exported ${written} captured orders`);
  }
  return { sb, file };
}

async function runContender(kind, rows, label) {
  const { sb, file } = await preparedSandbox(rows, label);
  // payops-tmpfs: the same run with its journal on tmpfs, where fsync costs nothing — not a
  // supported set-up, a diagnostic that shows how much of the wall time is waiting for the disk.
  // That home is in memory, outside `tmp`: removed as soon as the run is over.
  const tmpfs = kind === 'payops-tmpfs';
  const home = tmpfs ? mkdtempSync('/dev/shm/payops-bench-') : freshHome();
  try {
    const before = sb.stats();
    const env = cleanEnv({ ...CREDS, PAYOPS_BASE_URL: sb.url, PAYOPS_HOME: home });
    const args =
      kind === 'ceiling'
        ? [CEILING, '--file', file, '--base-url', sb.url, '--concurrency', String(CFG.concurrency)]
        : [
            BIN,
            'refund',
            '--file',
            file,
            '--yes',
            '--out',
            join(tmp, `results-${label}.csv`),
            '--concurrency',
            String(CFG.concurrency),
          ];
    const r = await measureNode(args, { env, cwd: tmp, tmp, countInstructions: true });
    const after = sb.stats();
    const entries = (await ledger(sb.url)).filter((e) => e.kind === 'refund').length;
    if (r.code !== 0) throw new Error(`${kind} exited ${r.code}: ${r.stderr.slice(-800)}`);
    if (entries !== rows) throw new Error(`${kind}: ledger has ${entries} refunds for ${rows} rows`);
    return {
      kind,
      rows,
      ms: r.ms,
      ordersPerSec: rows / (r.ms / 1000),
      maxRssKb: r.maxRssKb,
      cpuMs: r.cpuMs,
      cpuUsPerRow: (r.cpuMs * 1000) / rows,
      instructionsPerRow: r.instructions === undefined ? undefined : r.instructions / rows,
      sandboxCpuMs: after && before ? after.cpuMs - before.cpuMs : undefined,
      sandboxHwmKb: after?.hwmKb,
      ledgerRefunds: entries,
    };
  } finally {
    await sb.stop();
    if (tmpfs) rmSync(home, { recursive: true, force: true });
  }
}

function summarise(runs) {
  const best = (key) => median(runs.map((r) => r[key]));
  return {
    runs,
    ordersPerSec: best('ordersPerSec'),
    ms: best('ms'),
    maxRssKb: Math.max(...runs.map((r) => r.maxRssKb ?? 0)),
    maxRssKbMedian: best('maxRssKb'),
    cpuUsPerRow: best('cpuUsPerRow'),
    instructionsPerRow: runs.every((r) => r.instructionsPerRow !== undefined)
      ? best('instructionsPerRow')
      : undefined,
    sandboxCpuMs: best('sandboxCpuMs'),
    sandboxHwmKb: Math.max(...runs.map((r) => r.sandboxHwmKb ?? 0)),
  };
}

async function bulk() {
  const tmpfs = process.env.BENCH_TMPFS !== '0' && existsSync('/dev/shm');
  const kinds = tmpfs ? ['ceiling', 'payops', 'payops-tmpfs'] : ['ceiling', 'payops'];
  const runs = Object.fromEntries(kinds.map((k) => [k, []]));
  const errors = {};
  for (let i = 0; i < CFG.repeat; i++) {
    // Alternate who goes first, so a warming or cooling machine favours neither.
    const order = i % 2 === 0 ? kinds : [...kinds].reverse();
    for (const kind of order) {
      if (errors[kind]) continue;
      log(`bulk ${int(CFG.rows)} rows: ${kind} run ${i + 1}/${CFG.repeat}`);
      try {
        runs[kind].push(await runContender(kind, CFG.rows, `${kind}-${i}`));
      } catch (e) {
        // One side failing must not hide the other side's figures.
        log(`bulk ${kind} failed: ${e.message}`);
        errors[kind] = e.message.split('\n')[0];
      }
    }
  }
  const side = (kind) => (errors[kind] ? { error: errors[kind] } : summarise(runs[kind]));
  const c = side('ceiling');
  const p = side('payops');
  const t = tmpfs ? side('payops-tmpfs') : undefined;
  // Each repetition runs both back to back: their ratio is what load drift during the bench spoils
  // least, so the verdict is the median of those; the ratio of the two medians is shown beside it.
  const pairedRatios =
    c.error || p.error ? [] : runs.payops.map((r, i) => r.ordersPerSec / runs.ceiling[i].ordersPerSec);
  const ratio = pairedRatios.length > 0 ? median(pairedRatios) : undefined;
  const ratioOfMedians = c.error || p.error ? undefined : p.ordersPerSec / c.ordersPerSec;
  return {
    rows: CFG.rows,
    concurrency: CFG.concurrency,
    ceiling: c,
    payops: p,
    payopsTmpfs: t,
    ratio,
    ratioOfMedians,
    pairedRatios,
  };
}

// ---------------------------------------------------------------------------------------------
// One request per order, sequentially: node+undici (best case) and bash+openssl+curl (as written).

async function peer() {
  const total = CFG.peerSample + CFG.shellSample;
  const sb = await startSandbox({ seed: total });
  try {
    const all = join(tmp, 'peer-all.csv');
    await refundFileFromExport(await exportOrdersCsv(sb.url), all, { limit: total });
    const lines = readFileSync(all, 'utf8').split('\n');
    const nodeFile = join(tmp, 'peer-node.csv');
    const shFile = join(tmp, 'peer-sh.csv');
    writeFileSync(nodeFile, [lines[0], ...lines.slice(1, 1 + CFG.peerSample), ''].join('\n'));
    writeFileSync(shFile, [lines[0], ...lines.slice(1 + CFG.peerSample, 1 + total), ''].join('\n'));
    const env = cleanEnv({ ...CREDS, PAYOPS_BASE_URL: sb.url });
    log(`one request per order (node): ${int(CFG.peerSample)} orders`);
    const r = await measureNode([PER_ORDER, '--file', nodeFile, '--base-url', sb.url], { env, tmp });
    if (r.code !== 0) throw new Error(`per-order.js exited ${r.code}: ${r.stderr.slice(-500)}`);
    const nodePeer = JSON.parse(r.stdout);
    const out = { node: { ...nodePeer, requestsPerSec: nodePeer.requests / (nodePeer.ms / 1000) } };
    const haveTools = ['curl', 'openssl', 'bash'].every(
      (t) => spawnSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }).status === 0,
    );
    if (CFG.shellSample > 0 && haveTools) {
      log(`one request per order (bash+openssl+curl): ${int(CFG.shellSample)} orders`);
      const sh = await new Promise((resolve, reject) => {
        const child = spawn('bash', [PER_ORDER_SH, shFile, sb.url, String(CFG.shellSample)], { env });
        let text = '';
        child.stdout.on('data', (b) => {
          text += b;
        });
        child.stderr.resume();
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`per-order.sh ${code}`)),
        );
      });
      out.shell = { ...sh, requestsPerSec: sh.requests / (sh.ms / 1000) };
    } else {
      out.shell = { skipped: haveTools ? 'BENCH_SHELL_SAMPLE=0' : 'curl/openssl/bash not installed' };
    }
    return out;
  } finally {
    await sb.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Memory of a large --dry-run (validated, nothing sent).

async function dryRun() {
  const file = join(tmp, 'dry-run.csv');
  log(`generating ${int(CFG.dryRunRows)} rows for --dry-run`);
  await syntheticRefundFile(file, CFG.dryRunRows);
  log(`payops refund --dry-run: ${int(CFG.dryRunRows)} rows`);
  // Nothing listens on port 9 (discard): a dry run must not need the gateway at all.
  const env = cleanEnv({ ...CREDS, PAYOPS_BASE_URL: 'http://127.0.0.1:9', PAYOPS_HOME: freshHome() });
  const r = await measureNode([BIN, 'refund', '--file', file, '--dry-run'], { env, cwd: tmp, tmp });
  rmSync(file, { force: true });
  if (r.code !== 0) throw new Error(`--dry-run exited ${r.code}: ${r.stderr.slice(-800)}`);
  return {
    rows: CFG.dryRunRows,
    ms: r.ms,
    rowsPerSec: CFG.dryRunRows / (r.ms / 1000),
    maxRssKb: r.maxRssKb,
    cpuMs: r.cpuMs,
  };
}

// ---------------------------------------------------------------------------------------------
// .xlsx: the same refund file as a workbook (issue 14): its dry run (no gateway) and its run
// against the sandbox, with results written as .xlsx, beside the CSV's dry run of the same rows.

async function xlsx() {
  const rows = envInt('BENCH_XLSX_ROWS', 100_000);
  const { sb, file } = await preparedSandbox(rows, 'xlsx');
  try {
    const book = join(tmp, 'refunds.xlsx');
    csvToXlsx(file, book);
    const sizes = { csvBytes: readFileSync(file).length, xlsxBytes: readFileSync(book).length };
    // The dry runs ask the sandbox what is already refunded, as a user's dry run asks the gateway.
    const dryEnv = cleanEnv({ ...CREDS, PAYOPS_BASE_URL: sb.url, PAYOPS_HOME: freshHome() });
    const dry = async (f) => {
      log(`payops refund --dry-run: ${int(rows)} rows of ${f}`);
      const r = await measureNode([BIN, 'refund', '--file', f, '--dry-run'], { env: dryEnv, cwd: tmp, tmp });
      if (r.code !== 0) throw new Error(`--dry-run ${f} exited ${r.code}: ${r.stderr.slice(-800)}`);
      return { ms: r.ms, maxRssKb: r.maxRssKb, cpuMs: r.cpuMs };
    };
    const csvDry = await dry(file);
    const xlsxDry = await dry(book);
    log(`payops refund: ${int(rows)} rows of refunds.xlsx against the sandbox, --out results.xlsx`);
    const env = cleanEnv({ ...CREDS, PAYOPS_BASE_URL: sb.url, PAYOPS_HOME: freshHome() });
    const args = [BIN, 'refund', '--file', book, '--yes', '--out', join(tmp, 'results.xlsx')];
    const r = await measureNode([...args, '--concurrency', String(CFG.concurrency)], { env, cwd: tmp, tmp });
    if (r.code !== 0) throw new Error(`xlsx run exited ${r.code}: ${r.stderr.slice(-800)}`);
    const entries = (await ledger(sb.url)).filter((e) => e.kind === 'refund').length;
    if (entries !== rows) throw new Error(`xlsx run: ledger has ${entries} refunds for ${rows} rows`);
    return {
      rows,
      ...sizes,
      csvDryRun: csvDry,
      xlsxDryRun: xlsxDry,
      xlsxRun: { ms: r.ms, maxRssKb: r.maxRssKb, cpuMs: r.cpuMs, ledgerRefunds: entries },
    };
  } finally {
    await sb.stop();
  }
}

function xlsxTable(x) {
  const head = ['.xlsx refund file', 'rows', 'file', 'wall', 'CPU', 'peak RSS'];
  const line = (name, size, m) => [
    name,
    int(x.rows),
    `${(size / 1e6).toFixed(1)} MB`,
    ms(m.ms),
    ms(m.cpuMs),
    mb(m.maxRssKb),
  ];
  return [
    head,
    line('CSV --dry-run (reference)', x.csvBytes, x.csvDryRun),
    line('.xlsx --dry-run', x.xlsxBytes, x.xlsxDryRun),
    line('.xlsx run, --out results.xlsx', x.xlsxBytes, x.xlsxRun),
  ];
}

// ---------------------------------------------------------------------------------------------
// Growth: the same run at several sizes; per-row cost should be flat.

async function growth(bulkResult) {
  const out = [];
  for (const n of CFG.growth) {
    if (bulkResult?.payops && !bulkResult.payops.error && n === bulkResult.rows) {
      const p = bulkResult.payops;
      out.push({
        rows: n,
        ordersPerSec: p.ordersPerSec,
        ms: p.ms,
        maxRssKb: p.maxRssKb,
        cpuUsPerRow: p.cpuUsPerRow,
        from: 'bulk',
      });
      continue;
    }
    // Short runs are noisy: take the median of three below 10k rows.
    const reps = n < 10_000 ? 3 : 1;
    const runs = [];
    for (let i = 0; i < reps; i++) {
      log(`growth ${int(n)} rows: run ${i + 1}/${reps}`);
      runs.push(await runContender('payops', n, `growth-${n}-${i}`));
    }
    const s = summarise(runs);
    out.push({
      rows: n,
      ordersPerSec: s.ordersPerSec,
      ms: s.ms,
      maxRssKb: s.maxRssKb,
      cpuUsPerRow: s.cpuUsPerRow,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

function verdict(value, ok) {
  return value === undefined || Number.isNaN(value) ? 'n/a' : ok ? 'ok' : 'MISSED';
}

function tables(r) {
  const rows = [['measure', 'payops', 'reference', 'ratio', 'target', 'verdict']];
  const section = (title) => rows.push([`**${title}**`, '', '', '', '', '']);
  const err = (what, e) => rows.push([what, `not measured: ${e}`, '', '', '', '']);
  const targets = [];
  const target = (name, value, text, ok) =>
    targets.push({ name, value, target: text, verdict: verdict(value, ok) });

  if (r.startup?.error) err('start-up', r.startup.error);
  else if (r.startup) {
    section(`start-up (${r.startup.tool}, ${r.startup.runs} runs, mean ± sd)`);
    const [base, version, help] = r.startup.results;
    const cell = (x) =>
      `${ms(x.meanMs)} ± ${x.stddevMs.toFixed(1)}${x.failedRuns ? ` (${x.failedRuns} runs exited non-zero)` : ''}`;
    const vOk = version.ratio <= 1.5;
    const hOk = help.ratio <= 2;
    rows.push([
      'payops --version vs node -e 0',
      cell(version),
      cell(base),
      ratio(version.ratio),
      '≤ 1.5×',
      verdict(version.ratio, vOk),
    ]);
    rows.push([
      'payops --help vs node -e 0',
      cell(help),
      cell(base),
      ratio(help.ratio),
      '≤ 2×',
      verdict(help.ratio, hOk),
    ]);
    target('startup.version', version.ratio, '≤ 1.5×', vOk);
    target('startup.help', help.ratio, '≤ 2×', hOk);
  }
  if (r.lookup?.error) err('look-up', r.lookup.error);
  else if (r.lookup) {
    section(
      `one-order look-up, sandbox in another process (${r.lookup.runs} runs each, interleaved, median)`,
    );
    const [base, help, query] = r.lookup.results;
    const cell = (x) => `${ms(x.medianMs)}${x.failedRuns ? ` (${x.failedRuns} runs exited non-zero)` : ''}`;
    for (const [key, x] of [
      ['query', query],
      ['help', help],
    ]) {
      const ok = x.ratio <= LOOKUP_TARGETS[key];
      rows.push([
        `${x.name} vs node -e 0`,
        cell(x),
        cell(base),
        ratio(x.ratio),
        `≤ ${LOOKUP_TARGETS[key]}×`,
        verdict(x.ratio, ok),
      ]);
      target(`lookup.${key}`, x.ratio, `≤ ${LOOKUP_TARGETS[key]}×`, ok);
    }
    for (const x of [query, help]) {
      rows.push([
        `${x.name}: CPU time (user + system, median)`,
        ms(x.cpuMs),
        ms(base.cpuMs),
        ratio(x.cpuRatio),
        '',
        '',
      ]);
    }
  }
  if (r.sandbox?.error) err('sandbox', r.sandbox.error);
  else if (r.sandbox) {
    section(
      `sandbox --seed ${int(r.sandbox.seed)} (own process, median of ${r.sandbox.starts.length} starts)`,
    );
    const startOk = r.sandbox.readyMs < 3000;
    rows.push([
      'start until health answers',
      ms(r.sandbox.readyMs),
      '',
      '',
      '< 3 s',
      verdict(r.sandbox.readyMs, startOk),
    ]);
    const loadHwm = r.bulk?.payops?.sandboxHwmKb;
    const hwm = Math.max(r.sandbox.hwmKb, r.bulk?.rows === r.sandbox.seed ? (loadHwm ?? 0) : 0);
    const memOk = hwm < 300 * 1024;
    rows.push([
      'peak RSS after start',
      mb(r.sandbox.hwmKb),
      '',
      '',
      '< 300 MB',
      verdict(r.sandbox.hwmKb, r.sandbox.hwmKb < 300 * 1024),
    ]);
    if (loadHwm && r.bulk?.rows === r.sandbox.seed) {
      rows.push([
        `peak RSS after ${int(r.bulk.rows)} refunds`,
        mb(loadHwm),
        '',
        '',
        '< 300 MB',
        verdict(loadHwm, loadHwm < 300 * 1024),
      ]);
    }
    target('sandbox.start', r.sandbox.readyMs, '< 3000 ms', startOk);
    target('sandbox.rss', hwm, '< 300 MB', memOk);
  }
  if (r.bulk?.error) err('bulk', r.bulk.error);
  else if (r.bulk) {
    const b = r.bulk;
    const c = b.ceiling;
    const p = b.payops;
    const cell = (side, f) => (side.error ? 'n/a' : f(side));
    section(
      `bulk refund, ${int(b.rows)} orders, concurrency ${b.concurrency}, chunks of 50 (median of ${CFG.repeat})`,
    );
    if (p.error) rows.push(['payops refund', `not measured: ${p.error}`, '', '', '', '']);
    if (c.error) rows.push(['ceiling', `not measured: ${c.error}`, '', '', '', '']);
    // Issue 12: payops's run includes its look-ups at the gateway before the plan; the ceiling's
    // does not. 70 % was the target before those look-ups (issue 7).
    const ok = b.ratio >= 0.8;
    rows.push([
      'orders/s: payops vs ceiling (bench/ceiling.js); ratio: median of the repetitions',
      cell(p, (x) => int(x.ordersPerSec)),
      cell(c, (x) => int(x.ordersPerSec)),
      pct(b.ratio),
      '≥ 80 %',
      verdict(b.ratio, ok),
    ]);
    const t = b.payopsTmpfs;
    if (t) {
      rows.push([
        'orders/s: payops with its journal on tmpfs (diagnostic: no fsync wait)',
        cell(t, (x) => int(x.ordersPerSec)),
        cell(c, (x) => int(x.ordersPerSec)),
        t.error || c.error ? 'n/a' : pct(t.ordersPerSec / c.ordersPerSec),
        '',
        '',
      ]);
    }
    if (b.pairedRatios?.length > 1) {
      rows.push([
        'ratio in each repetition (payops and ceiling back to back); ratio of the medians',
        '',
        '',
        `${b.pairedRatios.map(pct).join(', ')}; ${pct(b.ratioOfMedians)}`,
        '',
        '',
      ]);
    }
    rows.push(['wall time', cell(p, (x) => ms(x.ms)), cell(c, (x) => ms(x.ms)), '', '', '']);
    const us = (x) => `${x.cpuUsPerRow.toFixed(1)} µs`;
    rows.push(['client CPU per order', cell(p, us), cell(c, us), '', '', '']);
    if (p.instructionsPerRow !== undefined && c.instructionsPerRow !== undefined) {
      // Load on a shared machine moves times by ±20 %, instruction counts by about 1 %.
      const k = (x) => `${(x.instructionsPerRow / 1000).toFixed(1)} k`;
      rows.push([
        'client instructions per order (user space, perf stat); ratio: ceiling / payops',
        k(p),
        k(c),
        pct(c.instructionsPerRow / p.instructionsPerRow),
        '',
        '',
      ]);
    }
    rows.push([
      'sandbox CPU for the run',
      cell(p, (x) => ms(x.sandboxCpuMs)),
      cell(c, (x) => ms(x.sandboxCpuMs)),
      '',
      '',
      '',
    ]);
    rows.push([
      'client peak RSS',
      cell(p, (x) => mb(x.maxRssKb)),
      cell(c, (x) => mb(x.maxRssKb)),
      '',
      '',
      '',
    ]);
    target('bulk.ratio', b.ratio, '≥ 80 %', ok);
  }
  if (r.peer?.error) err('one request per order', r.peer.error);
  else if (r.peer) {
    const p = r.bulk?.payops?.ordersPerSec;
    const c = r.bulk?.ceiling?.ordersPerSec;
    section('one request per order, sequential (a sample, extrapolated)');
    const peerRow = (label, x) => {
      rows.push([
        label,
        p ? int(p) : 'n/a',
        `${int(x.requestsPerSec)} req/s`,
        p ? `payops ${ratio(p / x.requestsPerSec)}` : c ? `ceiling ${ratio(c / x.requestsPerSec)}` : '',
        '',
        '',
      ]);
    };
    peerRow(`node+undici keep-alive (${int(r.peer.node.requests)} orders)`, r.peer.node);
    if (r.peer.shell?.requests)
      peerRow(`bash+openssl+curl (${int(r.peer.shell.requests)} orders)`, r.peer.shell);
  }
  if (r.memory?.error) err('memory', r.memory.error);
  else if (r.memory || r.bulk?.payops?.maxRssKb) {
    section('memory (peak RSS of the whole payops process)');
    if (r.memory) {
      const ok = r.memory.maxRssKb < 150 * 1024;
      rows.push([
        `refund --dry-run, ${int(r.memory.rows)} rows (${int(r.memory.rowsPerSec)} rows/s)`,
        mb(r.memory.maxRssKb),
        '',
        '',
        '< 150 MB',
        verdict(r.memory.maxRssKb, ok),
      ]);
      target('memory.dryRun', r.memory.maxRssKb, '< 150 MB', ok);
    }
    const kb = r.bulk?.payops?.maxRssKb;
    if (kb) {
      // The worst run decides; the median shows how much of that is GC timing from run to run.
      const runsN = r.bulk.payops.runs.length;
      const note = runsN > 1 ? ` (worst of ${runsN} runs; median ${mb(r.bulk.payops.maxRssKbMedian)})` : '';
      rows.push([
        `refund, ${int(r.bulk.rows)} rows`,
        `${mb(kb)}${note}`,
        '',
        '',
        '< 150 MB',
        verdict(kb, kb < 150 * 1024),
      ]);
      target('memory.bulk', kb, '< 150 MB', kb < 150 * 1024);
    }
  }
  // Marginal cost: the extra CPU and wall time per extra order from one size to the next, i.e. the
  // per-row cost without start-up; flat per row means these stay about the same.
  const growthRows = [
    [
      'rows',
      'orders/s',
      'wall time',
      'CPU per order',
      'marginal CPU per order',
      'marginal wall per order',
      'peak RSS',
    ],
  ];
  if (Array.isArray(r.growth)) {
    let prev;
    for (const g of r.growth) {
      const cpuMs = (g.cpuUsPerRow * g.rows) / 1000;
      const marginal = (a, b) => (prev ? `${(((a - b) * 1000) / (g.rows - prev.rows)).toFixed(1)} µs` : '');
      growthRows.push([
        int(g.rows),
        int(g.ordersPerSec),
        ms(g.ms),
        `${g.cpuUsPerRow.toFixed(1)} µs`,
        prev ? marginal(cpuMs, prev.cpuMs) : '',
        prev ? marginal(g.ms, prev.ms) : '',
        mb(g.maxRssKb),
      ]);
      prev = { rows: g.rows, cpuMs, ms: g.ms };
    }
  }
  return { rows, growthRows, targets };
}

async function main() {
  selfCheck();
  const started = new Date();
  const results = { date: started.toISOString(), command: 'npm run bench', config: CFG, machine: machine() };
  results.config = { ...CFG, only: CFG.only ? [...CFG.only] : undefined };
  const attempt = async (name, fn) => {
    if (!wanted(name)) return;
    try {
      results[name] = await fn();
    } catch (e) {
      log(`${name} failed: ${e.message}`);
      results[name] = { error: e.message.split('\n')[0] };
    }
  };
  await attempt('startup', startup);
  await attempt('lookup', () =>
    lookup({
      creds: CREDS,
      home: freshHome(),
      tmp,
      runs: CFG.lookupRuns,
      warmup: CFG.startupWarmup > 0 ? 3 : 0,
      log,
    }),
  );
  await attempt('sandbox', sandboxStart);
  await attempt('bulk', bulk);
  await attempt('peer', peer);
  await attempt('memory', dryRun);
  await attempt('growth', () => growth(results.bulk?.error ? undefined : results.bulk));
  await attempt('xlsx', xlsx);
  await attempt('xlsxdry', () =>
    xlsxDryRun({
      creds: CREDS,
      tmp,
      freshHome,
      rows: envInt('BENCH_XLSX_DRY_ROWS', 100_000),
      runs: Math.max(1, envInt('BENCH_XLSX_DRY_RUNS', 7)),
      base: process.env.BENCH_XLSX_BASE || undefined,
      log,
    }),
  );
  await attempt('listen', () =>
    listenBench({
      home: freshHome(),
      events: envInt('BENCH_LISTEN_EVENTS', 20_000),
      rate: envInt('BENCH_LISTEN_RATE', 1000),
      connections: Math.max(1, envInt('BENCH_LISTEN_CONNECTIONS', 8)),
      log,
    }),
  );
  await attempt('chain', () =>
    chainCost({
      creds: CREDS,
      tmp,
      freshHome,
      preparedSandbox,
      rows: envInt('BENCH_CHAIN_ROWS', CFG.rows),
      runs: Math.max(1, envInt('BENCH_CHAIN_RUNS', 5)),
      concurrency: CFG.concurrency,
      base: process.env.BENCH_CHAIN_BASE || undefined,
      log,
    }),
  );
  results.machine.loadavgAtEnd = loadavg().map((x) => Number(x.toFixed(2)));
  results.durationS = Math.round((Date.now() - started.getTime()) / 1000);

  const { rows, growthRows, targets } = tables(results);
  results.targets = targets;
  results.markdown = {
    table: renderMarkdown(rows),
    growth: growthRows.length > 1 ? renderMarkdown(growthRows) : '',
  };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  const m = results.machine;
  const head = `payops bench — ${m.nproc} cores ${m.cpu}, node ${m.node}, ${results.date}`;
  process.stdout.write(
    `\n${head}\n\n${renderTable(rows.map((r) => r.map((c) => String(c).replace(/\*\*/g, ''))))}\n`,
  );
  if (growthRows.length > 1)
    process.stdout.write(`\nhow cost grows (payops refund)\n${renderTable(growthRows)}\n`);
  const growthMd = growthRows.length > 1 ? `\n\n${renderMarkdown(growthRows)}` : '';
  const xlsxRows = results.xlsx && !results.xlsx.error ? xlsxTable(results.xlsx) : undefined;
  if (xlsxRows) process.stdout.write(`\n.xlsx (issue 14)\n${renderTable(xlsxRows)}\n`);
  const xlsxMd = xlsxRows ? `\n\n${renderMarkdown(xlsxRows)}` : '';
  const dryRows = results.xlsxdry && !results.xlsxdry.error ? xlsxDryTable(results.xlsxdry) : undefined;
  if (dryRows)
    process.stdout.write(
      `\n.xlsx dry run (issue 26)\n${renderTable(dryRows.map((r) => r.map((c) => String(c).replace(/\*\*/g, ''))))}\n`,
    );
  const dryMd = dryRows ? `\n\n${renderMarkdown(dryRows)}` : '';
  const listenRows = results.listen && !results.listen.error ? listenTable(results.listen) : undefined;
  if (listenRows) process.stdout.write(`\npayops listen (issue 29)\n${renderTable(listenRows)}\n`);
  const listenMd = listenRows ? `\n\n${renderMarkdown(listenRows)}` : '';
  const chainRows = results.chain && !results.chain.error ? chainTable(results.chain) : undefined;
  if (chainRows) process.stdout.write(`\njournal hash chain (issue 28)\n${renderTable(chainRows)}\n`);
  const chainMd = chainRows ? `\n\n${renderMarkdown(chainRows)}` : '';
  process.stdout.write(
    `\nMarkdown for docs/performance.md:\n\n${renderMarkdown(rows)}${growthMd}${xlsxMd}${dryMd}${listenMd}${chainMd}\n`,
  );
  process.stdout.write(`\nresults: ${RESULTS} (${results.durationS} s)\n`);
  const errors = [
    'startup',
    'lookup',
    'sandbox',
    'bulk',
    'peer',
    'memory',
    'growth',
    'xlsx',
    'xlsxdry',
    'listen',
    'chain',
  ].filter((k) => results[k]?.error || results[k]?.payops?.error || results[k]?.ceiling?.error);
  if (errors.length > 0) {
    process.stderr.write(`sections not measured: ${errors.join(', ')}\n`);
    process.exitCode = 1;
  }
}

try {
  await main();
} finally {
  stopAll();
  if (!process.env.BENCH_KEEP) rmSync(tmp, { recursive: true, force: true });
}
