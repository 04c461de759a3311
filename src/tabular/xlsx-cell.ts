// One cell of a sheet turned into the text of a field: the one conversion every reader of a
// workbook's cells uses — the bulk reader (xlsx-reader.ts) for each row, and `payops inspect
// --cells` for every cell of every sheet — so what inspect shows is what bulk reads. And what is
// wrong with a cell a command reads, beyond what row validation checks (an error cell, a formula
// without its result, a number a spreadsheet rounded).
import { quote, terminalSafe } from '../quote.js';
import { plainNumber, SPREADSHEET_DIGITS, shownNumber } from '../sheets/cell-number.js';
import { formatOf, idAsShown, type StyleFormats } from '../sheets/number-format.js';
import type { ColumnFormat, RawCell, SharedStrings } from '../sheets/workbook.js';

/**
 * Columns that hold money: `amount` and `…_amount`, the rule the results writer formats them by
 * (output/xlsx-writer.ts). Their number cells are read as the sheet shows them (shownNumber);
 * every other column (ids above all) keeps every stored digit, so an id a spreadsheet rounded or
 * left inexact is refused, never rounded into another id.
 */
export function isAmountColumn(normalised: string): boolean {
  return normalised === 'amount' || normalised.endsWith('_amount');
}

/** A cell's text as a CSV would hold it (no checks, no number format); `shown`: a number as the sheet shows it. */
export function cellText(
  c: { type: string; value: string | undefined },
  strings: SharedStrings,
  mark: '.' | ',' = '.',
  shown = false,
): string {
  const v = c.value;
  if (v === undefined) return '';
  switch (c.type) {
    case 's':
      // `<v/>` is an empty cell, not shared string 0; an index that is no number names no string.
      return v.trim() === '' || !Number.isInteger(+v) ? '' : (strings.get(+v) ?? '');
    case 'n': {
      // Plain decimal text has no thousands groups: its one dot is the decimal point.
      const text = (shown ? shownNumber(v) : plainNumber(v))?.text;
      if (text === undefined) return v;
      return mark === ',' ? text.replace('.', ',') : text;
    }
    case 'b':
      return v === '1' ? 'TRUE' : 'FALSE';
    default:
      return v;
  }
}

/** What cellField makes of a cell (one object, reused from cell to cell: this runs per cell). */
export interface CellField {
  /** The field's text. */
  text: string;
  /** A number whose format's display is not certain: why (the text keeps the stored number). */
  formatProblem: string | undefined;
  /** The number format the column is seen with (for a results workbook), if the cell tells one. */
  format: ColumnFormat | undefined;
}

/** A CellField to pass to cellField. */
export function cellFieldHolder(): CellField {
  return { text: '', formatProblem: undefined, format: undefined };
}

/**
 * A cell as a field, into `out`. `amount`: the cell is in an amount column, whose number is the
 * stored double rounded to the 15 significant digits the sheet shows (cell-number.ts shownNumber),
 * never through its format. Any other number keeps every stored digit and is shown as its number
 * format shows it when that is certain (General, Text, `0`, zero-padded `00000`:
 * number-format.ts idAsShown); under any other format (a date, a percentage, decimals) the text is
 * the exact stored decimal, with `formatProblem` saying why (a command refuses it in a column it
 * reads). Strings as they are, booleans TRUE/FALSE, an error cell as its text (`#N/A`), a formula
 * saved without its result and an empty cell ''. `mark`: the decimal mark numbers are written with.
 */
