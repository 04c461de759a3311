import { describe, expect, it } from 'vitest';
import { allCurrencies, currencyInfo, normaliseCurrency } from '../../../src/money/currency.js';

describe('currencyInfo', () => {
  it('knows the ISO 4217 exponents', () => {
    expect(currencyInfo('USD')).toEqual({ code: 'USD', minorDigits: 2 });
    expect(currencyInfo('JPY')).toEqual({ code: 'JPY', minorDigits: 0 });
    expect(currencyInfo('KWD')).toEqual({ code: 'KWD', minorDigits: 3 });
    expect(currencyInfo('CLF')).toEqual({ code: 'CLF', minorDigits: 4 });
  });
  it('normalises case and blanks', () => {
    expect(currencyInfo(' eur ')).toEqual({ code: 'EUR', minorDigits: 2 });
    expect(normaliseCurrency(' usd\t')).toBe('USD');
  });
  it('refuses what is not a currency', () => {
    for (const c of ['', 'US', 'USDD', 'ABC', 'EURO', '€', 'XXX', 'XTS', 'U SD', '123']) {
      expect(currencyInfo(c), c).toBeUndefined();
    }
  });
  it('lists every code once, sorted', () => {
    const all = allCurrencies();
    expect(all.length).toBeGreaterThan(150);
    const codes = all.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(codes);
    for (const c of all) expect(c.code).toMatch(/^[A-Z]{3}$/);
  });
});
