// Validation of bulk input rows: pure functions, no I/O. Every problem names file, line and field,
// says what is wrong and what would be right, so an operator can fix the whole file in one go.
// The checks across rows (the same transaction twice, refunds past the amount) are cross-row.ts.

import type { InputProblem } from '../../errors.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { type AmountStyle, formatAmount, parseAmountText } from '../../money/amount.js';
import { type CurrencyInfo, currencyInfo } from '../../money/currency.js';
import { hiddenTextProblem, invisibleIdProblem, quote } from '../../quote.js';
import { cellHoldsCardNumber } from '../../redact.js';
import type { CsvRow } from '../../tabular/csv-reader.js';
import { OPERATIONS } from '../operations.js';
import type { ValidRow } from '../types.js';
import { DEFAULT_RULES, type RowRules } from './row-rules.js';

export type BulkOp = BatchOperation;
export { type RowRules, rowRules } from './row-rules.js';
export type { ValidRow };

/** Which operation-specific columns an operation reads; each is checked here, field by field. */
interface OpColumns {
  /** refund_amount and refund_reason (required by the gateway: design.md §1.7). */
  refund: boolean;
  reviewFlag: boolean;
}
const opColumns = new Map<BulkOp, OpColumns>();

function columnsOf(op: BulkOp): OpColumns {
  let cols = opColumns.get(op);
  if (cols === undefined) {
    const fields = OPERATIONS[op].elementFields;
    cols = { refund: fields.includes('refund_amount'), reviewFlag: fields.includes('review_flag') };
    opColumns.set(op, cols);
  }
  return cols;
}

export type ValidateResult =
  | { ok: true; row: ValidRow; problems: [] }
  | { ok: false; row?: undefined; problems: InputProblem[] };

/** The key that matches a gateway result to its input row. */
export function orderKey(row: { transaction_id: string; order_no: string }): string {
  return `${row.transaction_id}\u0000${row.order_no}`;
}

