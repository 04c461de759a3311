// The validated rows of pass 1, kept compactly (one string per row) so that pass 2 does not parse
// and validate the file a second time — up to a memory budget, beyond which it is dropped and pass 2
// reads the run's input copy as before. Safe because the copy is byte-identical to what pass 1 read
// (same SHA-256), so both passes would yield the same rows.
import type { InputRow } from './types.js';
import type { ValidRow } from './validate.js';

/** Characters kept at most (~1 byte each in V8's one-byte strings): some 250,000 typical rows. */
export const DEFAULT_CACHE_CHARS = 24 * 1024 * 1024;

const SEP = '\u0000';
const FIXED = 8; // line, transaction_id, order_no, currency, amount, refund_amount, refund_reason, review_flag

/** Canonical wire text (exactly the currency's decimals) → minor units. */
function minorOf(text: string): bigint {
  return BigInt(text.replace('.', ''));
}

export class RowCache {
  private readonly budget: number;
  private packed: string[] = [];
  private chars = 0;
  private dropped = false;

  constructor(budgetChars: number = DEFAULT_CACHE_CHARS) {
    this.budget = budgetChars;
  }

  /** Whether every row added so far is kept. */
  get complete(): boolean {
    return !this.dropped;
  }

  get size(): number {
    return this.packed.length;
  }

  add(row: ValidRow, cells: readonly string[]): void {
    if (this.dropped) return;
    const parts = [
      String(row.line),
      row.transaction_id,
      row.order_no,
      row.currency,
      row.amount,
      row.refund_amount ?? '',
      row.refund_reason ?? '',
      row.review_flag ?? '',
      ...cells,
    ];
    if (parts.some((p) => p.includes(SEP))) {
      this.drop();
      return;
    }
    // Rows without a refund keep '' and are told apart by refundMinor below.
    const text = (row.refund_amount === undefined ? '\u0001' : '') + parts.join(SEP);
    this.chars += text.length;
    if (this.chars > this.budget) {
      this.drop();
      return;
    }
    this.packed.push(text);
  }

  private drop(): void {
    this.dropped = true;
    this.packed = [];
    this.chars = 0;
  }

  /** The rows in order, as pass 2 would have read them. Only when `complete`. */
  *rows(): Generator<InputRow> {
    if (this.dropped) throw new Error('row cache was dropped');
    for (const packedRow of this.packed) {
      const noRefund = packedRow.charCodeAt(0) === 1;
      const p = (noRefund ? packedRow.slice(1) : packedRow).split(SEP);
      const row: InputRow = {
        line: Number(p[0]),
        transaction_id: p[1]!,
        order_no: p[2]!,
        currency: p[3]!,
        amount: p[4]!,
        amountMinor: minorOf(p[4]!),
        cells: p.slice(FIXED),
      };
      if (!noRefund) {
        row.refund_amount = p[5]!;
        row.refundMinor = minorOf(p[5]!);
      }
      if (p[6] !== '' || !noRefund) row.refund_reason = p[6]!;
      if (p[7] !== '') row.review_flag = p[7]!;
      yield row;
    }
  }
}
