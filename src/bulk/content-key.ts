// What a file means, as one key: the multiset of its validated rows (ids, currency upper-cased,
// amounts as minor units, reason, review flag), independent of row order, column order, line ends,
// a BOM, extra columns or how an amount was spelled. Two files with the same key ask for the same
// money movements. Used to hold one process per content at a time (the input lock), so that two
// copies of one file saved differently cannot be sent at once, and recorded in a run's header to
// match later runs of the same rows (runs/read.ts isSameInput: the re-run guard and --resume).
//
// Each row's text is hashed with 64-bit FNV-1a (two 32-bit halves) and the hashes are added modulo
// 2^64: cheap enough for a million rows, and order-independent. A collision can only make two
// different files wait for each other's lock, refuse one as the other's, or have --resume continue
// the other's run from that run's own input copy — it can never let money move twice.
import type { BulkRow } from './types.js';

const TWO32 = 2 ** 32;

export class ContentKey {
  private hi = 0;
  private lo = 0;
  private rows = 0;

  add(row: BulkRow): void {
    const text = `${row.transaction_id}\u0000${row.order_no}\u0000${row.currency.toUpperCase()}\u0000${row.amountMinor}\u0000${row.refundMinor ?? ''}\u0000${row.refund_reason ?? ''}\u0000${row.review_flag ?? ''}`;
    // FNV-1a 64: offset basis 0xcbf29ce484222325, prime 0x100000001b3 (= 2^40 + 0x1b3).
    let h = 0xcbf29ce4;
    let l = 0x84222325;
    for (let i = 0; i < text.length; i++) {
      l ^= text.charCodeAt(i);
      // (h:l) * (2^40 + 0x1b3) mod 2^64, in 16-bit pieces so no product loses precision.
      const lLow = l & 0xffff;
      const lHigh = l >>> 16;
      const a = lLow * 0x1b3;
      const b = lHigh * 0x1b3 + (a >>> 16);
      const newL = ((b & 0xffff) << 16) | (a & 0xffff);
      const carry = b >>> 16;
      h = (Math.imul(h, 0x1b3) + carry + ((l << 8) | 0)) >>> 0;
      l = newL >>> 0;
    }
    this.lo += l;
    if (this.lo >= TWO32) {
      this.lo -= TWO32;
      this.hi = (this.hi + 1) >>> 0;
    }
    this.hi = (this.hi + h) >>> 0;
    this.rows++;
  }

  /** `<rows>-<16 hex digits>`. */
  digest(): string {
    return `${this.rows}-${this.hi.toString(16).padStart(8, '0')}${this.lo.toString(16).padStart(8, '0')}`;
  }
}
