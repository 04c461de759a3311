#!/usr/bin/env node
// Markdown tables of the last chaos campaign (the JSON summaries test/chaos writes to CHAOS_SUMMARY_DIR,
// default the temp dir),
// for docs/reliability.md:   CHAOS_SCALE=full npm run test:chaos && node bench/chaos-tables.js
// A case is summarised only after all its invariants held, hence "0" duplicate money movements.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const read = (name) => {
  try {
    return JSON.parse(readFileSync(join(process.env.CHAOS_SUMMARY_DIR ?? tmpdir(), name), 'utf8'));
  } catch {
    return undefined;
  }
};
const faults = read('payops-chaos-faults.json');
const crash = read('payops-chaos-crash.json');
const sigint = read('payops-chaos-sigint.json');
const out = [];
if (faults) {
  out.push(`Fault campaign: ${faults.rows} rows per case.\n`);
  out.push(
    '| mode | rate | first file: succeeded / failed (of which refundable, "not refunded") | exit codes of the first file\'s attempts | follow-up files until all refunded | ledger refunds (expected) | duplicate money movements | s |',
  );
  out.push('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const c of faults.cases) {
    const f = c.firstRun;
    const expected = c.rows - (f.failed - f.refundableFailed);
    out.push(
      `| ${c.mode} | ${c.rate} | ${f.succeeded} / ${f.failed} (${f.refundableFailed}) | ${c.rounds[0].attempts.join(' → ')} | ${c.rounds.length - 1} (${
        c.rounds
          .slice(1)
          .map((r) => r.rows)
          .join(', ') || '–'
      } rows) | ${c.ledgerRefunds} (${expected}) | 0 | ${c.seconds} |`,
    );
  }
}
for (const c of [crash, sigint]) {
  if (!c) continue;
  out.push(
    `\n${c.signal ?? 'SIGKILL'} campaign: ${c.rows} rows, seed ${c.seed}, refund latency ${c.latencyMs} ms.\n`,
  );
  out.push(`| # | ${c.signal ?? 'SIGKILL'} sent | exit | refunds committed by then |`);
  out.push('| --- | --- | --- | --- |');
  c.killMoments.forEach((ms, i) => {
    out.push(`| ${i + 1} | ${ms} | ${c.exitCodes[i]} | ${c.ledgerAtKill?.[i] ?? 'n/a'} |`);
  });
  out.push(
    `\nAttempts: ${c.attempts} (exit: ${c.exitCodes.join(', ')}); journal records: ${Object.entries(
      c.journalRecords ?? {},
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; ledger refunds ${c.ledgerRefunds}; ${c.seconds} s.`,
  );
}
process.stdout.write(`${out.join('\n')}\n`);
