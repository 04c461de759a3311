// Issue 14: an amount written the way each locale's spreadsheet writes it reads back as the same
// minor units (money/amount.ts parseAmountText), for random amounts and currencies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AmountStyle,
  formatAmount,
  parseAmountText,
  parseLocaleAmount,
} from '../../../src/money/amount.js';
import { currencyInfo } from '../../../src/money/currency.js';

/** How a locale writes minor units: decimal mark, thousands separator ('' = none). */
const STYLES: Record<string, { mark: '.' | ','; group: string }> = {
  'en-US': { mark: '.', group: ',' },
  'en-US plain': { mark: '.', group: '' },
  'de-DE': { mark: ',', group: '.' },
  'de-DE plain': { mark: ',', group: '' },
  'fr-FR': { mark: ',', group: '\u202f' },
  'fr-FR nbsp': { mark: ',', group: '\u00a0' },
  'sv-SE space': { mark: ',', group: ' ' },
};

function write(
  minor: bigint,
  digits: number,
  style: { mark: string; group: string },
  zeros: boolean,
): string {
  const s = minor.toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? s : s.slice(0, s.length - digits);
  const frac = digits === 0 ? (zeros ? '00' : '') : s.slice(s.length - digits);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, style.group);
  return frac === '' ? grouped : `${grouped}${style.mark}${frac}`;
}

describe('amounts as each locale writes them', () => {
  it('read back as the same minor units (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 14n - 1n }),
        fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'CLF', 'GBP'),
        fc.constantFrom(...Object.keys(STYLES)),
        fc.boolean(),
        (minor, currency, locale, zeros) => {
          const info = currencyInfo(currency)!;
          const style = STYLES[locale]!;
          const text = write(minor, info.minorDigits, style, zeros);
          const established: AmountStyle = { mark: style.mark, established: true };
          const r = parseAmountText(text, info.code, info.minorDigits, established);
          expect(r.ok && r.minor, `${text} ${currency} ${locale}`).toBe(minor);
          expect(parseLocaleAmount(text, currency, style.mark)).toEqual(r);
          // The canonical wire text of the result is the same whatever the locale.
          if (r.ok)
            expect(formatAmount(r.minor, currency)).toBe(
              write(minor, info.minorDigits, STYLES['en-US plain']!, false),
            );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('ambiguous or mixed spellings are refused, saying what they could mean', () => {
    const dot: AmountStyle = { mark: '.', established: false };
    const r = parseAmountText('1,234', 'EUR', 2, dot);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/ambiguous: 1234 \(thousands separator\) or 1\.234 \(decimal comma\)/);
    for (const [text, mark] of [
      ['1.2345,00', ','],
      ['12,34.5', '.'],
      ['1 23,00', ','],
      ['1.234.5', ','],
      ['12.50', ','],
      ['12,000.50', ','],
      ['€12,50', ','],
      ['12,50 EUR', ','],
    ] as const) {
      const got = parseAmountText(text, 'EUR', 2, { mark, established: true });
      expect(got.ok, `${text} (${mark})`).toBe(false);
    }
    const symbol = parseAmountText('€12,50', 'EUR', 2, { mark: ',', established: true });
    expect(!symbol.ok && symbol.hint).toMatch(/format the amount columns as Number, not Currency/);
    // JPY with zeros is JPY; with other decimals it stays refused.
    expect(parseLocaleAmount('12.000,00', 'JPY', ',')).toEqual({ ok: true, minor: 12000n });
    expect(parseLocaleAmount('12000.00', 'JPY', '.')).toEqual({ ok: true, minor: 12000n });
    expect(parseLocaleAmount('12000.50', 'JPY', '.').ok).toBe(false);
  });
});
