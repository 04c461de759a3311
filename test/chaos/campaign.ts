// The refund file every campaign uses, the resume loop, and the invariants checked at the end:
// the ledger (what the gateway says moved) against the results file (what payops says happened).
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

/**
 * Orders in the sandbox and a refund file for them: `rows` rows in all, one in twenty for an
 * authorised order (must fail), and one in twenty captured orders refunded in two partial rows.
 */
export async function prepareRefundFile(
  sandbox: TestSandbox,
  dir: string,
  rows: number,
  opts: { authorisedShare?: number; splitShare?: number } = {},
): Promise<{ file: string; planned: PlannedRow[] }> {
  const nAuth = Math.max(1, Math.floor(rows * (opts.authorisedShare ?? 0.05)));
  const nSplit = Math.max(1, Math.floor(rows * (opts.splitShare ?? 0.05)));
  const captured = await sandbox.createOrders(rows - nAuth - nSplit, '3000');
  const authorised = await sandbox.createOrders(nAuth, '2000');
  const planned: PlannedRow[] = [];
  const base = (o: (typeof captured)[number]) => ({
    transaction_id: o.transaction_id,
    order_no: o.order_no,
    currency: o.currency,
    amount: o.amount,
  });
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
      planned.push({ ...base(o), refund_amount: o.amount, refund_reason: 'chaos', refundable: true });
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
  writeRefundFile(file, planned);
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

/** A run is over when every row has a definite outcome: 0 all succeeded, 1 some failed. */
export const finished = (r: RunResult) => r.code === 0 || r.code === 1;

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

export interface Outcomes {
  succeeded: number;
  failed: number;
  other: number;
  /** Refundable rows payops reported failed (honestly: the ledger has no refund for them). */
  refundableFailed: number;
}

export interface RunFiles {
  planned: PlannedRow[];
  resultsFile: string;
}

/** Writes the rows of `planned` as a refund file (follow-up runs of the rows to try again). */
export function writeRefundFile(file: string, planned: PlannedRow[]): void {
  writeCsv(
    file,
    REFUND_HEADER,
    planned.map((p) => REFUND_HEADER.map((h) => p[h as keyof PlannedRow] as string)),
  );
}

/**
 * The invariants of issue 7, checked against the ledger after one or more runs (a run and its
 * follow-ups): no money moved twice, every row with a definite outcome, and succeeded rows ⇔
 * ledger entries (per transaction, the multiset of refunded amounts equals that of the rows the
 * runs reported succeeded). Returns the counts of the last run.
 */
export function checkInvariants(runs: RunFiles[], ledger: LedgerEntry[]): Outcomes {
  const reported = new Map<string, bigint[]>();
  const amounts = new Map<string, bigint>();
  const problems: string[] = [];
  let counts: Outcomes = { succeeded: 0, failed: 0, other: 0, refundableFailed: 0 };
  runs.forEach(({ planned, resultsFile }, run) => {
    const results = readCsv(resultsFile);
    expect(results.length, `run ${run}: one result row per input row`).toBe(planned.length);
    counts = { succeeded: 0, failed: 0, other: 0, refundableFailed: 0 };
    results.forEach((r, i) => {
      const p = planned[i]!;
      amounts.set(p.transaction_id, cents(p.amount));
      const where = `run ${run} row ${i + 2}`;
      if (r.transaction_id !== p.transaction_id || r.refund_amount !== p.refund_amount) {
        problems.push(`${where}: results out of input order (${r.transaction_id} vs ${p.transaction_id})`);
      }
      if (r.outcome === 'succeeded') {
        counts.succeeded++;
        const list = reported.get(p.transaction_id) ?? [];
        list.push(cents(p.refund_amount));
        reported.set(p.transaction_id, list);
        if (!p.refundable) problems.push(`${where}: authorised order ${p.transaction_id} reported refunded`);
      } else if (r.outcome === 'failed') {
        counts.failed++;
        if (p.refundable) counts.refundableFailed++;
      } else {
        counts.other++;
        problems.push(`${where}: final outcome ${r.outcome ?? '(none)'}`);
      }
    });
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
  const sorted = (xs: bigint[] = []) => [...xs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)).join(',');
  for (const [tid, list] of moved) {
    const sum = list.reduce((s, x) => s + x, 0n);
    if (sum > (amounts.get(tid) ?? 0n))
      problems.push(`ledger: ${tid} refunded ${sum} cents of ${amounts.get(tid)}`);
  }
  for (const tid of new Set([...moved.keys(), ...reported.keys()])) {
    if (sorted(moved.get(tid)) !== sorted(reported.get(tid))) {
      problems.push(
        `${tid}: ledger [${sorted(moved.get(tid))}] vs results succeeded [${sorted(reported.get(tid))}]`,
      );
    }
  }
  expect(problems.slice(0, 20), `${problems.length} invariant violations`).toEqual([]);
  return counts;
}
