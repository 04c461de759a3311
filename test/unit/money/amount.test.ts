import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addToTotals,
  formatAmount,
  formatMoney,
  formatMoneyTotals,
  parseAmount,
} from '../../../src/money/amount.js';
import { allCurrencies } from '../../../src/money/currency.js';

function minor(text: string, currency: string): bigint {
  const r = parseAmount(text, currency);
  if (!r.ok) throw new Error(`${text} ${currency}: ${r.message}`);
  return r.minor;
}

function refused(text: string, currency = 'USD') {
  const r = parseAmount(text, currency);
  if (r.ok) throw new Error(`${text} was accepted as ${r.minor}`);
  expect(r.message.length).toBeGreaterThan(0);
  expect(r.expected.length).toBeGreaterThan(0);
  return r;
}

describe('parseAmount', () => {
  it('parses plain decimals into minor units', () => {
    expect(minor('12', 'USD')).toBe(1200n);
    expect(minor('12.5', 'USD')).toBe(1250n);
    expect(minor('12.50', 'USD')).toBe(1250n);
    expect(minor('0.01', 'USD')).toBe(1n);
    expect(minor('0', 'USD')).toBe(0n);
    expect(minor('007.10', 'usd')).toBe(710n);
    expect(minor(' 3.5 ', 'EUR')).toBe(350n);
    expect(minor('1000', 'JPY')).toBe(1000n);
    expect(minor('1.234', 'KWD')).toBe(1234n);
    expect(minor('1.5', 'KWD')).toBe(1500n);
    expect(minor('999999999999999.99', 'USD')).toBe(99999999999999999n);
  });

  it('is exact where floats are not', () => {
    expect(minor('0.29', 'USD')).toBe(29n);
    expect(minor('1.15', 'USD')).toBe(115n);
    expect(minor('4.35', 'USD')).toBe(435n);
  });

  it('refuses more decimals than the currency has', () => {
    expect(refused('12.5', 'JPY').message).toMatch(/JPY has no minor unit/);
    expect(refused('12.505', 'USD').message).toMatch(/3 decimals but USD has 2/);
    expect(refused('1.2345', 'KWD').message).toMatch(/KWD has 3/);
    expect(refused('1.5', 'JPY').expected).toMatch(/no decimals for JPY/);
    // One pair of brackets in the message: report-error puts `(expected …)` around this text.
    expect(refused('12.505', 'USD').expected).toBe(
      'a plain decimal with a dot, such as 12.50, at most 2 decimals for USD',
    );
  });

  it('refuses thousands separators and decimal commas with a hint', () => {
    for (const t of ['1,234.56', '12,50', '1.234,56', '1,234', '1,234,567.00']) {
      const r = refused(t);
      expect(r.hint, t).toMatch(/dot for decimals/);
    }
    // The hint names the value to write when the meaning is clear.
    expect(refused('12,50').hint).toBe('write 12.50 (no thousands separators, a dot for decimals)');
    expect(refused('1.234,56').hint).toMatch(/^write 1234\.56 /);
    expect(refused('1,234.56').hint).toMatch(/^write 1234\.56 /);
    expect(refused('1,234').hint).toMatch(/^write 1234 /);
    expect(refused('1,234,567').hint).toMatch(/^write 1234567 /);
    // For KWD (3 decimals) "1,234" could be either: no guess.
    expect(refused('1,234', 'KWD').hint).toMatch(/e\.g\. 1234\.566/);
    // A guess that would still be wrong for the currency is not offered.
    expect(refused('12,505').hint).toMatch(/^write 12505 /);
    expect(refused('1,5', 'JPY').hint).toMatch(/e\.g\. 1234$/);
    expect(refused('1.234,56').message).toMatch(/comma for decimals/);
    expect(refused('12,50').message).toMatch(/decimal comma/);
    expect(refused('1,234.56').message).toMatch(/thousands separator/);
    expect(refused('1.234.567').message).toMatch(/more than one dot/);
    expect(refused("1'234.50").message).toMatch(/separator/);
  });

  it('refuses signs, exponents, spaces, symbols and empty text', () => {
    expect(refused('-12.50').message).toMatch(/negative/);
    expect(refused('+12.50').message).toMatch(/sign/);
    expect(refused('1.2E+3').message).toMatch(/scientific/);
    expect(refused('1e5').message).toMatch(/scientific/);
    expect(refused('1 234.50').message).toMatch(/spaces/);
    expect(refused('$12.50').message).toMatch(/currency symbol/);
    expect(refused('12.50 €').message).toMatch(/currency symbol/);
    expect(refused('USD 12.50').message).toMatch(/currency symbol or code/);
    expect(refused('').message).toMatch(/empty/);
    expect(refused('   ').message).toMatch(/empty/);
    expect(refused('.5').hint).toBe('write 0.5');
    expect(refused('12.').hint).toBe('write 12');
    expect(refused('abc').message).toMatch(/not an amount/);
    expect(refused('NaN').message).toMatch(/not an amount/);
    expect(refused('Infinity').message).toMatch(/not an amount/);
    expect(refused('١٢').message).toMatch(/not an amount/); // Arabic-Indic digits
  });

  it('refuses more than 15 integer digits (overflow guard) but ignores leading zeros', () => {
    expect(refused('1234567890123456').message).toMatch(/more than 15 digits/);
    expect(minor('000000000000000000001', 'USD')).toBe(100n);
  });

  it('refuses an unknown currency rather than guessing its decimals', () => {
    expect(refused('12.50', 'ABC').message).toMatch(/not an ISO 4217/);
  });

  it('never throws and never accepts non-plain text (property)', () => {
    const currencies = allCurrencies().map((c) => c.code);
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom(...currencies),
        (text, cur) => {
          const r = parseAmount(text, cur);
          // Plain checks: expect() in thousands of runs would dominate the test's time.
          if (r.ok) return /^\d+(\.\d+)?$/.test(text.trim()) && r.minor >= 0n;
          return r.message !== '' && r.expected !== '';
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('formatAmount', () => {
  it('gives canonical wire text', () => {
    expect(formatAmount(1000n, 'USD')).toBe('10.00');
    expect(formatAmount(5n, 'USD')).toBe('0.05');
    expect(formatAmount(0n, 'USD')).toBe('0.00');
    expect(formatAmount(1000n, 'JPY')).toBe('1000');
    expect(formatAmount(1500n, 'kwd')).toBe('1.500');
    expect(formatAmount(-1250n, 'EUR')).toBe('-12.50');
  });
  it('throws on an unknown currency (a programming error: validation refused it earlier)', () => {
    expect(() => formatAmount(1n, 'ABC')).toThrow(/unknown currency/);
  });

  it('round-trips format → parse for every currency (property)', () => {
    const currencies = allCurrencies();
    fc.assert(
      fc.property(
        fc.constantFrom(...currencies),
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.bigInt({ min: 0n, max: 9999n }),
        (cur, units, fraction) => {
          const scale = 10n ** BigInt(cur.minorDigits);
          const m = units * scale + (fraction % scale);
          const text = formatAmount(m, cur.code);
          expect(text).toMatch(
            cur.minorDigits === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${cur.minorDigits}}$`),
          );
          expect(parseAmount(text, cur.code)).toEqual({ ok: true, minor: m });
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('parse → format is canonical (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,15}(\.\d{1,2})?$/), (text) => {
        const r = parseAmount(text, 'USD');
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const canonical = formatAmount(r.minor, 'USD');
        expect(parseAmount(canonical, 'USD')).toEqual(r);
        // Same value as the input, compared as exact decimals.
        const [i, f = ''] = text.split('.');
        expect(BigInt(i! + f.padEnd(2, '0'))).toBe(r.minor);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('human money', () => {
  it('groups thousands and joins currencies', () => {
    expect(formatMoney(123450n, 'USD')).toBe('USD 1,234.50');
    expect(formatMoney(123456789n, 'JPY')).toBe('JPY 123,456,789');
    const totals = new Map<string, bigint>();
    addToTotals(totals, 'usd', 123400n);
    addToTotals(totals, 'EUR', 1000n);
    addToTotals(totals, 'USD', 50n);
    // By currency code, whatever order they were met in: every line lists them alike (issue 27).
    expect(formatMoneyTotals(totals)).toBe('EUR 10.00 · USD 1,234.50');
    expect(
      formatMoneyTotals(
        new Map([
          ['USD', 1n],
          ['EUR', 2n],
          ['CHF', 3n],
        ]),
      ),
    ).toBe('CHF 0.03 · EUR 0.02 · USD 0.01');
    expect(formatMoneyTotals(new Map())).toBe('');
  });
});
