import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { decidePayoutRun, decideRun, type RunDecision } from '../../../src/lifecycle/decide.js';
import type { RunInfo, RunState } from '../../../src/lifecycle/read.js';

function run(runId: string, state: RunState, op = 'refund', more: Partial<RunInfo['header']> = {}): RunInfo {
  return {
    runId,
    dir: `/state/runs/${runId}`,
    state,
    header: { type: 'header', v: 1, runId, op, createdAt: '2026-11-23T10:00:00.000Z', ...more },
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
      return `refuse: ${/already processed/.test(d.error.message) ? 'processed' : /to resume/.test(d.error.message) ? 'nothing to resume' : 'unfinished'}`;
  }
}

describe('decideRun: which run a bulk command works on', () => {
  // earlier runs (newest first), --resume, --force, --dry-run, --skip-done → decision
  const table: Array<[string, RunInfo[], boolean, boolean, boolean, boolean, string]> = [
    ['no earlier run', [], false, false, false, false, 'new'],
    // Issue 12: --resume is asked to continue a run; with none it is refused, never a new run.
    ['no earlier run, --resume', [], true, false, false, false, 'refuse: nothing to resume'],
    ['no earlier run, --resume, dry run: notes the refusal', [], true, false, true, false, 'new (no)'],
    ['no earlier run, --force', [], false, true, false, false, 'new'],
    ['no earlier run, dry run', [], false, false, true, false, 'new'],
    ['no earlier run, --skip-done', [], false, false, false, true, 'new'],
    ['finished', [finished], false, false, false, false, 'refuse: processed'],
    ['finished, --resume', [finished], true, false, false, false, 'show aaaa'],
    ['finished, --force', [finished], false, true, false, false, 'new (--force:)'],
    ['finished, dry run', [finished], false, false, true, false, 'new (already)'],
    ['finished, --resume, dry run', [finished], true, false, true, false, 'show aaaa'],
    // The gateway check leaves out every row it shows done: only what is left is sent.
    ['finished, --skip-done', [finished], false, false, false, true, 'new (refunds.csv)'],
    ['unfinished', [unfinished], false, false, false, false, 'refuse: unfinished'],
    ['unfinished, --resume', [unfinished], true, false, false, false, 'resume bbbb'],
    ['unfinished, --force', [unfinished], false, true, false, false, 'new (--force:)'],
    ['unfinished, dry run', [unfinished], false, false, true, false, 'new (an)'],
    ['unfinished, --resume, dry run', [unfinished], true, false, true, false, 'resume bbbb'],
    // An unfinished run may have chunks in flight: it is continued, not run around.
    ['unfinished, --skip-done', [unfinished], false, false, false, true, 'refuse: unfinished'],
    ['running elsewhere counts as unfinished', [running], false, false, false, false, 'refuse: unfinished'],
    [
      'finished and unfinished: refused as processed',
      [finished, unfinished],
      false,
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
      false,
      'resume bbbb',
    ],
    [
      'finished and unfinished, --skip-done: the unfinished one is to be resumed',
      [finished, unfinished],
      false,
      false,
      false,
      true,
      'refuse: unfinished',
    ],
  ];
  it.each(table)('%s', (_, earlier, resume, force, dryRun, skipDone, expected) => {
    expect(
      summary(decideRun({ earlier, op: 'refund', resume, force, dryRun, skipDone, what: 'refunds.csv' })),
    ).toBe(expected);
  });

  it('refusals are usage errors that say nothing was sent and name the way out', () => {
    const d = decideRun({
      earlier: [finished],
      op: 'refund',
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

  it('with --plan, the refusals offer no --force (a plan never runs with it)', () => {
    for (const earlier of [[unfinished], [finished]]) {
      const d = decideRun({
        earlier,
        op: 'refund',
        resume: false,
        force: false,
        dryRun: false,
        what: 'x.csv',
        planned: true,
      });
      if (d.action !== 'refuse') throw new Error(d.action);
      expect(d.error.hint).not.toMatch(/--force/);
    }
    const d = decideRun({
      earlier: [unfinished],
      op: 'refund',
      resume: false,
      force: false,
      dryRun: false,
      what: 'x.csv',
      planned: true,
    });
    expect(d.action === 'refuse' && d.error.hint).toMatch(/add --resume to continue it/);
  });

  it('--force names the latest earlier run it ignores', () => {
    const d = decideRun({
      earlier: [finished, unfinished],
      op: 'refund',
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
  it('--resume with no run of this input is refused, naming the closest runs (at most 3, newest first)', () => {
    const nearby = [
      run('20261123-120000-eeee', 'interrupted', 'refund', { label: 'other.csv', rows: 100 }),
      run('20261123-110000-ffff', 'finished', 'refund', { label: 'refunds-old.csv', rows: 1 }),
      run('20261123-100000-1111', 'finished', 'refund', { inline: true, label: 'flags' }),
      run('20261123-090000-2222', 'finished', 'refund', { label: 'oldest.csv' }),
    ];
    const d = decideRun({
      earlier: [],
      nearby,
      op: 'refund',
      resume: true,
      force: false,
      dryRun: false,
      what: 'refunds.csv',
    });
    expect(d.action).toBe('refuse');
    if (d.action !== 'refuse') return;
    expect(d.error).toBeInstanceOf(UsageError);
    expect(d.error.message.split('\n')).toEqual([
      'there is no earlier run of refunds.csv to resume (the same rows, operation and gateway); nothing was sent',
      '  the latest refund runs at this gateway (3 of 4):',
      '    20261123-120000-eeee  2026-11-23 10:00:00 UTC  other.csv  (interrupted, 100 rows)',
      '    20261123-110000-ffff  2026-11-23 10:00:00 UTC  refunds-old.csv  (finished, 1 row)',
      '    20261123-100000-1111  2026-11-23 10:00:00 UTC  one order by flags  (finished)',
    ]);
    expect(d.error.hint).toBe(
      'run without --resume to start a new run, or `payops runs resume RUN-ID` to continue one of those',
    );
  });

  it('--resume with no run at this gateway at all says so', () => {
    const d = decideRun({
      earlier: [],
      op: 'capture',
      resume: true,
      force: false,
      dryRun: false,
      what: 'x.csv',
    });
    expect(d.action === 'refuse' && d.error.message).toMatch(
      /\n {2}there is no capture run at this gateway at all$/,
    );
    expect(d.action === 'refuse' && d.error.hint).toBe('run without --resume to start a new run');
  });

  it('a dry run with --resume and no run of this input notes that a run would refuse', () => {
    const d = decideRun({
      earlier: [],
      op: 'refund',
      resume: true,
      force: false,
      dryRun: true,
      what: 'x.csv',
    });
    expect(d).toEqual({
      action: 'new',
      note: 'no earlier run of x.csv to resume: a run with --resume refuses (exit 2)',
    });
  });

  it('--skip-done after a finished run names it and says what is sent', () => {
    const d = decideRun({
      earlier: [finished],
      op: 'refund',
      resume: false,
      force: false,
      skipDone: true,
      dryRun: false,
      what: 'x.csv',
    });
    expect(d).toEqual({
      action: 'new',
      note: 'x.csv was already processed by run 20261123-100000-aaaa of 2026-11-23 10:00:00 UTC: --skip-done sends only the rows the gateway does not show done',
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

  it('--force keeps the request_ids of the latest run (issue 23); --new-request-ids starts with new ones', () => {
    expect(
      decidePayoutRun({ ...q, force: true, sameInput: [payoutFinished], latest: payoutFinished }),
    ).toEqual({ action: 'new', reuseFrom: payoutFinished });
    expect(
      decidePayoutRun({ ...q, newRequestIds: true, sameInput: [payoutFinished], latest: payoutFinished }),
    ).toEqual({ action: 'new' });
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

  it('--resume with no run of this input names the latest payout runs at this gateway', () => {
    const other = run('20261123-070000-dddd', 'interrupted', 'payout', { file: '/data/other.csv', rows: 2 });
    const d = decidePayoutRun({ ...q, resume: true, sameInput: [], nearby: [other], latest: undefined });
    expect(d.action).toBe('refuse');
    if (d.action !== 'refuse') return;
    expect(d.error.message).toBe(
      'there is no unfinished payout run of payouts.csv to resume\n  the latest payout runs at this gateway:\n    20261123-070000-dddd  2026-11-23 10:00:00 UTC  /data/other.csv  (interrupted, 2 rows)',
    );
    expect(d.error.hint).toMatch(/payops runs resume RUN-ID/);
  });
});
