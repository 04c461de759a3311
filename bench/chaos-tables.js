#!/usr/bin/env node
// Markdown tables of the last chaos campaign (the JSON summaries test/chaos writes to CHAOS_SUMMARY_DIR,
// default the temp dir), for docs/reliability.md:
//   CHAOS_SCALE=full CHAOS_SUMMARY_DIR=DIR npm run test:chaos; CHAOS_SUMMARY_DIR=DIR node bench/chaos-tables.js
// A fault case is summarised whether it passed or not: a failed one shows its error instead of "0"
// duplicate money movements (a passing one has checked the ledger: each refund exactly once).
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
const crashes = [
  read('payops-chaos-crash.json'),
  read('payops-chaos-sigint.json'),
  read('payops-chaos-crash-faults.json'),
];
const out = [];

const clock = (m) => (m ? `${m > 0 ? '+' : '−'}${Math.abs(m)} min` : '–');
const codes = (xs) => (xs?.length ? xs.join(' → ') : '–');
const outcomes = (o) =>
  o
    ? `${o.succeeded} / ${o.not_sent} / ${o.unknown} / ${o.failed}${o.duplicated ? ` / dup ${o.duplicated}` : ''}`
    : '–';
const failedWith = (c) =>
  `FAILED: ${c.error
    .split(/[;:]\s*last stderr/)[0]
    .replace(/\|/g, '\\|')
    .slice(0, 120)}`;

if (faults) {
  const plain = faults.cases.filter((c) => !c.doubles);
  const doubles = faults.cases.filter((c) => c.doubles);
  out.push(`Fault campaign: ${faults.rows} rows per case, CHAOS_SEED ${faults.seed}.\n`);
  out.push(
    '| mode | rate | gateway clock | rows (authorised) | commands that ended before the run began | exit codes: the run → its resumes | first run: succeeded / not sent / unknown / failed | rows proven not applied and sent again by payops (requests) | at the end: succeeded / failed | ledger refunds (expected) | duplicate money movements | s |',
  );
  out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const c of plain) {
    const end = c.final ? `${c.final.succeeded} / ${c.final.failed}` : '–';
    out.push(
      `| ${c.mode}${c.delayMs !== undefined ? ` (delay ${c.delayMs} ms)` : ''} | ${c.rate} | ${clock(c.clockMin)} | ${c.rows ?? '–'} (${c.authorised ?? '–'}) | ${c.startFailures ?? '–'} | ${codes(c.attempts)} | ${outcomes(c.firstRun)} | ${c.rowsResent ?? 0} (${c.resends ?? 0}) | ${end} | ${c.ledgerRefunds} (${c.expectedRefunds ?? '–'}) | ${c.error ? failedWith(c) : '0'} | ${c.seconds} |`,
    );
  }
  for (const c of doubles) {
    const d = c.doubles;
    out.push(
      `\ncommit_late at ${c.rate}, --settle-time ${c.settleMs} ms shorter than the commit delay ${c.delayMs} ms (exactly-once not promised; every double must be reported): ${c.rows} rows of 40 % of an order each, fault seed ${c.seed}.\n`,
    );
    out.push(
      '| exit codes: the run → its resumes (the last one after every late commit landed) | rows proven not applied and sent again by payops (requests) | ledger refunds (rows) | orders refunded twice | reported duplicated | left open for a resume | reported succeeded although refunded twice | s |',
    );
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- |');
    out.push(
      `| ${codes(c.attempts)} | ${c.rowsResent ?? 0} (${c.resends ?? 0}) | ${c.ledgerRefunds} (${c.rows}) | ${d?.doubled ?? '–'} | ${d?.reportedDuplicated ?? '–'} | ${d?.leftOpen ?? '–'} | **${d?.silent?.length ?? '–'}** | ${c.seconds} |`,
    );
    if (d?.silent?.length) out.push(`\nFirst of them: ${d.silent[0]}.`);
  }
}

for (const c of crashes) {
  if (!c) continue;
  const signal = c.signal ?? 'SIGKILL';
  out.push(
    `\n${signal} campaign${c.faults ? ` with ${c.faults} on refunds` : ''}: ${c.rows} rows, seed ${c.seed}, refund latency ${c.latencyMs} ms${c.settleMs ? `, --settle-time ${c.settleMs} ms` : ''}.\n`,
  );
  out.push(`| # | ${signal} sent | exit | refunds committed by then |`);
  out.push('| --- | --- | --- | --- |');
  // killExits: the exit of each killed process (older summaries: the n-th process's exit).
  const exits = c.killExits ?? c.exitCodes;
  c.killMoments.forEach((m, i) => {
    out.push(`| ${i + 1} | ${m} | ${exits[i]} | ${c.ledgerAtKill?.[i] ?? 'n/a'} |`);
  });
  out.push(
    `\nProcesses: ${c.attempts} (exit: ${c.exitCodes.join(', ')}); journal records: ${Object.entries(
      c.journalRecords ?? {},
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}; rows proven not applied and sent again: ${c.rowsResent ?? 0} (${c.resends ?? 0} requests); ledger refunds ${c.ledgerRefunds}; ${c.seconds} s.`,
  );
}
process.stdout.write(`${out.join('\n')}\n`);
