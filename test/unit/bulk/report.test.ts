// The plan, summary and resume lines name files, profiles and runs a user chose (review of issue 13,
// item 10): a name with escape sequences is shown quoted and escaped, a plain name as it is.
import { describe, expect, it } from 'vitest';
import type { BulkPlan } from '../../../src/bulk/plan.js';
import { confirmQuestion, type PlanView, planLines, summaryLines } from '../../../src/bulk/report.js';
import { newTotals } from '../../../src/bulk/results.js';

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
