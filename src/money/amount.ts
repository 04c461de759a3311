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

/** What an amount should look like; in a decimal-comma file, with a comma (a currency with decimals). */
function expectedText(currency: string, minorDigits: number, mark: DecimalMark = '.'): string {
  const decimals =
    minorDigits === 0
      ? `no decimals for ${currency}`
      : `at most ${minorDigits} decimal${minorDigits === 1 ? '' : 's'} for ${currency}`;
  if (mark === ',' && minorDigits > 0) {
    return `a decimal with a comma, such as ${example(minorDigits).replace('.', ',')}, ${decimals}`;
  }
  return `a plain decimal with a dot, such as ${example(minorDigits)}, ${decimals}`;
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

/** Per-currency totals for human summaries: `EUR 10.00 · USD 1,234.50` (by currency code). */
export function formatMoneyTotals(totals: ReadonlyMap<string, bigint>): string {
  // Currencies by code, the same order in every line: first-seen order differed from line to line
  // (the file's order, the order results came back in) and a reader compared the wrong pairs.
  return [...totals]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, minor]) => formatMoney(minor, currency))
    .join(' · ');
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

// ---------------------------------------------------------------------------------------------
// Amounts as spreadsheets in other locales write them: `49,99`, `12.000,00`, `12 000,00`,
// `"12,000.00"`. The one function every reader of amounts calls (CSV rows, .xlsx cells, payouts).

/** The character between whole units and decimals. */
export type DecimalMark = '.' | ',';

/** Spaces a locale groups thousands with: space, no-break space (fr-FR), narrow no-break space. */
const GROUP_SPACES = ' \u00a0\u202f';

/**
 * How an amount is read. `established`: the decimal mark is known for the whole file (a flag, the
 * profile, or detection), so the other mark (or a space) can only group thousands — `1.234` in a
 * comma file is 1234. Not established (a `,` file by default): `1,234` could be either, and is refused.
 */
export interface AmountStyle {
  mark: DecimalMark;
  established: boolean;
}

export const DOT_DEFAULT: AmountStyle = Object.freeze({ mark: '.', established: false });

function fail(code: string, digits: number, message: string, hint?: string): ParseAmountResult {
  const expected = expectedText(code, digits);
  return hint === undefined ? { ok: false, message, expected } : { ok: false, message, expected, hint };
}

/**
 * `text` → minor units of a currency already looked up (`code`, `digits` decimals), read in `style`.
 * Thousands groups must be strict groups of three, one separator kind per amount; decimals beyond
 * the currency's are accepted only when they are zeros for a currency without decimals (`12000.00`
 * JPY). Exact: the text is rewritten to the canonical dot form and read by parseAmountDigits.
 * Never throws.
 */
export function parseAmountText(
  text: string,
  code: string,
  digits: number,
  style: AmountStyle = DOT_DEFAULT,
): ParseAmountResult {
  const r = readAmount(text, code, digits, style);
  if (r.ok || style.mark === '.') return r;
  // What is expected, in the file's own style (every refusal above says expectedText(code, digits)).
  return { ...r, expected: expectedText(code, digits, style.mark) };
}

function readAmount(text: string, code: string, digits: number, style: AmountStyle): ParseAmountResult {
  const s = String(text)
    .trim()
    .replace(/^[\u00a0\u202f\ufeff]+|[\u00a0\u202f]+$/g, '');
  const mark = style.mark;
  const other = mark === '.' ? ',' : '.';
  let marks = 0;
  let others = 0;
  let spaces = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') continue;
    if (c === mark) marks++;
    else if (c === other) others++;
    else if (GROUP_SPACES.includes(c)) spaces++;
    else return currencySymbolHint(parseAmountDigits(s, code, digits));
  }
  // The plain form (and every refusal that is not about marks): the hand-written fast path.
  if (mark === '.' && others === 0 && spaces === 0) return zeroDecimals(s, code, digits, style.established);
  if (mark === '.' && marks === 0 && others === 1 && spaces === 0 && !/^\d{1,3},\d{3}$/.test(s)) {
    return commaHint(parseAmountDigits(s, code, digits));
  }
  const at = marks === 0 ? s.length : s.lastIndexOf(mark);
  if (marks > 1) {
    return fail(
      code,
      digits,
      `the amount ${quote(s)} has more than one decimal mark ${quote(mark)}`,
      mark === ','
        ? 'the file uses a decimal comma: write e.g. 1.234,56 or 1234,56'
        : 'write e.g. 1,234.56 or 1234.56',
    );
  }
  const whole = s.slice(0, at);
  const frac = at < s.length ? s.slice(at + 1) : '';
  if (marks === 0 && others === 1 && spaces === 0 && !/^\d{1,3}\.\d{3}$/.test(s) && mark === ',') {
    // `12.34` in a comma file: a decimal point where the file writes decimal commas.
    return fail(
      code,
      digits,
      `the amount ${quote(s)} has a decimal point, but the file's decimal mark is a comma (mixed decimal marks)`,
      `write ${s.replace('.', ',')}`,
    );
  }
  if (at < s.length && (whole === '' || frac === '' || !/^\d+$/.test(frac))) {
    return fail(code, digits, `${quote(s)} is not an amount`);
  }
  let intDigits = whole;
  if (others + spaces > 0) {
    const sep = whole.replace(/\d/g, '');
    const one = sep.split('').every((c) => c === sep[0]);
    const strict = one && new RegExp(`^\\d{1,3}(?:${escapeRe(sep[0] ?? '')}\\d{3})+$`).test(whole);
    // A lone group after the other mark (`1,234` in a dot file, `1.234` in a comma file) is
    // thousands only when the file's mark is known; otherwise it could be either.
    const lone = marks === 0 && sep.length === 1 && sep[0] === other;
    // Not thousands groups in a dot file: the plain parser's diagnosis says what it looks like.
    if (!strict && mark === '.') return commaHint(parseAmountDigits(s, code, digits));
    if (!strict || (lone && !style.established)) return ambiguous(s, code, digits, mark, strict);
    intDigits = whole.replace(/\D/g, '');
  }
  return zeroDecimals(frac === '' ? intDigits : `${intDigits}.${frac}`, code, digits, style.established);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What an amount with separators that are not strict thousands groups could mean, refused. */
