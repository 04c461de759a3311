import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { decidePayoutRun, decideRun, type RunDecision } from '../../../src/runs/decide.js';
import type { RunInfo, RunState } from '../../../src/runs/read.js';

function run(runId: string, state: RunState, op = 'refund'): RunInfo {
  return {
    runId,
    dir: `/state/runs/${runId}`,
    state,
    header: { type: 'header', v: 1, runId, op, createdAt: '2026-11-23T10:00:00.000Z' },
  };
}

const finished = run('20261123-100000-aaaa', 'finished');
const unfinished = run('20261123-090000-bbbb', 'interrupted');
const running = run('20261123-080000-cccc', 'running');

/** The decision in one word, plus the run it names: what the table below reads. */
function summary(d: RunDecision): string {
  switch (d.action) {
    case 'new':
      return d.note ? `new (${d.note.split(' ')[0]})` : 'new';
    case 'resume':
      return `resume ${d.run.runId.slice(-4)}`;
    case 'show':
      return `show ${d.run.runId.slice(-4)}`;
    case 'refuse':
      return `refuse: ${/already processed/.test(d.error.message) ? 'processed' : 'unfinished'}`;
  }
}

describe('decideRun: which run a bulk command works on', () => {
  // earlier runs (newest first), --resume, --force, --dry-run → decision
  const table: Array<[string, RunInfo[], boolean, boolean, boolean, string]> = [
    ['no earlier run', [], false, false, false, 'new'],
    ['no earlier run, --resume', [], true, false, false, 'new (no)'],
    ['no earlier run, --force', [], false, true, false, 'new'],
    ['no earlier run, dry run', [], false, false, true, 'new'],
    ['finished', [finished], false, false, false, 'refuse: processed'],
    ['finished, --resume', [finished], true, false, false, 'show aaaa'],
    ['finished, --force', [finished], false, true, false, 'new (--force:)'],
    ['finished, dry run', [finished], false, false, true, 'new (already)'],
    ['finished, --resume, dry run', [finished], true, false, true, 'show aaaa'],
    ['unfinished', [unfinished], false, false, false, 'refuse: unfinished'],
    ['unfinished, --resume', [unfinished], true, false, false, 'resume bbbb'],
    ['unfinished, --force', [unfinished], false, true, false, 'new (--force:)'],
    ['unfinished, dry run', [unfinished], false, false, true, 'new (an)'],
    ['unfinished, --resume, dry run', [unfinished], true, false, true, 'resume bbbb'],
    ['running elsewhere counts as unfinished', [running], false, false, false, 'refuse: unfinished'],
    [
      'finished and unfinished: refused as processed',
      [finished, unfinished],
      false,
      false,
      false,
      'refuse: processed',
    ],
    [
      'finished and unfinished, --resume: the unfinished one',
      [finished, unfinished],
      true,
      false,
      false,
      'resume bbbb',
    ],
  ];
  it.each(table)('%s', (_, earlier, resume, force, dryRun, expected) => {
    expect(summary(decideRun({ earlier, resume, force, dryRun, what: 'refunds.csv' }))).toBe(expected);
  });

  it('refusals are usage errors that say nothing was sent and name the way out', () => {
    const d = decideRun({
      earlier: [finished],
      resume: false,
      force: false,
      dryRun: false,
      what: 'refunds.csv',
    });
    expect(d.action).toBe('refuse');
    if (d.action !== 'refuse') return;
    expect(d.error).toBeInstanceOf(UsageError);
    expect(d.error.message).toBe(
      'refunds.csv was already processed by run 20261123-100000-aaaa of 2026-11-23 10:00:00 UTC; nothing was sent',
    );
    expect(d.error.hint).toMatch(/payops runs show 20261123-100000-aaaa/);
    expect(d.error.hint).toMatch(/--force/);
  });

  it('--force names the latest earlier run it ignores', () => {
    const d = decideRun({
      earlier: [finished, unfinished],
      resume: false,
      force: true,
      dryRun: false,
      what: 'x.csv',
    });
    expect(d).toEqual({
      action: 'new',
      note: '--force: earlier runs of x.csv are ignored (latest: run 20261123-100000-aaaa of 2026-11-23 10:00:00 UTC)',
    });
  });
});

describe('decidePayoutRun: which run a payout command works on', () => {
  const payoutFinished = run('20261123-100000-aaaa', 'finished', 'payout');
  const payoutUnfinished = run('20261123-090000-bbbb', 'interrupted', 'payout');
  const q = { what: 'payouts.csv', resume: false, force: false };

  it('a re-run takes the request_ids of the latest run of the same file', () => {
    expect(decidePayoutRun({ ...q, sameInput: [payoutFinished], latest: payoutFinished })).toEqual({
      action: 'new',
      reuseFrom: payoutFinished,
    });
  });

  it('--force starts with new request_ids', () => {
    expect(
      decidePayoutRun({ ...q, force: true, sameInput: [payoutFinished], latest: payoutFinished }),
    ).toEqual({
      action: 'new',
    });
  });

  it('--resume continues the unfinished run, or the one named by id', () => {
    const other = run('20261123-070000-dddd', 'interrupted', 'payout');
    const sameInput = [payoutFinished, payoutUnfinished, other];
    expect(decidePayoutRun({ ...q, resume: true, sameInput, latest: undefined })).toEqual({
      action: 'resume',
      run: payoutUnfinished,
    });
    expect(decidePayoutRun({ ...q, resume: true, runId: other.runId, sameInput, latest: undefined })).toEqual(
      {
        action: 'resume',
        run: other,
      },
    );
  });

  it('--resume with nothing unfinished is refused, and says why', () => {
    const d = decidePayoutRun({ ...q, resume: true, sameInput: [payoutFinished], latest: undefined });
    expect(d.action).toBe('refuse');
    if (d.action !== 'refuse') return;
    expect(d.error.message).toBe('there is no unfinished payout run of payouts.csv to resume');
    expect(d.error.hint).toMatch(/20261123-100000-aaaa finished/);
    const none = decidePayoutRun({ ...q, resume: true, sameInput: [], latest: undefined });
    expect(none.action === 'refuse' && none.error.hint).toBe('run it without --resume');
  });
});
