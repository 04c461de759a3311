import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { findCardArguments, isCardLike, refuseCardArguments } from '../../../src/pay/argv-guard.js';

describe('isCardLike', () => {
  it('catches Luhn-valid 13–19 digit numbers, grouped or not', () => {
    expect(isCardLike('4242424242424242')).toBe(true);
    expect(isCardLike('4242 4242 4242 4242')).toBe(true);
    expect(isCardLike('4242-4242-4242-4242')).toBe(true);
    expect(isCardLike(' 4111111111111111 ')).toBe(true);
    expect(isCardLike('378282246310005')).toBe(true); // 15-digit Amex
    expect(isCardLike('4222222222222')).toBe(true); // 13 digits
  });

  it('leaves other arguments alone', () => {
    expect(isCardLike('4242424242424241')).toBe(false); // fails Luhn
    expect(isCardLike('424242424242')).toBe(false); // 12 digits
    expect(isCardLike('42424242424242424242')).toBe(false); // 20 digits
    expect(isCardLike('PO-20261122001500-ab12cd')).toBe(false);
    expect(isCardLike('12.50')).toBe(false);
    expect(isCardLike('12/2030')).toBe(false);
    expect(isCardLike('--amount')).toBe(false);
    expect(isCardLike('1700000000')).toBe(false);
    expect(isCardLike('')).toBe(false);
  });
});

describe('findCardArguments', () => {
  it('finds numbers as separate arguments and as --flag=value', () => {
    expect(findCardArguments(['pay', 'card', '--amount', '10', '4242424242424242'])).toEqual([4]);
    expect(findCardArguments(['pay', 'card', '--note=4242 4242 4242 4242'])).toEqual([2]);
    expect(findCardArguments(['pay', 'card', '--card', '4000-0000-0000-0002'])).toEqual([3]);
    expect(findCardArguments(['pay', 'card', '--amount', '10', '--currency', 'USD'])).toEqual([]);
  });
});

describe('refuseCardArguments', () => {
  it('throws a usage error that never repeats the number', () => {
    let err: unknown;
    try {
      refuseCardArguments(['pay', 'card', '4111111111111111']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    const e = err as UsageError;
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('#3');
    expect(`${e.message} ${e.hint}`).not.toContain('4111');
    expect(e.hint).toMatch(/stdin/);
  });

  it('passes clean argv', () => {
    expect(() => refuseCardArguments(['pay', 'card', '--amount', '12.50'])).not.toThrow();
  });
});
