// Compact per-transaction memory for CrossRowChecker (cross-row.ts): a million transactions in tens of MB.
// A JS Map<string, object> costs ~200 bytes per entry; here an entry is ~25 bytes (33 for refunds) in typed arrays,
// keyed by a 64-bit hash of the transaction_id. A hash collision can only make two different
// transactions look like one, which produces a (false) problem, never a missed one, and at 64 bits
// is vanishingly unlikely (~3e-8 for a million ids).

import type { ValidRow } from '../types.js';
import { reasonKey } from './reason.js';

export function hashA(s: string): number {
  return fmix(fnvA(0x811c9dc5, s));
}

export function hashB(s: string): number {
  let h = 0x9747b28c ^ s.length;
  for (let i = 0; i < s.length; i++) {
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix(h);
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * hashA of `${refund_amount}\u0000${reasonKey(refund_reason)}`, without building that text (twice
 * per refund row): two rows whose reasons differ only as typed ("Goodwill", "goodwill") are one
 * refund asked twice (issue 23).
 */
function refundKey(row: ValidRow): number {
  let h = fnvA(0x811c9dc5, row.refund_amount ?? '');
  h = Math.imul(h, 0x01000193); // the separator, 0
  return fmix(fnvA(h, reasonKey(row.refund_reason)));
}

/** 32-bit FNV-1a steps of hashA over `s`, from `h`. */
function fnvA(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

const U64_MAX = (1n << 64n) - 1n;

/** Open-addressing set of 64-bit keys, each with a line number (0 = empty slot). */
class LineSet {
  private a = new Uint32Array(1024);
  private b = new Uint32Array(1024);
  private lines = new Uint32Array(1024);
  private count = 0;

  get(ka: number, kb: number): number | undefined {
    ka >>>= 0;
    kb >>>= 0;
    const mask = this.lines.length - 1;
    for (let i = ka & mask; this.lines[i] !== 0; i = (i + 1) & mask) {
      if (this.a[i] === ka && this.b[i] === kb) return this.lines[i];
    }
    return undefined;
  }

  set(ka: number, kb: number, line: number): void {
    ka >>>= 0;
    kb >>>= 0;
    if ((this.count + 1) * 2 > this.lines.length) this.grow();
    const mask = this.lines.length - 1;
    let i = ka & mask;
    while (this.lines[i] !== 0) {
      if (this.a[i] === ka && this.b[i] === kb) return;
      i = (i + 1) & mask;
    }
    this.a[i] = ka;
    this.b[i] = kb;
    this.lines[i] = Math.max(1, line);
    this.count++;
  }

  private grow(): void {
    const { a, b, lines } = this;
    const cap = lines.length * 2;
    this.a = new Uint32Array(cap);
    this.b = new Uint32Array(cap);
    this.lines = new Uint32Array(cap);
    this.count = 0;
    for (let i = 0; i < lines.length; i++) if (lines[i] !== 0) this.set(a[i]!, b[i]!, lines[i]!);
  }
}

// Columns in pages, so growing never copies and the memory held follows the rows seen. Pages of
// 1,024 entries: a new one is needed early in a file, while the code still learns what it runs
// (with 16,384, the first new page came after optimisation and cost a re-optimisation).
const PAGE_BITS = 10;
const PAGE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE - 1;

class NumColumn {
  private readonly pages: Array<Uint32Array | Uint8Array> = [];
  constructor(private readonly make: (n: number) => Uint32Array | Uint8Array) {}
  get(e: number): number {
    return this.pages[e >>> PAGE_BITS]?.[e & PAGE_MASK] ?? 0;
  }
  set(e: number, v: number): void {
    const p = e >>> PAGE_BITS;
    while (this.pages.length <= p) this.pages.push(this.make(PAGE));
    this.pages[p]![e & PAGE_MASK] = v;
  }
}

/**
 * Non-negative minor-unit amounts in 4 bytes each: nearly every amount is below 2^32 - 1 (42
 * million in a two-decimal currency); the few that are not are kept in a Map. Half the memory of a
 * BigUint64Array column — 8 MB less for a million-row refund file.
 */
class AmountColumn {
  private readonly pages: Uint32Array[] = [];
  private big: Map<number, bigint> | undefined;
  get(e: number): bigint {
    const v = this.pages[e >>> PAGE_BITS]?.[e & PAGE_MASK] ?? 0;
    return v === LARGE ? this.big!.get(e)! : BigInt(v);
  }
  set(e: number, v: bigint): void {
    const p = e >>> PAGE_BITS;
    while (this.pages.length <= p) this.pages.push(new Uint32Array(PAGE));
    if (v < LARGE_BIG) {
      this.pages[p]![e & PAGE_MASK] = Number(v);
      this.big?.delete(e);
    } else {
      this.pages[p]![e & PAGE_MASK] = LARGE;
      this.big ??= new Map();
      this.big.set(e, v);
    }
  }
}

const LARGE = 0xffffffff;
const LARGE_BIG = BigInt(LARGE);

/** The answer for a new transaction (nearly every row): one object, not one per row. */
const INSERTED = Object.freeze({ inserted: true as const });

const u32 = (n: number) => new Uint32Array(n);
const u8 = (n: number) => new Uint8Array(n);

export class TxTable {
  size = 0;
  // Per-entry columns: 25 bytes, plus 8 for refunds.
  private readonly h1 = new NumColumn(u32);
  private readonly h2 = new NumColumn(u32);
  private readonly orderHash = new NumColumn(u32);
  private readonly cur = new NumColumn(u8);
  private readonly amt = new AmountColumn();
  private readonly first = new NumColumn(u32);
  /** Refunds: key of the first refund, and the running sum of refunds. */
  private readonly firstRefund: NumColumn | undefined;
  private readonly sum: AmountColumn | undefined;
  // Only once some transaction repeats: last line, and rows beyond the first (0 = one row).
  private last: NumColumn | undefined;
  private extra: NumColumn | undefined;
  /** Refunds after the first of each transaction: (transaction, refund key) → line. */
  private later: LineSet | undefined;
  // Index: slot → entry + 1 (0 = empty); power of two, at most half full.
  private slots = new Int32Array(1024);
  private readonly currencies: string[] = [];
  private readonly currencyIndex = new Map<string, number>();

  constructor(refunds: boolean) {
    if (refunds) {
      this.firstRefund = new NumColumn(u32);
      this.sum = new AmountColumn();
    }
  }

  findOrInsert(row: ValidRow): Readonly<{ inserted: true }> | { inserted: false; entry: number } {
    const ka = this.hashBoth(row.transaction_id);
    const kb = this.kb;
    const mask = this.slots.length - 1;
    let i = ka & mask;
    for (;;) {
      const s = this.slots[i]!;
      if (s === 0) break;
      const e = s - 1;
      if (this.h1.get(e) === ka && this.h2.get(e) === kb) return { inserted: false, entry: e };
      i = (i + 1) & mask;
    }
    const e = this.size++;
    this.h1.set(e, ka);
    this.h2.set(e, kb);
    this.orderHash.set(e, hashA(row.order_no));
    this.cur.set(e, this.currencyId(row.currency));
    this.amt.set(e, row.amountMinor);
    this.first.set(e, row.line);
    if (this.firstRefund && this.sum) {
      this.firstRefund.set(e, refundKey(row));
      this.sum.set(e, row.refundMinor ?? 0n);
    }
    this.slots[i] = e + 1;
    if (this.size * 2 > this.slots.length) this.growSlots();
    return INSERTED;
  }

  firstLine(e: number): number {
    return this.first.get(e);
  }
  currency(e: number): string {
    return this.currencies[this.cur.get(e)]!;
  }
  amount(e: number): bigint {
    return this.amt.get(e);
  }
  sameOrderNo(e: number, row: ValidRow): boolean {
    return this.orderHash.get(e) === hashA(row.order_no);
  }

  /** Count another row of the transaction. */
  touch(e: number, line: number): void {
    this.last ??= new NumColumn(u32);
    this.extra ??= new NumColumn(u32);
    this.last.set(e, line);
    this.extra.set(e, this.extra.get(e) + 1);
  }

  /** The line of an identical earlier refund of this transaction, if any. */
  findRefund(e: number, row: ValidRow): number | undefined {
    const key = refundKey(row);
    if (this.firstRefund?.get(e) === key) return this.first.get(e);
    return this.later?.get(this.h1.get(e) ^ key, this.h2.get(e) ^ Math.imul(key, 0x9e3779b1));
  }

  /** Add a later refund of the transaction; returns the new sum of its refunds (minor units). */
  addRefund(e: number, row: ValidRow): bigint {
    const key = refundKey(row);
    this.later ??= new LineSet();
    this.later.set(this.h1.get(e) ^ key, this.h2.get(e) ^ Math.imul(key, 0x9e3779b1), row.line);
    const total = (this.sum?.get(e) ?? 0n) + (row.refundMinor ?? 0n);
    const sum = total > U64_MAX ? U64_MAX : total;
    this.sum?.set(e, sum);
    this.touch(e, row.line);
    return sum;
  }

  /** "line 3", "lines 3 and 7", "lines 3, …, 9 (4 rows)": the rows of the transaction so far. */
  linesText(e: number): string {
    const first = this.first.get(e);
    const n = 1 + (this.extra?.get(e) ?? 0);
    const last = this.last?.get(e) || first;
    if (n <= 1) return `line ${first}`;
    if (n === 2) return `lines ${first} and ${last}`;
    return `lines ${first}, …, ${last} (${n} rows)`;
  }

  /** Second hash of the last hashBoth call (saves an allocation per row). */
  private kb = 0;

  /** hashA and hashB of `s` in one pass; returns hashA, leaves hashB in `this.kb`. */
  private hashBoth(s: string): number {
    let a = 0x811c9dc5;
    let b = 0x9747b28c ^ s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      let k = Math.imul(c, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      b ^= Math.imul(k, 0x1b873593);
      b = (b << 13) | (b >>> 19);
      b = (Math.imul(b, 5) + 0xe6546b64) | 0;
    }
    this.kb = fmix(b);
    return fmix(a);
  }

  private currencyId(code: string): number {
    let id = this.currencyIndex.get(code);
    if (id === undefined) {
      id = this.currencies.length;
      this.currencies.push(code);
      this.currencyIndex.set(code, id);
    }
    return id;
  }

  private growSlots(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let e = 0; e < this.size; e++) {
      let i = this.h1.get(e) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = e + 1;
    }
    this.slots = slots;
  }
}
