// The refund file every campaign uses, the run-and-resume loop, and the checks made at the end: the
// ledger (what the gateway says moved) against the results file (what payops says happened).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import {
  cents,
  formatCents,
  type LedgerEntry,
  payopsEnv,
  type RunResult,
  readCsv,
  runPayops,
  type TestSandbox,
  writeCsv,
} from './support.js';

export const REFUND_HEADER = [
  'transaction_id',
  'order_no',
  'currency',
  'amount',
  'refund_amount',
  'refund_reason',
];

export interface PlannedRow {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  refund_amount: string;
  refund_reason: string;
  /** The order can be refunded (captured); authorised ones must end `failed` (E2003). */
  refundable: boolean;
}

export interface FileShape {
  /** Share of rows for authorised orders, which the gateway refuses (E2003); default 0.05, 0 for none. */
  authorisedShare?: number;
  /** Share of captured orders refunded in two partial rows; default 0.05. */
  splitShare?: number;
  /**
   * Share of each other order's amount its row refunds; default 1 (in full). Below one half, a
   * request the gateway applies twice is not stopped by the order's balance: the double lands.
   */
  refundShare?: number;
}

/**
 * Orders in the sandbox and a refund file for them: `rows` rows in all, by default one in twenty
 * for an authorised order (must fail), and one in twenty captured orders refunded in two partial rows.
 */
export async function prepareRefundFile(
  sandbox: TestSandbox,
  dir: string,
  rows: number,
  opts: FileShape = {},
): Promise<{ file: string; planned: PlannedRow[] }> {
  const share = (s: number) => (s > 0 ? Math.max(1, Math.floor(rows * s)) : 0);
  const nAuth = share(opts.authorisedShare ?? 0.05);
  const nSplit = share(opts.splitShare ?? 0.05);
  const refundShare = opts.refundShare ?? 1;
  const captured = await sandbox.createOrders(rows - nAuth - nSplit, '3000');
  const authorised = nAuth > 0 ? await sandbox.createOrders(nAuth, '2000') : [];
  const planned: PlannedRow[] = [];
  const base = (o: (typeof captured)[number]) => ({
    transaction_id: o.transaction_id,
    order_no: o.order_no,
    currency: o.currency,
    amount: o.amount,
  });
  const partOf = (amount: string) => {
    if (refundShare >= 1) return amount;
    const c = cents(amount);
    const part = (c * BigInt(Math.round(refundShare * 1000))) / 1000n;
    return formatCents(part > 0n ? part : 1n);
  };
  let a = 0;
  captured.forEach((o, i) => {
    const total = cents(o.amount);
    if (i < nSplit && total >= 2n) {
      const first = total / 2n;
      planned.push({
        ...base(o),
        refund_amount: formatCents(first),
        refund_reason: 'chaos part 1',
        refundable: true,
      });
      planned.push({
        ...base(o),
        refund_amount: formatCents(total - first),
        refund_reason: 'chaos part 2',
        refundable: true,
      });
    } else {
      planned.push({ ...base(o), refund_amount: partOf(o.amount), refund_reason: 'chaos', refundable: true });
    }
    // Spread the orders that must fail through the file, so they share chunks with good ones.
    if (i % 20 === 10 && a < authorised.length) {
      const x = authorised[a++]!;
      planned.push({ ...base(x), refund_amount: x.amount, refund_reason: 'chaos', refundable: false });
    }
  });
  while (a < authorised.length) {
    const x = authorised[a++]!;
    planned.push({ ...base(x), refund_amount: x.amount, refund_reason: 'chaos', refundable: false });
  }
  const file = join(dir, 'refunds.csv');
  writeCsv(
    file,
    REFUND_HEADER,
    planned.map((p) => REFUND_HEADER.map((h) => p[h as keyof PlannedRow] as string)),
  );
  return { file, planned };
}

