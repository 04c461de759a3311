// ISO 4217 currency rules from the `currency-codes` package (the published ISO list), so the set of
// codes and their minor digits is not maintained by hand here.

import { createRequire } from 'node:module';

export interface CurrencyInfo {
  code: string;
  /** ISO 4217 exponent: JPY 0, USD 2, KWD 3, CLF 4. */
  minorDigits: number;
}

interface CurrencyCodeRecord {
  code: string;
  digits: number;
}

// Codes that ISO lists but that never denote money a merchant can be paid in:
// XXX "no currency" and XTS "reserved for testing".
const NOT_MONEY = new Set(['XXX', 'XTS']);

// A memo of constant reference data, built on first lookup (not on import) because validation asks
// once per row and a linear scan of ~180 entries per row is measurable at a million rows. It never
// changes after it is built, so it carries no per-invocation state.
let byCode: ReadonlyMap<string, CurrencyInfo> | undefined;

function lookupTable(): ReadonlyMap<string, CurrencyInfo> {
  if (byCode === undefined) {
    // currency-codes is CommonJS; createRequire keeps the lookup synchronous.
    const require = createRequire(import.meta.url);
    const data = (require('currency-codes') as { data: CurrencyCodeRecord[] }).data;
    const map = new Map<string, CurrencyInfo>();
    for (const rec of data) {
      if (NOT_MONEY.has(rec.code)) continue;
      const minorDigits = Number.isInteger(rec.digits) && rec.digits >= 0 ? rec.digits : 0;
      map.set(rec.code, Object.freeze({ code: rec.code, minorDigits }));
    }
    byCode = map;
  }
  return byCode;
}

export function normaliseCurrency(input: string): string {
  return input.trim().toUpperCase();
}

/** The ISO 4217 entry for a code (case-insensitive, trimmed), or undefined when it is not one. */
export function currencyInfo(code: string): CurrencyInfo | undefined {
  const table = lookupTable();
  // Most files already hold upper-case codes: skip the normalising copy for them.
  return table.get(code) ?? table.get(normaliseCurrency(code));
}

/** Every ISO 4217 code payops accepts, sorted by code. */
export function allCurrencies(): CurrencyInfo[] {
  return [...lookupTable().values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}
