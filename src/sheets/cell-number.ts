// A number cell's stored text (`<v>` of the sheet XML: the shortest decimal that reads back as the
// cell's double, e.g. `12.5`, `1.2345E+10`, `0.30000000000000004`) as plain decimal text, by string
// work only: no float is ever multiplied or rounded, so `12.5` stays exactly 12.5 and a value a
// spreadsheet calculation left inexact stays visibly inexact (and is refused, never rounded here).

export interface PlainNumber {
  /** Plain decimal text, no exponent: `-12.5`, `12345678901`, `0.001`. */
  text: string;
  /** Significant digits (leading and trailing zeros of the digit string not counted). */
  significant: number;
  /** Digits before the decimal point (0 for `0.5`). */
  integerDigits: number;
}

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Spreadsheets keep 15 significant digits: more than that in a number cell was rounded or is inexact. */
export const SPREADSHEET_DIGITS = 15;

/** `v` as plain decimal text, or undefined when it is not a number. */
export function plainNumber(v: string): PlainNumber | undefined {
  const m = NUMBER.exec(v.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const sign = m[1] === '-' ? '-' : '';
  const intPart = m[2]!;
  const frac = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return undefined;
  // All digits, and where the point falls among them.
  let digits = intPart + frac;
  let point = intPart.length + exp;
  // Strip leading zeros (moving the point) and trailing zeros.
  const lead = /^0*/.exec(digits)![0].length;
  digits = digits.slice(lead);
  point -= lead;
  digits = digits.replace(/0+$/, '');
  if (digits === '') return { text: '0', significant: 0, integerDigits: 0 };
  let text: string;
  if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) text = digits + '0'.repeat(point - digits.length);
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return { text: sign + text, significant: digits.length, integerDigits: Math.max(0, point) };
}
