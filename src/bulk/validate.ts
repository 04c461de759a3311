// Validation of bulk input rows: pure functions, no I/O. Every problem names file, line and field,
// says what is wrong and what would be right, so an operator can fix the whole file in one go.

import type { InputProblem } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { formatAmount, parseAmount } from '../money/amount.js';
import { type CurrencyInfo, currencyInfo } from '../money/currency.js';
import type { CsvRow } from './csv-reader.js';
import { TxTable } from './validate-table.js';

export type BulkOp = BatchOperation;

const ORDER_COLUMNS = ['transaction_id', 'order_no', 'currency', 'amount'];

export const REQUIRED_COLUMNS: Record<BulkOp, string[]> = {
  capture: [...ORDER_COLUMNS],
  cancel: [...ORDER_COLUMNS],
  review: [...ORDER_COLUMNS, 'review_flag'],
  refund: [...ORDER_COLUMNS, 'refund_amount'],
};

/** Columns an operation reads when present (refund_reason defaults to ''). */
export const OPTIONAL_COLUMNS: Record<BulkOp, string[]> = {
  capture: [],
  cancel: [],
  review: [],
  refund: ['refund_reason'],
};

export interface ValidRow {
  line: number;
  transaction_id: string;
  order_no: string;
  /** ISO 4217 code, upper case. */
  currency: string;
  /** canonical wire text */
  amount: string;
  amountMinor: bigint;
  refund_amount?: string;
  refundMinor?: bigint;
  refund_reason?: string;
  review_flag?: '0' | '1';
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
  if (SCIENTIFIC.test(value)) {
    return {
      message: `"${value}" is a number that Excel turned into scientific notation; the real id is lost`,
      expected:
        'the id exactly as the gateway issued it: in Excel format the column as Text before entering or importing ids, then export again',
    };
  }
  if (FORMULA.test(value)) {
    return {
      message: `"${value}" begins with "${value[0]}", which a spreadsheet runs as a formula`,
      expected: 'the id exactly as the gateway issued it, without a leading = + or @',
    };
  }
  if (BAD_ID_CHAR.test(value)) {
    return {
      message: `${JSON.stringify(value)} contains a quote or a control character`,
      expected: 'the id exactly as the gateway issued it',
    };
  }
  if (value.includes(',')) {
    return {
      message: `"${value}" contains a comma; the gateway looks orders up by comma-separated lists of ids`,
      expected: 'an id without commas',
    };
  }
  return undefined;
}

/** Check one row on its own. Rows with structural problems (wrong field count) report only those. */
export function validateRow(op: BulkOp, row: CsvRow, file: string): ValidateResult {
  if (row.problems !== undefined && row.problems.length > 0) return { ok: false, problems: row.problems };
  const f = row.fields;
  const line = row.line;
  const problems: InputProblem[] = [];
  const problem = (field: string, message: string, expected: string) =>
    problems.push({ file, line, field, message, expected });
  const present = (field: string, expected: string): string | undefined => {
    const v = f[field] ?? '';
    if (v === '') {
      problem(field, `${field} is empty`, expected);
      return undefined;
    }
    return v;
  };

  const ids: string[] = [];
  for (const field of ['transaction_id', 'order_no']) {
    const v = present(field, `the order's ${field}`);
    if (v === undefined) continue;
    const bad = idProblem(v);
    if (bad) problem(field, bad.message, bad.expected);
    else ids.push(v);
  }

  const currencyText = present('currency', 'a three-letter ISO 4217 code such as USD, EUR or JPY');
  let info: CurrencyInfo | undefined;
  if (currencyText !== undefined) {
    info = currencyInfo(currencyText);
    if (info === undefined) {
      problem(
        'currency',
        `"${currencyText}" is not an ISO 4217 currency code`,
        'a three-letter ISO 4217 code such as USD, EUR or JPY',
      );
    }
  }

  const amountMinor = amountField(f, 'amount', info, problem);
  if (amountMinor === 0n) problem('amount', 'the order amount is zero', 'the order amount, greater than 0');

  let refundMinor: bigint | undefined;
  let reviewFlag: '0' | '1' | undefined;
  if (op === 'refund') {
    refundMinor = amountField(f, 'refund_amount', info, problem);
    if (refundMinor === 0n) {
      problem('refund_amount', 'the refund amount is zero', 'the amount to refund, greater than 0');
    } else if (refundMinor !== undefined && amountMinor !== undefined && info && refundMinor > amountMinor) {
      problem(
        'refund_amount',
        `the refund amount ${formatAmount(refundMinor, info.code)} is more than the order amount ${formatAmount(amountMinor, info.code)}`,
        `at most the order amount, ${formatAmount(amountMinor, info.code)}`,
      );
    }
  } else if (op === 'review') {
    const v = present('review_flag', '0 or 1');
    if (v !== undefined) {
      if (v === '0' || v === '1') reviewFlag = v;
      else problem('review_flag', `"${v}" is not a review flag`, '0 or 1');
    }
  }

  if (problems.length > 0 || info === undefined || amountMinor === undefined) return { ok: false, problems };
  const valid: ValidRow = {
    line,
    transaction_id: ids[0]!,
    order_no: ids[1]!,
    currency: info.code,
    amount: formatAmount(amountMinor, info.code),
    amountMinor,
  };
  if (op === 'refund') {
    valid.refundMinor = refundMinor!;
    valid.refund_amount = formatAmount(refundMinor!, info.code);
    valid.refund_reason = f.refund_reason ?? '';
  } else if (op === 'review') {
    valid.review_flag = reviewFlag!;
  }
  return { ok: true, row: valid, problems: [] };
}

