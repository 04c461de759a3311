// Decimal amount text ⇄ integer minor units (bigint). Amounts are parsed once, at the edge, and
// formatted back only for the wire and for people. No float ever touches an amount.

import { quote } from '../quote.js';
import { currencyInfo, normaliseCurrency } from './currency.js';

export type ParseAmountResult =
  | { ok: true; minor: bigint }
  | { ok: false; message: string; expected: string; hint?: string };

/** Integer digits beyond this are refused: no real order is that large, and it keeps totals far from any limit. */
export const MAX_INTEGER_DIGITS = 15;

const EXPONENT = /^[+-]?(?:\d+\.?\d*|\.\d+)[eE][+-]?\d+$/;
const SYMBOL = /[$€£¥₹₩₽¢₺₫₱₪₦฿]|^[A-Za-z]{3}\s*\d|\d\s*[A-Za-z]{3}$/;

function example(minorDigits: number): string {
  return minorDigits === 0 ? '1250' : `12.${'5'.padEnd(minorDigits, '0')}`;
}

function expectedText(currency: string, minorDigits: number): string {
  const decimals =
    minorDigits === 0
      ? `no decimals for ${currency}`
      : `at most ${minorDigits} decimal${minorDigits === 1 ? '' : 's'} for ${currency}`;
  return `a plain decimal with a dot, such as ${example(minorDigits)} (${decimals})`;
}

/**
 * Parse a plain decimal (`12`, `12.5`, `12.50`) into minor units of `currency`.
 * Refuses, with a hint: separators and decimal commas, signs, exponents, spaces inside,
 * currency symbols, empty text, more decimals than the currency has, more than 15 integer digits.
 * Never throws.
 */
export function parseAmount(text: string, currency: string): ParseAmountResult {
  const info = currencyInfo(String(currency));
  if (info === undefined) {
    return {
      ok: false,
      message: `cannot check the amount: ${quote(normaliseCurrency(String(currency)))} is not an ISO 4217 currency code`,
      expected: 'a three-letter ISO 4217 currency code such as USD, EUR or JPY',
    };
  }
  return parseAmountDigits(text, info.code, info.minorDigits);
}

/**
 * parseAmount for a currency already looked up (the bulk validator's hot path). Scans the text by
 * hand: a regular expression and the error texts cost more than the rest at a million rows.
 */
export function parseAmountDigits(text: string, code: string, digits: number): ParseAmountResult {
  let s = String(text);
  let start = 0;
  let end = s.length;
  while (start < end && isBlank(s.charCodeAt(start))) start++;
  while (end > start && isBlank(s.charCodeAt(end - 1))) end--;
  if (start !== 0 || end !== s.length) s = s.slice(start, end);
  const fail = (message: string, hint?: string): ParseAmountResult => {
    const expected = expectedText(code, digits);
    return hint === undefined ? { ok: false, message, expected } : { ok: false, message, expected, hint };
  };
  if (s === '') return fail('the amount is empty');

  let dot = -1;
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) continue;
    if (c === 46 && dot < 0 && i > 0 && i < s.length - 1) {
      dot = i;
      continue;
    }
    plain = false;
    break;
  }
  if (!plain) return fail(...diagnose(s, digits));

  const intEnd = dot < 0 ? s.length : dot;
  let intStart = 0;
  while (intStart < intEnd - 1 && s.charCodeAt(intStart) === 48) intStart++;
  const intDigits = intEnd - intStart;
  if (intDigits > MAX_INTEGER_DIGITS) {
    return fail(`the amount ${quote(s)} has more than ${MAX_INTEGER_DIGITS} digits before the decimal point`);
  }
  const fracDigits = dot < 0 ? 0 : s.length - dot - 1;
  if (fracDigits > digits) {
    return fail(
      digits === 0
        ? `${code} has no minor unit, so ${quote(s)} cannot have decimals`
        : `${quote(s)} has ${fracDigits} decimals but ${code} has ${digits}`,
    );
  }
  const intPart = intStart === 0 && intEnd === s.length ? s : s.slice(intStart, intEnd);
  const frac = dot < 0 ? '' : s.slice(dot + 1);
  const pad = digits - fracDigits;
  return { ok: true, minor: BigInt(pad === 0 ? intPart + frac : intPart + frac + ZEROS.slice(0, pad)) };
}

const ZEROS = '0000000000';

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 0xfeff;
}

