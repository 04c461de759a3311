// A 100,000-row .xlsx refund dry run without a gateway (issue 26): what reading a workbook costs,
// beside the CSV dry run of the same rows. A workbook of the usual refund columns from the bench's
// own writer (bench/lib/xlsx.js: ids and currencies in the shared strings, amounts as number cells);
// `payops refund --file F --dry-run` without a sign key (the gateway is not asked), so the figure is
// reading, validating and planning only. Whole processes; CPU time (user + system) and peak RSS
// from GNU time (or the process's own resource usage), which a loaded machine moves much less than
// the wall time. Sides interleaved (A B A B …) so drift in the load hits them alike; medians.
//   BENCH_XLSX_DRY_ROWS=100000 BENCH_XLSX_DRY_RUNS=7
//   BENCH_XLSX_BASE=/path/to/another/checkout (built): its bin/payops.js as one more side, with the
//     ratios of the medians against it (issue 26's target: within 10 % of the code before it).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { syntheticRefundFile } from './lib/data.js';
import { cleanEnv, measureNode } from './lib/proc.js';
import { BIN } from './lib/sandbox.js';
import { int, mb, median, ms, ratio } from './lib/stats.js';
import { csvToXlsx } from './lib/xlsx.js';

export const XLSX_DRY_TARGET = 1.1;

/** Resolves { rows, runs, xlsxBytes, csvBytes, sides: [{ name, cpuMs[], maxRssKb[], ms[] }], base? }. */
export async function xlsxDryRun({ creds, tmp, freshHome, rows = 100_000, runs = 7, base, log = () => {} }) {
  const csv = join(tmp, 'xlsx-dry.csv');
  const book = join(tmp, 'xlsx-dry.xlsx');
  log(`generating ${int(rows)} refund rows as .csv and .xlsx`);
  await syntheticRefundFile(csv, rows);
  csvToXlsx(csv, book);
  const sizes = { csvBytes: readFileSync(csv).length, xlsxBytes: readFileSync(book).length };
  const sides = [
    { name: 'CSV --dry-run (reference)', bin: BIN, file: csv },
    { name: '.xlsx --dry-run', bin: BIN, file: book },
  ];
  if (base) {
    const baseBin = join(base, 'bin/payops.js');
    if (!existsSync(join(base, 'dist')))
      throw new Error(`BENCH_XLSX_BASE ${base} has no dist/: build it first`);
    sides.push({ name: `.xlsx --dry-run, ${base}`, bin: baseBin, file: book, base: true });
  }
  for (const s of sides) Object.assign(s, { cpuMs: [], maxRssKb: [], ms: [] });
  log(`.xlsx dry run: ${runs} interleaved runs of ${sides.map((s) => s.name).join(', ')}`);
  try {
    for (let i = 0; i < runs; i++) {
      // Who goes first alternates, so neither side always follows the same one.
      for (const s of i % 2 ? [...sides].reverse() : sides) {
        // No sign key, so the plan asks the gateway nothing ("not checked at the gateway"): with one,
        // the check's signing before port 9 refuses it varies with the load (0.03-0.9 s in profiles).
        const env = cleanEnv({ ...creds, PAYOPS_BASE_URL: 'http://127.0.0.1:9', PAYOPS_HOME: freshHome() });
        delete env.PAYOPS_SIGN_KEY;
        const r = await measureNode([s.bin, 'refund', '--file', s.file, '--dry-run'], { env, cwd: tmp, tmp });
        if (r.code !== 0) throw new Error(`${s.name} exited ${r.code}: ${r.stderr.slice(-800)}`);
        // A plan of every row, or the figure is of something else (a refusal exits 2, but be sure).
        if (!`${r.stdout}${r.stderr}`.includes(`refund ${int(rows)} orders`))
          throw new Error(`${s.name}: no plan of ${int(rows)} orders: ${r.stderr.slice(-400)}`);
        s.cpuMs.push(r.cpuMs);
        s.maxRssKb.push(r.maxRssKb);
        s.ms.push(r.ms);
      }
    }
  } finally {
    rmSync(csv, { force: true });
    rmSync(book, { force: true });
  }
  const out = {
    rows,
    runs,
    ...sizes,
    sides: sides.map(({ name, cpuMs, maxRssKb, ms: wall, base: isBase }) => ({
      name,
      base: Boolean(isBase),
      cpuMs,
      maxRssKb,
      ms: wall,
      medianCpuMs: median(cpuMs),
      medianMaxRssKb: median(maxRssKb),
      medianMs: median(wall),
    })),
  };
  const [, now, before] = out.sides;
  if (before) {
    out.base = {
      path: base,
      cpuRatio: now.medianCpuMs / before.medianCpuMs,
      rssRatio: now.medianMaxRssKb / before.medianMaxRssKb,
    };
  }
  return out;
}

/** The section's table (first row the header), for the terminal and docs/performance.md. */
export function xlsxDryTable(x) {
  const head = [
    `${int(x.rows)}-row dry run, no gateway`,
    'file',
    'CPU (median)',
    'peak RSS (median)',
    'wall (median)',
  ];
  const rows = [head];
  for (const s of x.sides) {
    const size = s.name.startsWith('CSV') ? x.csvBytes : x.xlsxBytes;
    rows.push([
      `${s.name} (${x.runs} runs)`,
      `${(size / 1e6).toFixed(1)} MB`,
      ms(s.medianCpuMs),
      mb(s.medianMaxRssKb),
      ms(s.medianMs),
    ]);
  }
  const [csv, now] = x.sides;
  rows.push([
    '.xlsx / CSV',
    '',
    ratio(now.medianCpuMs / csv.medianCpuMs),
    ratio(now.medianMaxRssKb / csv.medianMaxRssKb),
    '',
  ]);
  if (x.base) {
    const ok = (r) => (r <= XLSX_DRY_TARGET ? 'ok' : `**over ${XLSX_DRY_TARGET}×**`);
    rows.push([
      `.xlsx: this build / base (target ≤ ${XLSX_DRY_TARGET}×)`,
      '',
      `${ratio(x.base.cpuRatio)} ${ok(x.base.cpuRatio)}`,
      `${ratio(x.base.rssRatio)} ${ok(x.base.rssRatio)}`,
      '',
    ]);
  }
  return rows;
}