export function cellField(
  c: RawCell,
  strings: SharedStrings,
  formats: StyleFormats,
  amount: boolean,
  mark: '.' | ',',
  out: CellField,
): CellField {
  out.text = cellText(c, strings, mark, amount);
  out.formatProblem = undefined;
  out.format = undefined;
  // An id (any column but an amount) as the sheet displays it: `00000` shows 1234 as 01234.
  if (!amount && c.type === 'n' && out.text !== '') {
    if (c.style === undefined) out.format = 'plain';
    else {
      const plain = plainNumber(c.value ?? '');
      if (plain !== undefined && plain.significant <= SPREADSHEET_DIGITS) {
        const format = formatOf(formats, c.style);
        const id = idAsShown(plain.text, format);
        if ('text' in id) {
          out.text = mark === ',' ? id.text.replace('.', ',') : id.text;
          out.format = 'plain';
        } else {
          out.formatProblem = id.problem;
          out.format = format;
        }
      }
    }
  }
  return out;
}

/** A text cell (`t="s"`) whose index the shared strings table does not hold: its text is lost, never empty. */
export function unknownString(c: RawCell, strings: SharedStrings): boolean {
  const v = c.value;
  if (c.type !== 's' || v === undefined || v.trim() === '') return false;
  return !Number.isInteger(+v) || strings.get(+v) === undefined;
}

/** The problem of a cell unknownString finds. */
export function unknownStringProblem(
  c: RawCell,
  strings: SharedStrings,
): { message: string; expected: string } {
  return {
    message: `the cell names shared string ${quote((c.value ?? '').slice(0, 20))}, but the workbook's shared strings hold ${strings.size} string${strings.size === 1 ? '' : 's'} (a damaged file)`,
    expected:
      'a cell whose text is in the workbook: open the file in the spreadsheet program and save it again',
  };
}

/**
 * A formula saved without its result: no `<v>`, or an empty one (openpyxl writes `<v/>`). An
 * empty `<v>` of a `t="str"` cell is a saved result, the empty text (`=IF(A2="";"";A2)`).
 */
export function noResult(c: RawCell): boolean {
  return c.formula !== undefined && (c.value === undefined || (c.value === '' && c.type !== 'str'));
}

/** What is wrong with a cell a command reads, beyond what row validation checks. */
export function cellProblem(
  c: RawCell,
  text: string,
  shown: boolean,
): { message: string; expected: string } | undefined {
  if (c.type === 'e') {
    return {
      message: `the cell holds the error ${text}`,
      expected: 'a value (fix the formula or type the value)',
    };
  }
  if (noResult(c)) {
    const f = c.formula
      ? ` (=${terminalSafe(c.formula.length > 40 ? `${c.formula.slice(0, 40)}…` : c.formula)})`
      : '';
    return {
      message: `the cell holds a formula${f} with no saved result (the program that wrote the file saved it without computing it)`,
      expected: 'a value: opening and saving the file in a spreadsheet program computes it',
    };
  }
  if (c.type !== 'n') return undefined;
  const n = (shown ? shownNumber : plainNumber)(c.value ?? '');
  if (n === undefined)
    return { message: `the cell holds ${quote(c.value ?? '')}, not a number`, expected: 'a number' };
  if (n.integerDigits > SPREADSHEET_DIGITS) {
    return shown
      ? {
          message: `the cell holds the number ${n.text}: a spreadsheet keeps only ${SPREADSHEET_DIGITS} digits of a number, so this amount was rounded`,
          expected: `an amount of at most ${SPREADSHEET_DIGITS} digits, or the amount as text`,
        }
      : {
          message: `the cell holds the number ${n.text}: a spreadsheet keeps only ${SPREADSHEET_DIGITS} digits of a number, so a longer id was rounded`,
          expected: 'ids stored as text: format the column as Text and enter or import the ids again',
        };
  }
  // Only outside amount columns: an amount was rounded to what the sheet shows (shownNumber).
  if (n.significant > SPREADSHEET_DIGITS) {
    return {
      message: `the cell holds ${n.text}, a number that is not exact (a calculation's binary rounding): a spreadsheet shows only ${SPREADSHEET_DIGITS} of its digits`,
      expected: 'the value as text (format the column as Text and enter the value again), or a whole number',
    };
  }
  return undefined;
}
