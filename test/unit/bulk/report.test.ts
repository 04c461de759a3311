// The plan, summary and resume lines name files, profiles and runs a user chose (review of issue 13,
// item 10): a name with escape sequences is shown quoted and escaped, a plain name as it is.
import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../../src/bulk/engine/execute.js';
import type { BulkPlan } from '../../../src/bulk/plan/plan.js';
import {
  confirmQuestion,
  type PlanView,
  planLines,
  summaryLines,
  typedConfirmation,
} from '../../../src/bulk/report/report.js';
import { newTotals } from '../../../src/bulk/report/results.js';
import type { Context } from '../../../src/context.js';
import type { RunHeader } from '../../../src/lifecycle/records.js';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const EVIL = 'evil\u001b]0;PWNED\u0007\u001b[2J.csv';

function view(label: string, profile = 'default'): PlanView {
  const plan: BulkPlan = {
    op: 'refund',
    source: { path: `/tmp/${label}`, label },
    columns: [],
    sha256: 'ab'.repeat(32),
    content: '',
    rows: 2,
    requests: 1,
    chunkSize: 100,
    amounts: new Map([['USD', 2000n]]),
    moving: new Map([['USD', 200n]]),
  };
  return {
    plan,
    runId: '20261124-000125-4567',
    profile,
    baseUrl: 'https://gw.example',
    merchantId: '800001',
    accountId: '800001001',
    sandbox: false,
    concurrency: 4,
    dryRun: false,
    resume: { settledRows: 1, pendingChunks: 1, createdAt: '2026-11-24T00:01:25Z' },
  };
}

describe('planLines', () => {
  it('shows a plain file name as it is', () => {
    expect(planLines(view('refunds.csv'))[0]).toContain('from refunds.csv in 1 request');
  });

  it('quotes and escapes a file name and a profile with escape sequences', () => {
    const lines = planLines(view(EVIL, `p${'\u001b'}[31m`));
    expect(lines.join('\n')).not.toMatch(CONTROL);
    expect(lines[0]).toContain('from "evil\\x1b]0;PWNED\\x07\\x1b[2J.csv" in');
    expect(lines.join('\n')).toContain('profile "p\\x1b[31m"');
    expect(confirmQuestion(view(EVIL))).not.toMatch(CONTROL);
  });
});

describe('summaryLines', () => {
  it('quotes the results file and the journal folder when they need it', () => {
    const totals = newTotals();
    totals.counts.unknown = 1;
    const lines = summaryLines({
      op: 'refund',
      runId: '20261124-000125-4567',
      totals,
      resultsFile: `out${'\u001b'}]0;X\u0007.csv`,
      journalDir: '/home/u/.payops/runs/20261124-000125-4567',
      resumable: true,
      resumeCommand: 'payops refund --file x.csv --resume --yes',
    });
    const text = lines.join('\n');
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('"out\\x1b]0;X\\x07.csv"');
    expect(text).toContain('journal: /home/u/.payops/runs/20261124-000125-4567');
  });
});

describe('summaryLines after a second Ctrl-C', () => {
  function abandoned(unknown: number): string {
    const totals = newTotals();
    totals.counts.succeeded = 350;
    totals.counts.not_sent = 11_650 - unknown;
    totals.counts.unknown = unknown;
    return summaryLines({
      op: 'refund',
      runId: '20261124-071013-c0ed',
      totals,
      journalDir: '/h/runs/20261124-071013-c0ed',
      stopped: 'interrupted',
      abandoned: true,
      resumable: true,
      resumeCommand: 'payops refund --file a.csv --resume --yes',
    }).join('\n');
  }

  it('says rows stay unknown only when some do', () => {
    expect(abandoned(50)).toMatch(/interrupted twice: .*their rows stay unknown until the run is resumed/);
    // Requests waiting out a 429 were never sent: all not_sent, none unknown; "their rows stay
    // unknown" then contradicted the counts just above it.
    const none = abandoned(0);
    expect(none).toMatch(/interrupted twice: stopped at once; no request was left without an answer/);
    expect(none).not.toMatch(/stay unknown/);
  });
});