function amountField(
  f: Record<string, string>,
  field: string,
  info: CurrencyInfo | undefined,
  problem: (field: string, message: string, expected: string) => void,
): bigint | undefined {
  const text = f[field] ?? '';
  if (text === '') {
    problem(field, `${field} is empty`, 'a plain decimal with a dot, such as 12.50');
    return undefined;
  }
  // Without a valid currency its decimals are unknown; the currency problem is already reported.
  if (info === undefined) return undefined;
  const r = parseAmount(text, info.code);
  if (r.ok) return r.minor;
  problem(field, r.hint === undefined ? r.message : `${r.message}; ${r.hint}`, r.expected);
  return undefined;
}

/**
 * Checks across rows, fed in file order: the same transaction twice (a duplicate for
 * capture/cancel/review; for refunds an identical refund, or conflicting order details), and refunds
 * of one transaction adding up to more than its amount (reported on the line that crosses it).
 * Keeps a compact record per transaction (about 30–40 bytes), never the rows.
 */
export class CrossRowChecker {
  private readonly op: BulkOp;
  private readonly file: string;
  private readonly table: TxTable;

  constructor(op: BulkOp, file: string) {
    this.op = op;
    this.file = file;
    this.table = new TxTable(op === 'refund');
  }

  add(row: ValidRow): InputProblem[] {
    const t = this.table;
    const found = t.findOrInsert(row);
    if (found.inserted) return [];
    const e = found.entry;
    const firstLine = t.firstLine(e);
    const tx = row.transaction_id;
    const at = (field: string, message: string, expected: string): InputProblem[] => [
      { file: this.file, line: row.line, field, message, expected },
    ];

    // Same transaction_id, different order: never guess which line is right.
    if (!t.sameOrderNo(e, row)) {
      return at(
        'order_no',
        `transaction ${tx} is also on line ${firstLine} with a different order_no`,
        `the same order_no for transaction ${tx} on every line`,
      );
    }
    const firstCurrency = t.currency(e);
    if (firstCurrency !== row.currency) {
      return at(
        'currency',
        `transaction ${tx} is also on line ${firstLine} with currency ${firstCurrency}, here ${row.currency}`,
        `the same currency for transaction ${tx} on every line`,
      );
    }
    const firstAmount = t.amount(e);
    if (firstAmount !== row.amountMinor) {
      return at(
        'amount',
        `transaction ${tx} is also on line ${firstLine} with amount ${formatAmount(firstAmount, row.currency)}, here ${row.amount}`,
        `the same order amount for transaction ${tx} on every line`,
      );
    }

    if (this.op !== 'refund') {
      t.touch(e, row.line);
      return at(
        'transaction_id',
        `duplicate row: transaction ${tx} is already on line ${firstLine}`,
        `each transaction once per ${this.op} file`,
      );
    }

    const sameAs = t.findRefund(e, row);
    if (sameAs !== undefined) {
      return at(
        'refund_amount',
        `duplicate row: the same refund of transaction ${tx} (${row.refund_amount}, same reason) is already on line ${sameAs}`,
        'each refund once; two partial refunds of one order need different amounts or reasons',
      );
    }
    const others = t.linesText(e);
    const sum = t.addRefund(e, row);
    if (sum > firstAmount) {
      return at(
        'refund_amount',
        `refunds of transaction ${tx} add up to ${formatAmount(sum, row.currency)} with this line, more than the order amount ${row.amount} (other refunds of it on ${others})`,
        `refunds of one transaction adding up to at most ${row.amount}`,
      );
    }
    return [];
  }

  /** Problems only visible at the end of the file (none today: every check reports on its line). */
  finish(): InputProblem[] {
    return [];
  }

  /** Transactions seen so far. */
  get size(): number {
    return this.table.size;
  }
}