export interface Attempt {
  resume: boolean;
  code: number | null;
  signal: string | null;
  ms: number;
  killed?: boolean;
  killAfterMs?: number;
  faults: boolean;
}

/**
 * `--settle-time` for `ms`, given on every run of a campaign: the campaigns' environment is built
 * from scratch (payopsEnv), so without it payops would wait its default 30 s after each lost
 * request, and what a case tests depends on how the settle time compares with commit_late's delay.
 */
export function settleArgs(ms: number): string[] {
  return ['--settle-time', `${ms}ms`];
}

/** `payops refund --file F --yes --out R`, or the same with `--resume`. */
export function refundRun(
  sandbox: TestSandbox,
  home: string,
  file: string,
  out: string,
  opts: {
    resume: boolean;
    extraArgs?: string[];
    killAfterMs?: number;
    killWhen?: (exited: () => boolean) => Promise<void>;
    killSignal?: NodeJS.Signals;
  },
): Promise<RunResult> {
  const args = ['refund', '--file', file, '--yes', '--out', out, ...(opts.extraArgs ?? [])];
  if (opts.resume) args.push('--resume');
  return runPayops(args, {
    env: payopsEnv(sandbox.url, home),
    killAfterMs: opts.killAfterMs,
    killWhen: opts.killWhen,
    killSignal: opts.killSignal,
  });
}

/** Outcomes that need a resume: the run is not over while a row has one of these. */
const OPEN = new Set(['unknown', 'not_sent']);

/**
 * A run is over when every row has a definite outcome: exit 0 (all succeeded), 1 (some refused by
 * the gateway), or 3 with only `duplicated` rows left open (a resume would show the same again).
 * `out` is the results file that run wrote, which must hold all `rows` rows: a resume that stops
 * early (a search before sending failed) exits 3 and leaves the file as the process before wrote it.
 */
export function isOver(r: RunResult, out: string, rows: number): boolean {
  if (r.killed) return false;
  if (r.code === 0 || r.code === 1) return true;
  if (r.code !== 3 || !existsSync(out)) return false;
  const results = readCsv(out);
  return results.length === rows && results.every((row) => !OPEN.has(row.outcome ?? ''));
}

/**
 * Whether payops has a run of this input under `home` to resume: a run folder holding its input
 * copy (a folder cut off before the copy landed is not a run, for payops either). The first run of
 * a file is given without --resume, and so is a run after a process killed before its run began.
 */
export function runStarted(home: string): boolean {
  const runs = join(home, 'state', 'runs');
  if (!existsSync(runs)) return false;
  return readdirSync(runs).some((id) => existsSync(join(runs, id, 'input.csv')));
}

export type Outcomes = Record<
  'succeeded' | 'failed' | 'not_sent' | 'unknown' | 'duplicated' | 'already_done',
  number
>;

export function countOutcomes(resultsFile: string): Outcomes {
  const counts: Outcomes = {
    succeeded: 0,
    failed: 0,
    not_sent: 0,
    unknown: 0,
    duplicated: 0,
    already_done: 0,
  };
  if (!existsSync(resultsFile)) return counts;
  for (const r of readCsv(resultsFile)) {
    const o = r.outcome as keyof Outcomes;
    counts[o] = (counts[o] ?? 0) + 1;
  }
  return counts;
}

/** The run's results, checked to be one row per input row, in input order. */
function resultsInOrder(planned: PlannedRow[], resultsFile: string, problems: string[]) {
  const results = readCsv(resultsFile);
  expect(results.length, 'one result row per input row').toBe(planned.length);
  results.forEach((r, i) => {
    const p = planned[i]!;
    if (r.transaction_id !== p.transaction_id || r.refund_amount !== p.refund_amount) {
      problems.push(`row ${i + 2}: results out of input order (${r.transaction_id} vs ${p.transaction_id})`);
    }
  });
  return results;
}

const sortedList = (xs: bigint[] = []) => [...xs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)).join(',');

