// What a file means, as one key: the multiset of its validated rows (ids, currency upper-cased,
// amounts as minor units, reason by meaning (reason.ts reasonKey: "Goodwill" is "goodwill"), review flag), independent of row order, column order, line ends,
// a BOM, extra columns or how an amount was spelled. Two files with the same key ask for the same
// money movements. Used to hold one process per content at a time (the input lock), so that two
// copies of one file saved differently cannot be sent at once, and recorded in a run's header to
// match later runs of the same rows (lifecycle/read.ts isSameInput: the re-run guard and --resume).
//
// Each row's text is hashed with 64-bit FNV-1a (two 32-bit halves) and the hashes are added modulo
// 2^64: cheap enough for a million rows, and order-independent — but not cryptographic: files can be
// made to collide on purpose. So the key is used only where a collision costs no money: two
// different files wait for each other's lock, one is refused as the other's, or --resume continues
// the other's run from that run's own input copy. It never decides alone what someone approved: a
// four-eyes plan is bound to its file by rowsDigest (approval/rows-digest.ts: SHA-256 over the
// sorted SHA-256 of these same fields per row), which the gate and `payops approve --file` check.
//
// The key is recorded in run headers, so its value must never change (issue 23 changed it once, for
// reasons not already in key form: such a file's earlier runs are no longer found here by their
// key, but still by their bytes and at the gateway). The row's text
// (`tx NUL order NUL CURRENCY NUL amountMinor NUL refundMinor NUL reason NUL flag`) is hashed field
// by field, as if it had been written out: building it cost a string (flattened before hashing),
// two bigint-to-text conversions and an upper-casing per row.

import type { BulkRow } from '../types.js';
import { reasonKey } from './reason.js';

const TWO32 = 2 ** 32;
/** Minor units up to this are exact as a double, and written by Number's own (cached) conversion. */
const EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The high word of the unsigned 32-bit `l` times 0x1b3 (FNV's prime is 2^40 + 0x1b3): what the low
 * word carries into the high one, from 16-bit halves so that no product loses precision. The low
 * word itself is Math.imul(l, 0x1b3).
 */
function carry(l: number): number {
  return ((l >>> 16) * 0x1b3 + (((l & 0xffff) * 0x1b3) >>> 16)) >>> 16;
}

/** The decimal text of a bigint, as `${n}` writes it (cheaply for ordinary amounts). */
function decimal(n: bigint): string {
  return n >= 0n && n <= EXACT ? String(Number(n)) : n.toString();
}

/** `s` as `toUpperCase` writes it; a code already in upper-case ASCII (nearly always) as it is. */
function upper(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || (c >= 0x61 && c <= 0x7a)) return s.toUpperCase();
  }
  return s;
}

/** The fields of the row being added, in key order (one array, reused). */
const FIELDS: string[] = ['', '', '', '', '', '', ''];

/**
 * A row's normalised fields in key order (transaction id, order number, CURRENCY, amount and refund
 * amount in minor units, reason key, review flag), written into `into`: what the key hashes, and
 * what a plan's rowsDigest (approval/rows-digest.ts) hashes with SHA-256.
 */
export function keyFields(row: BulkRow, into: string[] = ['', '', '', '', '', '', '']): string[] {
  into[0] = row.transaction_id;
  into[1] = row.order_no;
  into[2] = upper(row.currency);
  into[3] = decimal(row.amountMinor);
  into[4] = row.refundMinor === undefined ? '' : decimal(row.refundMinor);
  into[5] = reasonKey(row.refund_reason);
  into[6] = row.review_flag ?? '';
  return into;
}

export class ContentKey {
  private hi = 0;
  private lo = 0;
  private rows = 0;

