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
//
// The key is recorded in run headers, so its value must never change. The row's text
// (`tx NUL order NUL CURRENCY NUL amountMinor NUL refundMinor NUL reason NUL flag`) is hashed field
// by field, as if it had been written out: building it cost a string, two bigint-to-text
// conversions and an upper-casing per row, a tenth of pass 1.
import type { BulkRow } from './types.js';

const TWO32 = 2 ** 32;
/** Minor units below this are exact as a double: their digits are hashed without a string. */
const EXACT = BigInt(Number.MAX_SAFE_INTEGER);

// The running hash of the row being added: [high, low] 32 bits (as int32). In a typed array,
// because a module-level variable holding a number that is not a small integer would box it.
const HL = new Int32Array(2);

/** FNV-1a 64 steps over the UTF-16 units of `s` from `from`, then over `sep` when it is >= 0. */
function text(s: string, from: number, sep: number): void {
  let h = HL[0]!;
  let l = HL[1]!;
  for (let i = from; i <= s.length; i++) {
    let c: number;
    if (i < s.length) c = s.charCodeAt(i);
    else if (sep >= 0) c = sep;
    else break;
    // (h:l) ^= c, then (h:l) * (2^40 + 0x1b3) mod 2^64, in 16-bit pieces so that no product
    // loses precision, and in int32 arithmetic throughout (HL holds the unsigned words).
    l ^= c;
    const a = (l & 0xffff) * 0x1b3;
    const b = (l >>> 16) * 0x1b3 + (a >>> 16);
    h = (Math.imul(h, 0x1b3) + (b >>> 16) + (l << 8)) | 0;
    l = ((b & 0xffff) << 16) | (a & 0xffff);
  }
  HL[0] = h;
  HL[1] = l;
}

/** `s` upper-cased as `toUpperCase` would, then a NUL: ASCII without a copy. */
function upperText(s: string): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || (c >= 0x61 && c <= 0x7a)) {
      text(s.slice(0, i), 0, -1);
      text(s.slice(i).toUpperCase(), 0, 0);
      return;
    }
  }
  text(s, 0, 0);
}

const DIGITS = '0123456789';
const SCRATCH = new Uint8Array(24);

/** The decimal digits of a bigint, as `${n}` writes them, then `sep` (when >= 0). */
function decimal(n: bigint, sep: number): void {
  if (n < 0n || n > EXACT) {
    text(n.toString(), 0, sep);
    return;
  }
  // Exact integer steps only (a remainder, then an exact division): no fractional value to box
  // while this code is still interpreted, early in a file.
  let v = Number(n);
  let k = 0;
  do {
    const d = v % 10;
    SCRATCH[k++] = d;
    v = (v - d) / 10;
  } while (v > 0);
  let h = HL[0]!;
  let l = HL[1]!;
  for (let i = k; i >= 0; i--) {
    const c = i > 0 ? DIGITS.charCodeAt(SCRATCH[i - 1]!) : sep;
    if (c < 0) break;
    l ^= c;
    const a = (l & 0xffff) * 0x1b3;
    const b = (l >>> 16) * 0x1b3 + (a >>> 16);
    h = (Math.imul(h, 0x1b3) + (b >>> 16) + (l << 8)) | 0;
    l = ((b & 0xffff) << 16) | (a & 0xffff);
  }
  HL[0] = h;
  HL[1] = l;
}

export class ContentKey {
  private hi = 0;
  private lo = 0;
  private rows = 0;

  add(row: BulkRow): void {
    // FNV-1a 64: offset basis 0xcbf29ce484222325, prime 0x100000001b3 (= 2^40 + 0x1b3).
    HL[0] = 0xcbf29ce4 | 0;
    HL[1] = 0x84222325 | 0;
    text(row.transaction_id, 0, 0);
    text(row.order_no, 0, 0);
    upperText(row.currency);
    decimal(row.amountMinor, 0);
    if (row.refundMinor !== undefined) decimal(row.refundMinor, 0);
    else text('', 0, 0);
    text(row.refund_reason ?? '', 0, 0);
    text(row.review_flag ?? '', 0, -1);
    const h = HL[0]! >>> 0;
    const l = HL[1]! >>> 0;
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