/** Why a non-plain amount was refused, and what to do about it. */
function diagnose(s: string, digits: number): [string, string?] {
  if (EXPONENT.test(s)) {
    return [
      `the amount ${quote(s)} is in scientific notation`,
      'format the column as Number with fixed decimals (or as Text) in the spreadsheet before saving',
    ];
  }
  if (s.startsWith('-'))
    return [`the amount ${quote(s)} is negative`, 'amounts are positive; leave out the sign'];
  if (s.startsWith('+')) return [`the amount ${quote(s)} has a sign`, 'leave out the "+"'];
  if (SYMBOL.test(s)) {
    return [
      `the amount ${quote(s)} contains a currency symbol or code`,
      'put only the number in the amount column; the currency goes in the currency column',
    ];
  }
  const comma = s.indexOf(',');
  const dot = s.indexOf('.');
  if (comma >= 0) {
    const sample = digits === 0 ? '1234' : `1234.${'5'.padEnd(digits, '6')}`;
    let kind: string;
    let guess: string | undefined;
    if (dot >= 0 && dot < comma) {
      kind = 'uses a dot for thousands and a comma for decimals';
      guess = s.replace(/\./g, '').replace(',', '.');
    } else if (dot >= 0) {
      kind = 'has a thousands separator';
      guess = s.replace(/,/g, '');
    } else if (/^\d{1,3}(?:,\d{3})+$/.test(s)) {
      kind = 'has a comma (thousands separator or decimal comma)';
      // With fewer than 3 decimals in the currency, 1,234 can only mean one thousand two hundred…
      guess = digits < 3 || s.indexOf(',') !== s.lastIndexOf(',') ? s.replace(/,/g, '') : undefined;
    } else {
      kind = 'uses a decimal comma';
      guess = s.replace(',', '.');
    }
    const valid = guess !== undefined && /^\d+(?:\.\d+)?$/.test(guess) && fractionOf(guess) <= digits;
    return [
      `the amount ${quote(s)} ${kind}`,
      valid
        ? `write ${guess} (no thousands separators, a dot for decimals)`
        : `write it without thousands separators and with a dot for decimals, e.g. ${sample}`,
    ];
  }
  if (/\s/.test(s)) {
    return [`the amount ${quote(s)} contains spaces`, 'remove the spaces (no thousands separators)'];
  }
  if ((s.match(/\./g)?.length ?? 0) > 1) {
    return [
      `the amount ${quote(s)} has more than one dot`,
      'use no thousands separators and one dot for decimals',
    ];
  }
  if (/['’_]/.test(s)) {
    return [`the amount ${quote(s)} has a digit separator`, 'remove the separators'];
  }
  if (/^\.\d+$/.test(s)) return [`the amount ${quote(s)} has no digit before the dot`, `write 0${s}`];
  if (/^\d+\.$/.test(s)) return [`the amount ${quote(s)} ends with a dot`, `write ${s.slice(0, -1)}`];
  return [`${quote(s)} is not an amount`];
}

function fractionOf(plain: string): number {
  const dot = plain.indexOf('.');
  return dot < 0 ? 0 : plain.length - dot - 1;
}

/** Canonical wire text: `10.00` for USD, `1000` for JPY, `1.500` for KWD. Throws on an unknown currency. */
export function formatAmount(minor: bigint, currency: string): string {
  const info = currencyInfo(currency);
  if (info === undefined) throw new Error(`formatAmount: unknown currency ${JSON.stringify(currency)}`);
  return formatMinor(minor, info.minorDigits, false);
}

function formatMinor(minor: bigint, digits: number, group: boolean): string {
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString();
  let intPart = digits === 0 ? abs : abs.length > digits ? abs.slice(0, abs.length - digits) : '0';
  const frac = digits === 0 ? '' : abs.padStart(digits, '0').slice(-digits);
  if (group) intPart = intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${intPart}${frac === '' ? '' : `.${frac}`}`;
}

/** Human text for one amount with thousands grouping: `USD 1,234.50`. Unknown codes show 2 decimals. */
export function formatMoney(minor: bigint, currency: string): string {
  const info = currencyInfo(currency);
  return `${normaliseCurrency(currency)} ${formatMinor(minor, info?.minorDigits ?? 2, true)}`;
}

/** Per-currency totals for human summaries: `USD 1,234.50 · EUR 10.00` (in insertion order). */
export function formatMoneyTotals(totals: Map<string, bigint>): string {
  const parts: string[] = [];
  for (const [currency, minor] of totals) parts.push(formatMoney(minor, currency));
  return parts.join(' · ');
}

/** Add `minor` to the running total of `currency` in `totals` (normalised code). */
export function addToTotals(totals: Map<string, bigint>, currency: string, minor: bigint): void {
  // Keys are normalised codes: a code found as it is needs no normalising copy (three per row).
  const known = totals.get(currency);
  if (known !== undefined) {
    totals.set(currency, known + minor);
    return;
  }
  const code = normaliseCurrency(currency);
  totals.set(code, (totals.get(code) ?? 0n) + minor);
}