const SCIENTIFIC = /^[+-]?\d+(?:[.,]\d+)?[eE][+-]?\d+$/;
const FORMULA = /^[=+@]/;
// Quotes, control characters and DEL never belong in an id; they come from broken exports.
const BAD_ID_CHAR = /["\u0000-\u001f\u007f]/;

/** Why an id (transaction_id, order_no) cannot be right, or undefined when it can. */
export function idProblem(value: string): { message: string; expected: string } | undefined {
  if (isPlainId(value)) return undefined;
  if (SCIENTIFIC.test(value)) {
    return {
      message: `${quote(value)} is a number that Excel turned into scientific notation; the real id is lost`,
      expected:
        'the id exactly as the gateway issued it: in Excel format the column as Text before entering or importing ids, then export again',
    };
  }
  if (FORMULA.test(value)) {
    return {
      message: `${quote(value)} begins with ${quote(value[0]!)}, which a spreadsheet runs as a formula`,
      expected: 'the id exactly as the gateway issued it, without a leading = + or @',
    };
  }
  if (BAD_ID_CHAR.test(value)) {
    return {
      message: `${quote(value)} contains a quote or a control character`,
      expected: 'the id exactly as the gateway issued it',
    };
  }
  // Characters not seen, yet part of the id (quote.ts): zero-width spaces, a BOM in the middle,
  // bidi controls (U+202E shows the rest of an id backwards), spaces other than U+0020, …
  const invisible = invisibleIdProblem(value);
  if (invisible) {
    return {
      message: invisible,
      expected: 'the id exactly as the gateway issued it, typed or pasted again without the hidden character',
    };
  }
  if (value.includes(',')) {
    return {
      message: `${quote(value)} contains a comma; the gateway looks orders up by comma-separated lists of ids`,
      expected: 'an id without commas',
    };
  }
  return undefined;
}

/**
 * An id made of ASCII letters, digits, `-` and `_` that starts with a letter (nearly every id) has
 * none of the problems below: checked by one pattern instead of three and a search per id.
 */
const PLAIN_ID = /^[A-Za-z][A-Za-z0-9_-]*$/;

function isPlainId(value: string): boolean {
  return PLAIN_ID.test(value);
}

type Problems = InputProblem[] | undefined;

// The last currency looked up: a file nearly always repeats one, and the table's look-up hashed
// each row's (new) text again.
let lastCurrencyText = '';
let lastCurrency: CurrencyInfo | undefined;

function currencyOf(text: string): CurrencyInfo | undefined {
  if (text !== lastCurrencyText) {
    lastCurrency = currencyInfo(text);
    lastCurrencyText = text;
  }
  return lastCurrency;
}

/** "No problem", answered for nearly every row: one shared, frozen list rather than one per row. */
export const NO_PROBLEMS: readonly InputProblem[] = Object.freeze([]);

function add(
  problems: Problems,
  file: string,
  line: number,
  field: string,
  message: string,
  expected: string,
): InputProblem[] {
  const p = { file, line, field, message, expected };
  if (problems === undefined) return [p];
  problems.push(p);
  return problems;
}

const CURRENCY_EXPECTED = 'a three-letter ISO 4217 code such as USD, EUR or JPY';

/** Check one row on its own. Rows with structural problems (wrong field count) report only those. */
export function validateRow(
  op: BulkOp,
  row: CsvRow,
  file: string,
  rules: RowRules = DEFAULT_RULES,
): ValidateResult {
  if (row.problems !== undefined && row.problems.length > 0) return { ok: false, problems: row.problems };
  const f = row.fields;
  const line = row.line;
  // Written without closures or per-row arrays: this runs a million times on a big file.
  let problems: Problems;

  // Card data never enters a run (issue 24): a card number in any cell — a reason, a column payops
  // does not read — would be sent, kept in the run's input copy and written to the results. The
  // number is not repeated; only identifier columns (transaction_id …) may hold Luhn-valid digits.
  for (const name in f) {
    if (cellHoldsCardNumber(name, f[name]!)) {
      problems = add(
        problems,
        file,
        line,
        name,
        'holds a card number (not repeated here); card data may not be in a bulk file',
        'no card numbers in any cell: remove it from the file (and from wherever the file came from)',
      );
    }
  }

  const tx = f.transaction_id ?? '';
  const order = f.order_no ?? '';
  if (tx === '')
    problems = add(
      problems,
      file,
      line,
      'transaction_id',
      'transaction_id is empty',
      "the order's transaction_id",
    );
  else {
    const bad = idProblem(tx);
    if (bad) problems = add(problems, file, line, 'transaction_id', bad.message, bad.expected);
  }
  if (order === '')
    problems = add(problems, file, line, 'order_no', 'order_no is empty', "the order's order_no");
  else {
    const bad = idProblem(order);
    if (bad) problems = add(problems, file, line, 'order_no', bad.message, bad.expected);
  }

  const currencyText = f.currency ?? '';
  let info: CurrencyInfo | undefined;
  if (currencyText === '')
    problems = add(problems, file, line, 'currency', 'currency is empty', CURRENCY_EXPECTED);
  else {
    info = currencyOf(currencyText);
    if (info === undefined) {
      problems = add(
        problems,
        file,
        line,
        'currency',
        `${quote(currencyText)} is not an ISO 4217 currency code`,
        CURRENCY_EXPECTED,
      );
    }
  }

  const style = rules.style;
  const amount = amountField(f, 'amount', info, style);
  if (amount.problem) problems = add(problems, file, line, 'amount', amount.problem[0], amount.problem[1]);
  else if (amount.minor === 0n) {
    problems = add(
      problems,
      file,
      line,
      'amount',
      'the order amount is zero',
      'the order amount, greater than 0',
    );
  }

  const cols = columnsOf(op);
  let refund: AmountResult | undefined;
  let reviewFlag: '0' | '1' | undefined;
  let reason = '';
  let filled = false;
  if (cols.refund) {
    refund = amountField(f, 'refund_amount', info, style);
    if (refund.problem)
      problems = add(problems, file, line, 'refund_amount', refund.problem[0], refund.problem[1]);
    else if (refund.minor === 0n) {
      problems = add(
        problems,
        file,
        line,
        'refund_amount',
        'the refund amount is zero',
        'the amount to refund, greater than 0',
      );
    } else if (refund.minor !== undefined && amount.minor !== undefined && refund.minor > amount.minor) {
      problems = add(
        problems,
        file,
        line,
        'refund_amount',
        `the refund amount ${refund.text} is more than the order amount ${amount.text}`,
        `at most the order amount, ${amount.text}`,
      );
    }
    reason = f.refund_reason ?? '';
    // Cells are trimmed by the reader: only an empty one is blank.
    if (reason === '' || reason.trim() === '') {
      if (rules.reasonFill !== undefined) {
        reason = rules.reasonFill;
        filled = true;
      } else {
        problems = add(
          problems,
          file,
          line,
          'refund_reason',
          'refund_reason is empty; the gateway refuses a refund without a reason',
          'the reason for the refund (or give --refund-reason TEXT for every row that has none)',
        );
      }
    } else {
      // Reasons compare by meaning (reason.ts); a hidden character is refused, not silently dropped.
      const hidden = hiddenTextProblem(reason, 'reason');
      if (hidden) {
        problems = add(
          problems,
          file,
          line,
          'refund_reason',
          hidden,
          'the reason as a person reads it, typed or pasted again without the hidden character',
        );
      }
    }
  }
  if (cols.reviewFlag) {
    const v = f.review_flag ?? '';
    if (v === '0' || v === '1') reviewFlag = v;
    else if (v === '') problems = add(problems, file, line, 'review_flag', 'review_flag is empty', '0 or 1');
    else problems = add(problems, file, line, 'review_flag', `${quote(v)} is not a review flag`, '0 or 1');
  }

  if (problems !== undefined || info === undefined || amount.minor === undefined) {
    return { ok: false, problems: problems ?? [] };
  }
  const valid: ValidRow = {
    line,
    transaction_id: tx,
    order_no: order,
    currency: info.code,
    amount: amount.text,
    amountMinor: amount.minor,
  };
  if (refund !== undefined) {
    valid.refundMinor = refund.minor!;
    valid.refund_amount = refund.text;
    valid.refund_reason = reason;
    if (filled) rules.filled++;
  }
  if (reviewFlag !== undefined) valid.review_flag = reviewFlag;
  return { ok: true, row: valid, problems: [] };
}

interface AmountResult {
  minor?: bigint;
  /** Canonical wire text when valid. */
  text: string;
  /** [message, expected] when invalid. */
  problem?: [string, string];
}

const EMPTY_AMOUNT: AmountResult = { text: '' };

function amountField(
  f: Record<string, string>,
  field: string,
  info: CurrencyInfo | undefined,
  style: AmountStyle,
): AmountResult {
  const text = f[field] ?? '';
  if (text === '')
    return {
      text,
      problem: [
        `${field} is empty`,
        style.mark === ','
          ? 'a decimal with a comma, such as 12,50'
          : 'a plain decimal with a dot, such as 12.50',
      ],
    };
  // Without a valid currency its decimals are unknown; the currency problem is already reported.
  if (info === undefined) return EMPTY_AMOUNT;
  // The canonical form is read fast only where a dot is the decimal mark (in a comma file `1.234`
  // is a thousand and more).
  if (style.mark === '.') {
    const minor = canonicalMinor(text, info.minorDigits);
    if (minor !== undefined) return { minor, text };
  }
  const r = parseAmountText(text, info.code, info.minorDigits, style);
  if (!r.ok)
    return { text, problem: [r.hint === undefined ? r.message : `${r.message}; ${r.hint}`, r.expected] };
  return {
    minor: r.minor,
    text: style.mark === '.' && isCanonical(text, info.minorDigits) ? text : formatAmount(r.minor, info.code),
  };
}

/**
 * The minor units of `text` when it is already the canonical wire form (exactly `digits` decimals,
 * no leading zero, no blank) of at most 15 digits — nearly every amount of a file — else undefined,
 * and parseAmountDigits decides. Those amounts are exact as doubles: no digit string is built.
 */
function canonicalMinor(text: string, digits: number): bigint | undefined {
  const n = text.length;
  const dot = digits === 0 ? n : n - digits - 1;
  if (dot < 1 || (digits === 0 ? n : n - 1) > 15) return undefined;
  if (dot < n && text.charCodeAt(dot) !== 46) return undefined;
  if (dot > 1 && text.charCodeAt(0) === 48) return undefined;
  let v = 0;
  for (let i = 0; i < n; i++) {
    if (i === dot) continue;
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    v = v * 10 + d;
  }
  return BigInt(v);
}

/** True when `text` (already a valid amount) is exactly its canonical wire form. */
function isCanonical(text: string, digits: number): boolean {
  // Only digits and a dot (`1,234.56` is valid, and not canonical).
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 46 && (c < 48 || c > 57)) return false;
  }
  const last = text.charCodeAt(text.length - 1);
  const first = text.charCodeAt(0);
  if (first < 48 || first > 57 || last < 48 || last > 57) return false; // surrounding blanks
  const dot = text.indexOf('.');
  if (digits === 0) return dot < 0 && (text.length === 1 || text.charCodeAt(0) !== 48);
  if (dot < 0 || text.length - dot - 1 !== digits) return false;
  return dot === 1 || text.charCodeAt(0) !== 48;
}