function ambiguous(
  s: string,
  code: string,
  digits: number,
  mark: DecimalMark,
  strict: boolean,
): ParseAmountResult {
  if (strict) {
    // `1,234` in a file whose decimal mark is not known: a thousand and more, or one and decimals.
    const thousands = s.replace(/\D/g, '');
    const decimal = s.replace(/[^\d]/g, (c) => (c === ',' || c === '.' ? '.' : ''));
    return fail(
      code,
      digits,
      `the amount ${quote(s)} is ambiguous: ${thousands} (thousands separator) or ${decimal} (decimal ${s.includes(',') ? 'comma' : 'point'})`,
      s.includes(',') && mark === '.'
        ? 'write it without thousands separators; a file with decimal commas: give --decimal-comma'
        : 'write it without thousands separators',
    );
  }
  const r = parseAmountDigits(s, code, digits);
  const why = r.ok ? undefined : r;
  return fail(
    code,
    digits,
    `the amount ${quote(s)} mixes separators that are not thousands groups of three for a file whose decimal mark is ${quote(mark)}`,
    why?.hint ??
      (mark === ','
        ? 'write e.g. 1.234,56 (or 1234,56); a file with dots for decimals needs the decimal mark "." (not --decimal-comma)'
        : 'write e.g. 1,234.56 (or 1234.56); a file with decimal commas: give --decimal-comma'),
  );
}

/**
 * parseAmountDigits, with `12000.00` accepted for a currency without decimals (zeros only). Not
 * `12.000` while the file's decimal mark is not known: that is twelve thousand written with a
 * dot for thousands as often as twelve, and is refused as ambiguous rather than read as 12.
 */
function zeroDecimals(s: string, code: string, digits: number, established: boolean): ParseAmountResult {
  if (digits === 0) {
    if (!established && /^\d{1,3}\.000$/.test(s)) {
      return fail(
        code,
        digits,
        `the amount ${quote(s)} is ambiguous: ${s.replace('.', '')} (thousands separator) or ${s.slice(0, -4)} (${code} has no decimals)`,
        `write ${s.replace('.', '')} or ${s.slice(0, -4)}, without a dot`,
      );
    }
    const m = /^(\d+)\.0+$/.exec(s);
    if (m) return parseAmountDigits(m[1]!, code, digits);
  }
  return currencySymbolHint(parseAmountDigits(s, code, digits));
}

/** A decimal comma in a file read with dots: the option that reads it is named first. */
function commaHint(r: ParseAmountResult): ParseAmountResult {
  if (r.ok || !r.message.endsWith('uses a decimal comma')) return r;
  return {
    ...r,
    hint: `give --decimal-comma (or the profile's decimal_mark ",") to read decimal commas, or ${r.hint}`,
  };
}

/** A currency symbol's refusal says how to stop the spreadsheet writing one. */
function currencySymbolHint(r: ParseAmountResult): ParseAmountResult {
  if (r.ok || !r.message.includes('currency symbol')) return r;
  return { ...r, hint: `${r.hint}: format the amount columns as Number, not Currency, before saving` };
}

/** parseAmountText by currency code and decimal mark (the mark known for the whole file). */
export function parseLocaleAmount(text: string, currency: string, mark: DecimalMark): ParseAmountResult {
  const info = currencyInfo(String(currency));
  if (info === undefined) return parseAmount(text, currency);
  return parseAmountText(text, info.code, info.minorDigits, { mark, established: true });
}
