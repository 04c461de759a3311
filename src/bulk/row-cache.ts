// The validated rows of pass 1, kept compactly (UTF-8 bytes, one packed record per row) so that pass 2 does not parse
// and validate the file a second time — up to a memory budget, beyond which it is dropped and pass 2
// reads the run's input copy as before. Safe because the copy is byte-identical to what pass 1 read
// (same SHA-256), so both passes would yield the same rows.
import type { InputRow } from './types.js';
import type { ValidRow } from './validate.js';

/** Bytes kept at most (UTF-8): some 250,000 typical rows. */
export const DEFAULT_CACHE_CHARS = 24 * 1024 * 1024;

const SEP = '\u0000';
/** A cell equal to the row's k-th fixed field is kept as REF + k (a digit): input columns repeat them. */
const REF = '\u0002';
const FIXED = 8; // line, transaction_id, order_no, currency, amount, refund_amount, refund_reason, review_flag
/** Rows are packed as UTF-8 into pages of this size (a longer row gets a page of its own). */
const PAGE_BYTES = 1024 * 1024;

/** Canonical wire text (exactly the currency's decimals) → minor units. */
function minorOf(text: string): bigint {
  return BigInt(text.replace('.', ''));
}

/**
 * Rows live outside the JS heap, as UTF-8 in 1 MB buffers: 100,000 rows as strings made the heap
 * (and with it the young generation and the peak RSS) grow by ~20 MB; as bytes they cost their size.
 */
export class RowCache {
  private readonly budget: number;
  private pages: Buffer[] = [];
  private used = 0;
  /** Per row: page index, start and end offsets. */
  private spans = new Uint32Array(3 * 1024);
  private count = 0;
  private bytes = 0;
  private dropped = false;

  constructor(budgetChars: number = DEFAULT_CACHE_CHARS) {
    this.budget = budgetChars;
  }

  /** Whether every row added so far is kept. */
  get complete(): boolean {
    return !this.dropped;
  }

  get size(): number {
    return this.count;
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
    ];
    for (const c of cells) {
      let k = 1;
      while (k < FIXED && parts[k] !== c) k++;
      parts.push(k < FIXED && c !== '' ? REF + k : c);
    }
    if (hasMarker(row, cells)) {
      this.drop();
      return;
    }
    // Rows without a refund keep '' and are told apart by refundMinor below.
    const text = (row.refund_amount === undefined ? '\u0001' : '') + parts.join(SEP);
    const size = Buffer.byteLength(text, 'utf8');
    this.bytes += size;
    if (this.bytes > this.budget) {
      this.drop();
      return;
    }
    let page = this.pages[this.pages.length - 1];
    if (page === undefined || this.used + size > page.length) {
      page = Buffer.allocUnsafe(Math.max(PAGE_BYTES, size));
      this.pages.push(page);
      this.used = 0;
    }
    const start = this.used;
    this.used += page.write(text, start, 'utf8');
    if (this.count * 3 + 3 > this.spans.length) {
      const grown = new Uint32Array(this.spans.length * 2);
      grown.set(this.spans);
      this.spans = grown;
    }
    const at = this.count * 3;
    this.spans[at] = this.pages.length - 1;
    this.spans[at + 1] = start;
    this.spans[at + 2] = this.used;
    this.count++;
  }

  private drop(): void {
    this.dropped = true;
    this.pages = [];
    this.spans = new Uint32Array(0);
    this.count = 0;
    this.bytes = 0;
  }

  /** The rows in order, as pass 2 would have read them. Only when `complete`. */
  *rows(): Generator<InputRow> {
    if (this.dropped) throw new Error('row cache was dropped');
    for (let r = 0; r < this.count; r++) {
      const at = r * 3;
      const packedRow = this.pages[this.spans[at]!]!.toString('utf8', this.spans[at + 1], this.spans[at + 2]);
      const noRefund = packedRow.charCodeAt(0) === 1;
      const p = (noRefund ? packedRow.slice(1) : packedRow).split(SEP);
      const cells = p.slice(FIXED);
      for (let i = 0; i < cells.length; i++) {
        const c = cells[i]!;
        if (c.length === 2 && c.charCodeAt(0) === 2) cells[i] = p[c.charCodeAt(1) - 48]!;
      }
      const row: InputRow = {
        line: Number(p[0]),
        transaction_id: p[1]!,
        order_no: p[2]!,
        currency: p[3]!,
        amount: p[4]!,
        amountMinor: minorOf(p[4]!),
        cells,
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

/** A separator or reference marker inside any value would make the packed row ambiguous. */
function hasMarker(row: ValidRow, cells: readonly string[]): boolean {
  const bad = (v: string | undefined) => v !== undefined && (v.includes(SEP) || v.includes(REF));
  if (bad(row.transaction_id) || bad(row.order_no) || bad(row.refund_reason)) return true;
  for (const c of cells) if (bad(c)) return true;
  return false;
}
