// A number cell's stored text (`<v>` of the sheet XML: the shortest decimal that reads back as the
// cell's double, e.g. `12.5`, `1.2345E+10`, `0.30000000000000004`) as plain decimal text, by string
// work only: no float is ever multiplied or rounded, so `12.5` stays exactly 12.5. plainNumber keeps
// every stored digit; shownNumber is what the sheet shows (15 significant digits, see below).

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

/** A number as its sign, its significant digits (no leading or trailing zeros) and where the point falls. */
interface Digits {
  sign: '' | '-';
  digits: string;
  point: number;
}

function digitsOf(v: string): Digits | undefined {
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
  return { sign, digits, point };
}

function render({ sign, digits, point }: Digits): PlainNumber {
  if (digits === '') return { text: '0', significant: 0, integerDigits: 0 };
  let text: string;
  if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) text = digits + '0'.repeat(point - digits.length);
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return { text: sign + text, significant: digits.length, integerDigits: Math.max(0, point) };
}

/** `v` as plain decimal text with every stored digit, or undefined when it is not a number. */
export function plainNumber(v: string): PlainNumber | undefined {
  const d = digitsOf(v);
  return d === undefined ? undefined : render(d);
}

/**
 * `v` as the sheet shows it: rounded to 15 significant digits, Excel's display precision. Excel
 * stores a typed 10.2 as the shortest text of its double, `10.199999999999999` (openpyxl 3.0:
 * `64.09999999999999` for 64.1), and shows 10.2; this is that 10.2, worked out on the digits of the
 * text (never a float). Ties round half away from zero, as Excel's display and ROUND do. A number
 * with more than 15 integer digits is returned unrounded: the spreadsheet already rounded it (an
 * id), which the reader refuses rather than hides.
 */
export function shownNumber(v: string): PlainNumber | undefined {
  const d = digitsOf(v);
  if (d === undefined) return undefined;
  if (d.digits.length <= SPREADSHEET_DIGITS || d.point > SPREADSHEET_DIGITS) return render(d);
  const up = d.digits.charCodeAt(SPREADSHEET_DIGITS) >= 53; // the 16th digit is 5 or more
  let kept = d.digits.slice(0, SPREADSHEET_DIGITS);
  let point = d.point;
  if (up) {
    // Add one to the last kept digit, carrying: 999…9 becomes 1000…0 with the point one further.
    let i = kept.length - 1;
    while (i >= 0 && kept[i] === '9') i--;
    if (i < 0) {
      kept = '1';
      point += 1;
    } else kept = kept.slice(0, i) + String.fromCharCode(kept.charCodeAt(i) + 1);
  }
  return render({ sign: d.sign, digits: kept.replace(/0+$/, ''), point });
}
