// The parts of `payops plan` that are pure: --expires, and which rows a plan shows as the largest.
import { describe, expect, it } from 'vitest';
import { parseExpiry, pickLargest } from '../../../src/approval/make-plan.js';

describe('parseExpiry', () => {
  it('reads s, m, h, d; refuses zero, over 90 days, and anything else', () => {
    expect(parseExpiry('7d')).toBe(7 * 86_400_000);
    expect(parseExpiry('36h')).toBe(36 * 3_600_000);
    expect(parseExpiry('90m')).toBe(90 * 60_000);
    expect(parseExpiry('1s')).toBe(1000);
    expect(parseExpiry('90d')).toBe(90 * 86_400_000);
    for (const bad of ['0s', '91d', '7', '7w', '-1d', '1.5d', ''])
      expect(parseExpiry(bad), bad).toBeUndefined();
  });
});

describe('pickLargest', () => {
  const row = (currency: string, amount: string, line: number) => ({ line, currency, amount });
  it('takes the largest of each currency first, then the next, up to 5', () => {
    const byCurrency = new Map([
      [
        'USD',
        [row('USD', '900.00', 2), row('USD', '800.00', 3), row('USD', '700.00', 4), row('USD', '1.00', 5)],
      ],
      ['EUR', [row('EUR', '5.00', 6)]],
      ['JPY', [row('JPY', '90000', 7), row('JPY', '100', 8)]],
    ]);
    expect(pickLargest(byCurrency).map((r) => r.line)).toEqual([6, 7, 2, 8, 3]);
  });
  it('fewer rows than 5: all of them', () => {
    expect(pickLargest(new Map([['USD', [row('USD', '1.00', 2)]]]))).toHaveLength(1);
  });
});