  add(row: BulkRow): void {
    const f = keyFields(row, FIELDS);
    // FNV-1a 64: offset basis 0xcbf29ce484222325, prime 0x100000001b3 (= 2^40 + 0x1b3), over the
    // fields and a NUL between each two: (h:l) ^= c, then (h:l) * prime mod 2^64, in int32
    // arithmetic throughout (see carry).
    let h = 0xcbf29ce4 | 0;
    let l = 0x84222325 | 0;
    for (let k = 0; k < 7; k++) {
      const s = f[k]!;
      const n = k < 6 ? s.length + 1 : s.length;
      for (let i = 0; i < n; i++) {
        l ^= i < s.length ? s.charCodeAt(i) : 0;
        h = (Math.imul(h, 0x1b3) + carry(l) + (l << 8)) | 0;
        l = Math.imul(l, 0x1b3);
      }
    }
    this.addHash(h, l);
  }

  /**
   * What `add(row)` adds, for a row whose fields the row cache has just written as bytes
   * (row-cache.ts): from `from` to `to`, transaction id, order number, currency, amount, refund
   * amount, reason and review flag, each ended by a 0 byte (or `to`), the amounts in canonical
   * decimal text (whose digits, leading zeros left out, are the minor units). Reading bytes back
   * costs two thirds of reading the strings' characters. Returns false, adding nothing, when a byte
   * is not ASCII (a byte is then not a UTF-16 unit), an amount is zero, or the reason has white
   * space that its key would change (at either end, doubled, other than a space): add(row) must
   * add it. An ASCII reason's key is otherwise its text in lower case.
   */
  addPacked(bytes: Uint8Array, from: number, to: number): boolean {
    // One pass over the packed fields, hashing as it goes (see add for the arithmetic).
    let h = 0xcbf29ce4 | 0;
    let l = 0x84222325 | 0;
    let k = 0;
    // In an amount (fields 3 and 4): no digit but zeros yet, and whether a zero was seen.
    let leading = false;
    let zero = false;
    // In the reason (field 5): where it began, and whether the byte before was a space.
    let reasonFrom = -1;
    let space = false;
    for (let i = from; ; i++) {
      // The review flag ends at the row's end or at a 0 byte; fewer fields are no packed row.
      if (i === to) {
        if (k === 6) break;
        return false;
      }
      let c = bytes[i]!;
      if (c === 0) {
        // An amount of zeros only (its minor units "0") is no valid row's: left to add(row).
        if (leading && zero) return false;
        // A reason ending in a space: its key is trimmed.
        if (k === 5 && space && i > reasonFrom) return false;
        // The fields after the review flag (layout, other cells) are not in the key.
        if (++k === 7) break;
        leading = k === 3 || k === 4;
        zero = false;
        if (k === 5) {
          reasonFrom = i + 1;
          space = true;
        }
      } else if (c >= 0x80) {
        return false;
      } else if (k === 3 || k === 4) {
        // The minor units' digits: the dot and leading zeros left out ("0.05" → "5").
        if (c === 46) continue;
        if (leading) {
          if (c === 48) {
            zero = true;
            continue;
          }
          leading = false;
        }
      } else if (k === 2 && c >= 0x61 && c <= 0x7a) {
        c -= 32;
      } else if (k === 5) {
        // The reason's key (reasonKey): lower case, one space between words, none at either end.
        if (c === 32) {
          if (space) return false;
          space = true;
        } else if (c >= 9 && c <= 13) {
          return false;
        } else {
          space = false;
          if (c >= 0x41 && c <= 0x5a) c += 32;
        }
      }
      l ^= c;
      h = (Math.imul(h, 0x1b3) + carry(l) + (l << 8)) | 0;
      l = Math.imul(l, 0x1b3);
    }
    this.addHash(h, l);
    return true;
  }

  /** One row's hash, [high, low] 32-bit words, into the sum (mod 2^64). */
  private addHash(h: number, l: number): void {
    this.lo += l >>> 0;
    if (this.lo >= TWO32) {
      this.lo -= TWO32;
      this.hi = (this.hi + 1) >>> 0;
    }
    this.hi = (this.hi + (h >>> 0)) >>> 0;
    this.rows++;
  }

  /** `<rows>-<16 hex digits>`. */
  digest(): string {
    return `${this.rows}-${this.hi.toString(16).padStart(8, '0')}${this.lo.toString(16).padStart(8, '0')}`;
  }
}