/**
 * The promise of issue 12 for a run hit by transient faults, checked against the ledger once the
 * run is over: every refundable row `succeeded`; the only rows `failed` are the authorised orders,
 * refused by the gateway (E2003); no other outcome; per transaction, the ledger's refunds are
 * exactly the rows reported succeeded (so each refundable row's refund is there exactly once, and
 * nothing for the authorised orders); no order refunded above its amount. Returns the counts.
 */
export function checkExactlyOnce(
  planned: PlannedRow[],
  resultsFile: string,
  ledger: LedgerEntry[],
): Outcomes {
  const problems: string[] = [];
  const results = resultsInOrder(planned, resultsFile, problems);
  const reported = new Map<string, bigint[]>();
  const amounts = new Map<string, bigint>();
  results.forEach((r, i) => {
    const p = planned[i]!;
    amounts.set(p.transaction_id, cents(p.amount));
    const where = `row ${i + 2} (${p.transaction_id})`;
    if (p.refundable) {
      if (r.outcome !== 'succeeded') problems.push(`${where}: ${r.outcome}: ${r.outcome_detail}`);
      else {
        const list = reported.get(p.transaction_id) ?? [];
        list.push(cents(p.refund_amount));
        reported.set(p.transaction_id, list);
      }
    } else if (r.outcome !== 'failed' || !r.outcome_detail?.includes('E2003')) {
      problems.push(`${where}: authorised order ${r.outcome} (${r.outcome_detail}), expected failed E2003`);
    }
  });

  const moved = new Map<string, bigint[]>();
  for (const e of ledger) {
    if (e.kind !== 'refund') {
      problems.push(`ledger: unexpected ${e.kind} of ${e.transaction_id}`);
      continue;
    }
    if (!amounts.has(e.transaction_id))
      problems.push(`ledger: refund of ${e.transaction_id}, not in the file`);
    const list = moved.get(e.transaction_id) ?? [];
    list.push(cents(e.refund_amount ?? '0'));
    moved.set(e.transaction_id, list);
  }
  for (const [tid, list] of moved) {
    const sum = list.reduce((s, x) => s + x, 0n);
    if (sum > (amounts.get(tid) ?? 0n))
      problems.push(`ledger: ${tid} refunded ${sum} cents of ${amounts.get(tid)}`);
  }
  for (const tid of new Set([...moved.keys(), ...reported.keys()])) {
    if (sortedList(moved.get(tid)) !== sortedList(reported.get(tid))) {
      problems.push(
        `${tid}: ledger [${sortedList(moved.get(tid))}] vs succeeded rows [${sortedList(reported.get(tid))}]`,
      );
    }
  }
  expect(problems.slice(0, 20), `${problems.length} violations of exactly-once`).toEqual([]);
  expect(ledger.length, 'one ledger refund per refundable row').toBe(
    planned.filter((p) => p.refundable).length,
  );
  return countOutcomes(resultsFile);
}

export interface DoublesReport {
  /** Transactions whose ledger holds more refunds than the file has rows for them. */
  doubled: number;
  /** Rows reported `duplicated`. */
  reportedDuplicated: number;
  /** Doubled transactions whose row was still open (unknown / not_sent) when the campaign stopped. */
  leftOpen: number;
  /** Doubled transactions whose row was reported anything else (succeeded): the finding. */
  silent: string[];
}

/**
 * When payops concludes "not applied" earlier than the gateway commits (settle time shorter than
 * commit_late's delay), exactly-once is not promised; what is promised is that no double goes
 * unreported. Checked once the late commits have landed, for a file of one row per order (the
 * caller asserts `problems` empty, after recording the report):
 * - a transaction with more ledger refunds than rows has its row reported `duplicated` naming every
 *   reference (or still open, `unknown` / `not_sent`, for a resume) — never `succeeded`;
 * - a row reported `duplicated` really was applied more than once (no false alarm);
 * - a row reported `succeeded` has exactly one refund of its amount; a row with no refund is not
 *   reported succeeded.
 */
