import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CurrencyDigits,
  countryProblem,
  dmyDateProblem,
  formatAmount,
  isoDateProblem,
  loadCurrencyDigits,
  parseAmount,
  parseCompactTime,
  schemaProblem,
  uuidProblem,
} from '../../../src/sandbox/fields.js';

let currencies: CurrencyDigits;
beforeAll(async () => {
  currencies = await loadCurrencyDigits();
});

describe('amounts', () => {
  it('knows ISO 4217 minor digits', () => {
    expect(currencies.get('USD')).toBe(2);
    expect(currencies.get('JPY')).toBe(0);
    expect(currencies.get('BHD')).toBe(3);
    expect(currencies.has('XYZ')).toBe(false);
  });

  it('parses decimals into minor units, at most the currency digits', () => {
    expect(parseAmount('10.00', 2)).toBe(1000n);
    expect(parseAmount('10.5', 2)).toBe(1050n);
    expect(parseAmount('10', 2)).toBe(1000n);
    expect(parseAmount('1000', 0)).toBe(1000n);
    expect(parseAmount('1.234', 3)).toBe(1234n);
    for (const bad of ['10.001', '-1.00', '1e3', ' 1.00', '1.', '.5', '', '1,00', '0x10']) {
      expect(parseAmount(bad, 2), bad).toBeUndefined();
    }
    expect(parseAmount('1000.0', 0)).toBeUndefined();
  });

  it('format and parse round-trip', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }), fc.constantFrom(0, 2, 3), (minor, digits) => {
        expect(parseAmount(formatAmount(minor, digits), digits)).toBe(minor);
      }),
    );
    expect(formatAmount(5n, 2)).toBe('0.05');
    expect(formatAmount(1234n, 0)).toBe('1234');
  });
});

describe('formats', () => {
  it('dates', () => {
    expect(isoDateProblem('2026-02-28')).toBeUndefined();
    expect(isoDateProblem('2026-02-30')).toBeDefined();
    expect(isoDateProblem('28-02-2026')).toBeDefined();
    expect(dmyDateProblem('29-02-2024')).toBeUndefined();
    // Issue 16 changed this on purpose: birth_date's shape only (the spec does not say which
    // two-digit group is the day), so neither 29-02-2025 nor 12-31-1990 is refused.
    expect(dmyDateProblem('29-02-2025')).toBeUndefined();
    expect(dmyDateProblem('12-31-1990')).toBeUndefined();
    expect(dmyDateProblem('1990-12-31')).toBeDefined();
    expect(dmyDateProblem('1-2-1990')).toBeDefined();
    expect(parseCompactTime('20261122013045')).toBe(Date.UTC(2026, 10, 22, 1, 30, 45));
    expect(parseCompactTime('20261322013045')).toBeUndefined();
    expect(parseCompactTime('2026-11-22')).toBeUndefined();
  });

  it('countries and UUIDs', () => {
    expect(countryProblem('US')).toBeUndefined();
    expect(countryProblem('usa')).toBeDefined();
    expect(countryProblem(1)).toBe('must be a string');
    expect(uuidProblem('123e4567-e89b-12d3-a456-426614174000')).toBeUndefined();
    expect(uuidProblem('123e4567e89b12d3a456426614174000')).toBeDefined();
  });

  it('schema problems name the nested path', () => {
    const schema = {
      a: 'string',
      list: [{ price: { currency: 'currency' } }],
      o: { when: 'isoDate' },
    } as const;
    expect(schemaProblem({ a: 'x', o: { when: '2026-01-01' } }, schema, currencies)).toBeUndefined();
    // Strict, as a real gateway: unknown fields at any depth and nulls are refused, by path.
    expect(schemaProblem({ a: 'x', extra: 1 }, schema, currencies)).toBe(
      'extra is not a field of this request',
    );
    expect(schemaProblem({ o: { when: '2026-01-01', hour: '1' } }, schema, currencies)).toBe(
      'o.hour is not a field of this request',
    );
    expect(schemaProblem({ list: [{ price: { currency: 'USD', x: 1 } }] }, schema, currencies)).toBe(
      'list[0].price.x is not a field of this request',
    );
    expect(schemaProblem({ a: null }, schema, currencies)).toMatch(/^a must not be null/);
    expect(schemaProblem({ o: { when: null } }, schema, currencies)).toMatch(/^o\.when must not be null/);
    expect(schemaProblem({ a: 1 }, schema, currencies)).toBe('a must be a string');
    expect(schemaProblem({ list: [{}, { price: { currency: 'usd' } }] }, schema, currencies)).toMatch(
      /^list\[1\]\.price\.currency must be an ISO 4217/,
    );
    expect(schemaProblem({ list: {} }, schema, currencies)).toBe('list must be an array');
    expect(schemaProblem({ o: { when: '2026/01/01' } }, schema, currencies)).toBe(
      'o.when must be a date YYYY-MM-DD',
    );
  });
});
