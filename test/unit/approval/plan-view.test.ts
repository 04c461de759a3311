// fitPlanLines (approval/plan-view.ts): a plan's lines at a terminal's width, broken at spaces, each
// continuation under its line's value, `transaction T…` never parted from its id.
import { describe, expect, it } from 'vitest';
import { fitPlanLines } from '../../../src/approval/plan-view.js';

const LARGEST =
  '  largest    USD 722.71  refunds-december.csv:7  order SBX-1000000009, transaction T1000000006';

describe('fitPlanLines', () => {
  it('breaks at spaces under the value column, the id whole and with its label', () => {
    const out = fitPlanLines([LARGEST, 'plan x.plan (pl_1)'], 80);
    expect(out).toEqual([
      '  largest    USD 722.71  refunds-december.csv:7  order SBX-1000000009,',
      '             transaction T1000000006',
      'plan x.plan (pl_1)',
    ]);
    for (const l of out) expect(l.length).toBeLessThan(80);
  });

  it('leaves lines as they are without a width (a log, a pipe)', () => {
    expect(fitPlanLines([LARGEST], undefined)).toEqual([LARGEST]);
  });
});