describe('plans that say exactly what will happen (issue 15)', () => {
  it('counts rows and orders apart, and says so in the question', () => {
    const v = view('refunds.csv');
    delete v.resume;
    v.plan.rows = 12;
    v.plan.orders = 11;
    const lines = planLines(v);
    expect(lines[0]).toContain('refund 12 rows (11 orders) from refunds.csv');
    expect(lines.join('\n')).toContain('order amounts: USD 20.00 (11 orders, each counted once)');
    expect(confirmQuestion(v)).toBe('Refund 12 rows of 11 orders (USD 2.00) at https://gw.example?');
  });

  it('asks about the rows --skip-done leaves to send, not every row and its money', () => {
    // 12 of 12 rows already refunded and left out: it asked "Refund 12 rows of 11 orders
    // (USD 357.49 …)?", a question about money that was not going to move.
    const v = view('refunds.csv');
    delete v.resume;
    v.plan.rows = 12;
    v.plan.orders = 11;
    v.preflight = { done: 12, skip: true, force: false };
    expect(confirmQuestion(v)).toBe(
      'Refund 0 rows (12 of 12 rows already done, left out by --skip-done) at https://gw.example?',
    );
    v.preflight = { done: 5, skip: true, force: false };
    expect(confirmQuestion(v)).toBe(
      'Refund 7 rows (5 of 12 rows already done, left out by --skip-done) at https://gw.example?',
    );
    // --force sends every row: the whole file's question.
    v.preflight = { done: 5, skip: false, force: true };
    expect(confirmQuestion(v)).toBe('Refund 12 rows of 11 orders (USD 2.00) at https://gw.example?');
  });

  it('counts rows possibly done apart, and lists the orders with other refunds and their balance (issue 23)', () => {
    const v = view('refunds.csv');
    delete v.resume;
    v.plan.rows = 30;
    const partly: Array<[number, string]> = Array.from({ length: 22 }, (_, i) => [
      i + 5,
      `order O${i} has 1 other refund at the gateway (USD 2.00): USD 8.00 left to refund`,
    ]);
    v.preflight = { done: 3, possible: 1, partly, skip: false, force: false };
    const text = planLines(v).join('\n');
    expect(text).toContain(
      'checked at the gateway: 2 rows already refunded and 1 row possibly already refunded at the gateway: a run refuses them unless --skip-done or --force',
    );
    expect(text).toContain(
      'refunds.csv:5 order O0 has 1 other refund at the gateway (USD 2.00): USD 8.00 left to refund',
    );
    expect(text).toContain('refunds.csv:24 order O19');
    expect(text).not.toContain('refunds.csv:25 ');
    expect(text).toContain('… and 2 more orders with other refunds');
    v.preflight = { done: 1, possible: 1, skip: true, force: false };
    expect(planLines(v).join('\n')).toContain(
      'checked at the gateway: 1 row possibly already refunded at the gateway: skipped (--skip-done); 29 to send',
    );
  });

  it('splits a review into approvals and rejections', () => {
    const v = view('review.csv');
    delete v.resume;
    v.plan.op = 'review';
    v.plan.reviews = {
      approve: 7,
      reject: 3,
      approveAmounts: new Map([['USD', 70000n]]),
      rejectAmounts: new Map([['USD', 12000n]]),
    };
    const text = planLines(v).join('\n');
    expect(text).toContain('approve: 7 orders · USD 700.00');
    expect(text).toContain('reject:  3 orders · USD 120.00');
    expect(confirmQuestion(v)).toContain('(approve 7, reject 3)');
  });

  it('a resumed run asks about what is left, not the whole file', () => {
    const v = view('refunds.csv');
    v.plan.rows = 5000;
    v.resume = { settledRows: 3400, pendingChunks: 32, createdAt: '2026-11-24T00:01:25Z' };
    expect(confirmQuestion(v)).toBe(
      'Resume run 20261124-000125-4567 and refund the 1,600 rows left (3,400 of 5,000 done) at https://gw.example?',
    );
    expect(planLines(v).join('\n')).toContain('3,400 of 5,000 rows done, 1,600 left');
  });

  it('asks for the number of rows above confirm_typed_above, in any of its currencies', () => {
    const v = view('refunds.csv');
    delete v.resume;
    v.plan.moving = new Map([
      ['USD', 200n],
      ['EUR', 900_000n],
    ]);
    expect(typedConfirmation(v, undefined)).toBeUndefined();
    expect(typedConfirmation(v, 'USD:10000,EUR:10000')).toBeUndefined();
    expect(typedConfirmation(v, 'USD:10000,EUR:8000')).toEqual({
      rows: 2,
      why: "this is above the profile's confirm_typed_above (EUR 8,000.00)",
    });
    // A limit that is not an amount of its currency asks rather than not.
    expect(typedConfirmation(v, 'EUR:10.999')?.rows).toBe(2);
    expect(typedConfirmation({ ...v, dryRun: true }, 'EUR:1')).toBeUndefined();
  });

  it('fits the lines to the terminal, never breaking a command', () => {
    const lines = planLines({ ...view('refunds.csv'), columns: 60 });
    for (const l of lines) expect(l.length).toBeLessThan(60);
    const totals = newTotals();
    totals.counts.not_sent = 3;
    const summary = summaryLines({
      op: 'refund',
      runId: '20261124-000125-4567',
      totals,
      journalDir: '/home/u/.payops/runs/20261124-000125-4567',
      stopped: 'interrupted',
      resumable: true,
      resumeCommand: `payops refund --file ${'x'.repeat(70)}.csv --resume --yes   (or: payops runs resume 20261124-000125-4567)`,
      columns: 60,
    });
    expect(summary).toContain(`  resume with: payops refund --file ${'x'.repeat(70)}.csv --resume --yes`);
    expect(summary).toContain('           or: payops runs resume 20261124-000125-4567 --yes');
    expect(summary.join('\n')).toContain('every row: payops runs show 20261124-000125-4567');
  });
});

describe('the resume command of a run read from a pipe (found trying it)', () => {
  const ctx = { globals: {} } as unknown as Context;
  // As a run records a pipe: read from its private copy, named as the user gave it.
  const header = (label: string) =>
    ({
      runId: '20261128-170000-abcd',
      op: 'refund',
      file: label.startsWith('/dev/') || label.startsWith('/proc/') ? '/tmp/payops-pipe-x/input' : label,
      label,
    }) as unknown as RunHeader;

  it.each(['/dev/fd/63', '/proc/self/fd/12'])('%s: runs resume, since the pipe is gone', (file) => {
    expect(resumeCommand(ctx, header(file))).toBe('payops runs resume 20261128-170000-abcd --yes');
  });

  it('a file: the command with --file, and runs resume beside it', () => {
    expect(resumeCommand(ctx, header('/tmp/refunds.csv'))).toBe(
      'payops refund --file /tmp/refunds.csv --resume --yes   (or: payops runs resume 20261128-170000-abcd)',
    );
  });
});