export function checkDoublesReported(
  planned: PlannedRow[],
  resultsFile: string,
  ledger: LedgerEntry[],
): { report: DoublesReport; problems: string[] } {
  const problems: string[] = [];
  const results = resultsInOrder(planned, resultsFile, problems);
  const rowsOf = new Map<string, number>();
  for (const p of planned) rowsOf.set(p.transaction_id, (rowsOf.get(p.transaction_id) ?? 0) + 1);
  expect(
    [...rowsOf.values()].every((n) => n === 1),
    'this check needs one row per order',
  ).toBe(true);
  const refunds = new Map<string, LedgerEntry[]>();
  for (const e of ledger) {
    if (e.kind !== 'refund') problems.push(`ledger: unexpected ${e.kind} of ${e.transaction_id}`);
    else refunds.set(e.transaction_id, [...(refunds.get(e.transaction_id) ?? []), e]);
  }
  const report: DoublesReport = { doubled: 0, reportedDuplicated: 0, leftOpen: 0, silent: [] };
  results.forEach((r, i) => {
    const p = planned[i]!;
    const where = `row ${i + 2} (${p.transaction_id})`;
    const got = refunds.get(p.transaction_id) ?? [];
    for (const e of got) {
      if (cents(e.refund_amount ?? '0') !== cents(p.refund_amount)) {
        problems.push(`${where}: ledger refund of ${e.refund_amount}, the row says ${p.refund_amount}`);
      }
    }
    if (r.outcome === 'duplicated') report.reportedDuplicated++;
    if (got.length > 1) {
      report.doubled++;
      if (r.outcome === 'duplicated') {
        const refs = new Set((r.refund_reference_id ?? '').split(' ').filter(Boolean));
        const inLedger = got.map((e) => e.refund_reference_id ?? '');
        if (!inLedger.every((ref) => refs.has(ref))) {
          problems.push(`${where}: duplicated names [${[...refs]}], the ledger has [${inLedger}]`);
        }
      } else if (OPEN.has(r.outcome ?? '')) report.leftOpen++;
      else {
        const line = `${where}: refunded ${got.length} times (${got.map((e) => e.refund_reference_id).join(', ')}), reported ${r.outcome}`;
        report.silent.push(line);
        problems.push(line);
      }
    } else if (r.outcome === 'duplicated') {
      problems.push(`${where}: reported duplicated, the ledger has ${got.length} refund(s)`);
    } else if (r.outcome === 'succeeded' && got.length !== 1) {
      problems.push(`${where}: reported succeeded, the ledger has no refund`);
    }
  });
  return { report, problems };
}

/**
 * What the run journals under `home` say: record types, and the rows payops proved not applied and
 * sent again (the journal keeps their detail "not applied (…): sent again").
 */
export function journalStats(home: string): {
  records: Record<string, number>;
  /** Requests that sent a row again (a row sent three times counts two). */
  resends: number;
  /** Rows sent again at least once. */
  rowsResent: number;
} {
  const records: Record<string, number> = {};
  const resent = new Set<string>();
  let resends = 0;
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'journal.jsonl') {
        for (const line of readFileSync(p, 'utf8').split('\n')) {
          let rec: { type?: string; table?: unknown[][] };
          try {
            rec = JSON.parse(line);
          } catch {
            if (line.trim() !== '') records.torn = (records.torn ?? 0) + 1;
            continue;
          }
          const type = rec.type ?? '?';
          records[type] = (records[type] ?? 0) + 1;
          // Journal tables are [line, outcome, detail, …fields] (src/bulk/engine/outcome-table.ts).
          for (const row of rec.table ?? []) {
            if (row[1] === 'not_sent' && typeof row[2] === 'string' && row[2].endsWith(': sent again')) {
              resends++;
              resent.add(`${p}:${row[0]}`);
            }
          }
        }
      }
    }
  };
  walk(home);
  return { records, resends, rowsResent: resent.size };
}
