import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addToTotals } from '../../../src/money/amount.js';
import { formatCount, plural, renderFacts, renderOutcomes } from '../../../src/output/summary.js';

describe('summary helpers', () => {
  it('formats counts', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(plural(1, 'row')).toBe('1 row');
    expect(plural(1000, 'row')).toBe('1,000 rows');
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
  });

  it('groups thousands exactly as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
    );
    for (const n of [0, 7, 999, 1000, 999999, 1000000, -1000]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('renders outcomes with per-currency totals, aligned, skipping empty ones', () => {
    const succeeded = new Map<string, bigint>();
    const failed = new Map<string, bigint>();
    addToTotals(succeeded, 'USD', 123400n);
    addToTotals(succeeded, 'EUR', 1000n);
    addToTotals(succeeded, 'USD', 50n);
    addToTotals(failed, 'JPY', 1500n);
    const text = renderOutcomes([
      { outcome: 'succeeded', count: 998, totals: succeeded },
      { outcome: 'failed', count: 2, totals: failed },
      { outcome: 'unknown', count: 0 },
    ]);
    expect(text).toBe('succeeded  998  EUR 10.00 · USD 1,234.50\nfailed       2  JPY 1,500\n');
    expect(renderOutcomes([])).toBe('');
  });

  it('renders facts', () => {
    expect(
      renderFacts([
        ['Results', 'out.csv'],
        ['Run', 'r1'],
        ['Skipped', undefined],
      ]),
    ).toBe('Results: out.csv\nRun:     r1\n');
  });
});
