// The checks across the rows of a file, fed in file order after each row's own (validate.ts): the
// same transaction twice, and partial refunds adding up to more than the order amount.
import type { InputProblem } from '../../errors.js';
import { formatAmount } from '../../money/amount.js';
import { OPERATIONS } from '../operations.js';
import { type BulkOp, NO_PROBLEMS, type ValidRow } from './validate.js';
import { TxTable } from './validate-table.js';

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
  /** Several rows of one order allowed: partial refunds (OPERATIONS[op].distinctBy). */
  private readonly partial: boolean;

  constructor(op: BulkOp, file: string) {
    this.op = op;
    this.file = file;
    this.partial = OPERATIONS[op].distinctBy.length > 0;
    this.table = new TxTable(this.partial);
  }

  /** Whether the row added last was the first of its transaction in the file (as far as the table tells). */
  lastWasFirst = false;

  add(row: ValidRow): readonly InputProblem[] {
    const t = this.table;
    const found = t.findOrInsert(row);
    this.lastWasFirst = found.inserted;
    if (found.inserted) return NO_PROBLEMS;
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

    if (!this.partial) {
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
    return NO_PROBLEMS;
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
