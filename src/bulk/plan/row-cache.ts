// The validated rows of pass 1, kept compactly (UTF-8 bytes, one packed record per row) so that pass 2 does not parse
// and validate the file a second time — up to a memory budget, beyond which it is dropped and pass 2
// reads the run's input copy as before. Safe because the copy is byte-identical to what pass 1 read
// (same SHA-256), so both passes would yield the same rows.
import { stat } from 'node:fs/promises';
import type { Chunk, InputRow } from '../types.js';
import type { ContentKey } from './content-key.js';
import type { ValidRow } from './validate.js';

/** One look-up of the gateway check: rows [from, to) and their distinct transaction ids, joined by commas. */
export interface LookUpBatch {
  ids: string;
  from: number;
  to: number;
}

/** Bytes kept at most (UTF-8): some 250,000 typical rows. */
export const DEFAULT_CACHE_CHARS = 24 * 1024 * 1024;

/**
 * The row cache of pass 1, or none. A run keeps its rows (those that fit; pass 2 then reads nothing
 * again). A dry run keeps them only when it will ask the gateway (its look-ups read them from here
 * instead of reading and checking the file again) and the whole file fits the default budget, so
 * that a bigger file's dry run holds no rows at all and its memory stays flat however long it is.
 */
export async function rowCacheFor(
  path: string,
  dryRun: boolean,
  asksGateway: boolean,
): Promise<RowCache | undefined> {
  if (!dryRun) return new RowCache();
  if (!asksGateway) return undefined;
  const fits = await stat(path).then(
    (s) => s.size <= DEFAULT_CACHE_CHARS,
    () => false, // pass 1 reports the file
  );
  return fits ? new RowCache() : undefined;
}

const SEP = '\u0000';
/** First character of a packed row: FLAGS + NO_REFUND / OWN_LAYOUT bits. */
const FLAGS = 0x40;
const NO_REFUND = 1;
const OWN_LAYOUT = 2;
/** Rows are packed as UTF-8 into pages of this size (a longer row gets a page of its own). */
const PAGE_BYTES = 1024 * 1024;
const FIRST_PAGE_BYTES = 16 * 1024;

/** Canonical wire text (exactly the currency's decimals) → minor units. */
function minorOf(text: string): bigint {
  // Up to 15 characters hold at most 15 digits, exact in a double: summing them by hand is a
  // third of the cost of building the digit string for BigInt (this runs twice per row).
  if (text.length > 15) return BigInt(text.replace('.', ''));
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 46) n = n * 10 + (c - 48);
  }
  return BigInt(n);
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
  /** Where the fields of the row added last start (after its flags and line). */
  private lastFields = 0;
  /** The cell layout of the first row, shared by (nearly) all: see `add`. */
  private layout: string | undefined;
  /** Look-up batches (preflight.ts), when asked for by `cutLookUps`: see there. */
  private lookUpLimit = 0;
  private batchIds: string[] = [];
  private batchEnds: number[] = [];
  /** The distinct ids of the batch being filled, in order. */
  private openIds: string[] = [];
  /**
   * Told of each look-up batch as soon as it is cut (look-ahead.ts), while rows are still being
   * added; the last batch only comes with `lookUpBatches`, once every row is in.
   */
  onLookUpBatch: ((batch: LookUpBatch) => void) | undefined;

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

  /**
   * Keep a valid row. `newInFile`: its transaction is known not to be on an earlier row (the
   * cross-row checks know it); when unsure, false.
   */
  add(row: ValidRow, cells: readonly string[], newInFile = false): void {
    if (this.dropped) return;
    const reason = row.refund_reason ?? '';
    // Ids never hold control characters (validation refuses them); the reason and other cells may.
    let clean = !hasMarker(reason);
    // Which fixed field (1-7) each cell repeats, 0 for its own text: the row's layout. Rows nearly
    // always share the first row's, which is then neither stored nor built again as a string.
    const first = this.layout;
    let shared = first !== undefined && first.length === cells.length;
    let own = 0;
    for (let i = 0; i < cells.length; i++) {
      const c = cells[i]!;
      const k = c === '' ? 0 : fieldIndex(row, c);
      if (shared && first!.charCodeAt(i) !== 48 + k) shared = false;
      if (k === 0) {
        own += c.length + 1;
        if (clean && hasMarker(c)) clean = false;
      }
    }
    if (!clean) {
      this.drop();
      return;
    }
    let layout: string | undefined;
    if (!shared) {
      layout = '';
      for (let i = 0; i < cells.length; i++) {
        const c = cells[i]!;
        layout += String.fromCharCode(48 + (c === '' ? 0 : fieldIndex(row, c)));
      }
      if (first === undefined) {
        this.layout = layout;
        layout = undefined;
      }
    }
    const flags = (row.refund_amount === undefined ? NO_REFUND : 0) | (layout === undefined ? 0 : OWN_LAYOUT);
    const amount = row.refund_amount ?? '';
    const flag = row.review_flag ?? '';
    // At most 3 UTF-8 bytes per UTF-16 unit (16 for the flags, the line and the separators):
    // room for that means the row fits the page.
    const room =
      3 *
      (16 +
        row.transaction_id.length +
        row.order_no.length +
        row.currency.length +
        row.amount.length +
        amount.length +
        reason.length +
        flag.length +
        (layout === undefined ? 0 : layout.length + 1) +
        own);
    let page = this.pages[this.pages.length - 1];
    if (page === undefined || this.used + room > page.length) {
      // The first page is small, so that a new page is started early, while the code still
      // learns what it runs (a path first taken after ~20,000 rows cost a re-optimisation).
      page = Buffer.allocUnsafe(Math.max(this.pages.length === 0 ? FIRST_PAGE_BYTES : PAGE_BYTES, room));
      this.pages.push(page);
      this.used = 0;
    }
    // Written straight into the page, field by field: building the row's text first cost a string
    // and a Buffer.write call per row.
    const start = this.used;
    page[start] = FLAGS + flags;
    let at = putLine(page, start + 1, row.line);
    page[at++] = 0;
    const fields = at;
    at = putText(page, at, row.transaction_id);
    page[at++] = 0;
    at = putText(page, at, row.order_no);
    page[at++] = 0;
    at = putText(page, at, row.currency);
    page[at++] = 0;
    at = putText(page, at, row.amount);
    page[at++] = 0;
    at = putText(page, at, amount);
    page[at++] = 0;
    at = putText(page, at, reason);
    page[at++] = 0;
    at = putText(page, at, flag);
    if (layout !== undefined) {
      page[at++] = 0;
      at = putText(page, at, layout);
    }
    const shape = layout ?? this.layout!;
    for (let i = 0; i < cells.length; i++) {
      if (shape.charCodeAt(i) !== 48) continue;
      page[at++] = 0;
      at = putText(page, at, cells[i]!);
    }
    this.bytes += at - start;
    if (this.lookUpLimit > 0) this.cutLookUp(row.transaction_id, newInFile);
    if (this.bytes > this.budget) {
      this.drop();
      return;
    }
    this.used = at;
    this.lastFields = fields;
    if (this.count * 3 + 3 > this.spans.length) {
      const grown = new Uint32Array(this.spans.length * 2);
      grown.set(this.spans);
      this.spans = grown;
    }
    const span = this.count * 3;
    this.spans[span] = this.pages.length - 1;
    this.spans[span + 1] = start;
    this.spans[span + 2] = at;
    this.count++;
  }

  /**
   * Adds the row added last to `key` from the bytes just written (ContentKey.addPacked: the same
   * key, for two thirds of the work). False when it cannot (the cache was dropped, or a field is
   * not ASCII): the caller then adds the row itself.
   */
  keyLastRow(key: ContentKey): boolean {
    if (this.dropped || this.count === 0) return false;
    const at = (this.count - 1) * 3;
    return key.addPacked(this.pages[this.spans[at]!]!, this.lastFields, this.spans[at + 2]!);
  }

  private drop(): void {
    this.dropped = true;
    this.pages = [];
    this.spans = new Uint32Array(0);
    this.count = 0;
    this.bytes = 0;
    this.batchIds = [];
    this.batchEnds = [];
    this.openIds = [];
  }

  /**
   * Also cut the look-up batches of the gateway check before a run (preflight.ts) as rows are
   * added: consecutive rows whose distinct transaction ids, at most `limit`, go in one look-up.
   * Pass 1 holds each id as a string already; read back from the packed rows, every id cost a
   * decoding and a set look-up again, a sixth of the look-ups' own time. Nothing is sent here.
   * Call before the first row.
   */
  cutLookUps(limit: number): void {
    if (this.count === 0 && !this.dropped) this.lookUpLimit = limit;
  }

  /** The batches `cutLookUps(limit)` asked for, once every row is added; undefined otherwise. */
  lookUpBatches(limit: number): LookUpBatch[] | undefined {
    if (this.dropped || this.lookUpLimit !== limit || limit <= 0) return undefined;
    const out: LookUpBatch[] = [];
    let from = 0;
    for (let b = 0; b < this.batchIds.length; b++) {
      out.push({ ids: this.batchIds[b]!, from, to: this.batchEnds[b]! });
      from = this.batchEnds[b]!;
    }
    if (this.openIds.length > 0) out.push({ ids: this.openIds.join(','), from, to: this.count });
    return out;
  }

  /**
   * Row `count`'s transaction id joins the look-up batch being filled, or starts the next one. An
   * id new to the file cannot be in the batch already: only a repeated one is looked for there.
   */
  private cutLookUp(id: string, newInFile: boolean): void {
    if (!newInFile && this.openIds.includes(id)) return;
    if (this.openIds.length === this.lookUpLimit) {
      // One flat string per look-up: the ids themselves are not kept.
      const from = this.batchEnds.length > 0 ? this.batchEnds[this.batchEnds.length - 1]! : 0;
      const ids = this.openIds.join(',');
      this.batchIds.push(ids);
      this.batchEnds.push(this.count);
      this.openIds.length = 0;
      this.onLookUpBatch?.({ ids, from, to: this.count });
    }
    this.openIds.push(id);
    // The ids count against the budget as the rows do.
    this.bytes += id.length + 1;
  }

  /** The rows in order, as pass 2 would have read them. Only when `complete`. */
  *rows(): Generator<InputRow> {
    if (this.dropped) throw new Error('row cache was dropped');
    for (let r = 0; r < this.count; r++) yield this.decode(r);
  }

  /**
   * The rows in chunks of `size`, as `chunkRows(rows(), size)` groups them, but each chunk knows its
   * lines at once and decodes its rows only when they are first read. The bulk engine writes the
   * intents of up to 48 chunks ahead of sending them (engine.ts): decoded that early, ~2,400 rows at
   * a time outlived two young-generation collections and were promoted, and most of a run's garbage
   * collection went to them.
   */
  *chunks(size: number): Generator<Chunk<InputRow>> {
    if (this.dropped) throw new Error('row cache was dropped');
    for (let from = 0, index = 0; from < this.count; from += size, index++) {
      const to = Math.min(from + size, this.count);
      const lines: number[] = [];
      for (let i = from; i < to; i++) lines.push(this.lineAt(i));
      let rows: InputRow[] | undefined;
      const decodeRows = (): InputRow[] => {
        const decoded: InputRow[] = [];
        for (let i = from; i < to; i++) decoded.push(this.decode(i));
        rows = decoded;
        return decoded;
      };
      yield {
        index,
        lines,
        get rows() {
          return rows ?? decodeRows();
        },
        release: () => {
          rows = undefined;
        },
      };
    }
  }

  /** Row `i` (0-based, in file order), as `rows()` gives it. Only when `complete`. */
  rowAt(i: number): InputRow {
    if (this.dropped) throw new Error('row cache was dropped');
    if (!(i >= 0 && i < this.count)) throw new RangeError(`no row ${i} in the row cache`);
    return this.decode(i);
  }

  /**
   * The transaction id of row `i` alone: the look-ups before a run (preflight.ts) need only the ids
   * of most rows, and this reads one field of the packed row instead of building the whole row.
   */
  transactionIdAt(i: number): string {
    if (this.dropped) throw new Error('row cache was dropped');
    if (!(i >= 0 && i < this.count)) throw new RangeError(`no row ${i} in the row cache`);
    const at = i * 3;
    const page = this.pages[this.spans[at]!]!;
    // The packed row starts `<flags><line>SEP<transaction_id>SEP`; SEP is one zero byte in UTF-8.
    let start = this.spans[at + 1]!;
    while (page[start] !== 0) start++;
    let end = ++start;
    while (page[end] !== 0) end++;
    return page.toString('utf8', start, end);
  }

  /** The line of row `i`: the digits after its flags. */
  private lineAt(i: number): number {
    const at = i * 3;
    const page = this.pages[this.spans[at]!]!;
    let line = 0;
    for (let j = this.spans[at + 1]! + 1; page[j] !== 0; j++) line = line * 10 + (page[j]! - 48);
    return line;
  }

  private decode(r: number): InputRow {
    const at = r * 3;
    const page = this.pages[this.spans[at]!]!;
    const start = this.spans[at + 1]!;
    const end = this.spans[at + 2]!;
    const flags = page[start]! - FLAGS;
    // The line number from its digits, then the fields as one string cut at each separator (a
    // substring per field: splitting the row into an array cost half as much again).
    let line = 0;
    let i = start + 1;
    for (; page[i] !== 0; i++) line = line * 10 + (page[i]! - 48);
    const text = page.toString('utf8', i + 1, end);
    let from = 0;
    const next = (): string => {
      let to = text.indexOf(SEP, from);
      if (to < 0) to = text.length;
      const field = text.substring(from, to);
      from = to + 1;
      return field;
    };
    // p[1..7]: transaction_id, order_no, currency, amount, refund_amount, refund_reason, review_flag.
    const p = ['', next(), next(), next(), next(), next(), next(), next()];
    const own = (flags & OWN_LAYOUT) !== 0;
    const layout = own ? next() : (this.layout ?? '');
    const cells = new Array<string>(layout.length);
    for (let c = 0; c < layout.length; c++) {
      const k = layout.charCodeAt(c) - 48;
      cells[c] = k === 0 ? next() : p[k]!;
    }
    const row: InputRow = {
      line,
      transaction_id: p[1]!,
      order_no: p[2]!,
      currency: p[3]!,
      amount: p[4]!,
      amountMinor: minorOf(p[4]!),
      cells,
    };
    const noRefund = (flags & NO_REFUND) !== 0;
    if (!noRefund) {
      row.refund_amount = p[5]!;
      row.refundMinor = minorOf(p[5]!);
    }
    if (p[6] !== '' || !noRefund) row.refund_reason = p[6]!;
    if (p[7] !== '') row.review_flag = p[7]!;
    return row;
  }
}

/** Which fixed field (1-7) a cell repeats, or 0. */
function fieldIndex(row: ValidRow, c: string): number {
  if (c === row.transaction_id) return 1;
  if (c === row.order_no) return 2;
  if (c === row.currency) return 3;
  if (c === row.amount) return 4;
  if (c === row.refund_amount) return 5;
  if (c === row.refund_reason) return 6;
  if (c === row.review_flag) return 7;
  return 0;
}

/** Writes a line number's decimal digits at `at`; returns the offset after them. */
function putLine(page: Buffer, at: number, line: number): number {
  if (line < 10) {
    page[at] = 48 + line;
    return at + 1;
  }
  // Exact integer steps only: no fractional value to box while this code is still interpreted.
  let end = at;
  for (let v = line; v > 0; v = (v - (v % 10)) / 10) end++;
  for (let v = line, i = end - 1; i >= at; i--) {
    const d = v % 10;
    page[i] = 48 + d;
    v = (v - d) / 10;
  }
  return end;
}

/** Writes `s` as UTF-8 at `at` (ASCII by hand, the rest as Buffer.write does); returns the offset after it. */
function putText(page: Buffer, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return at + page.write(i === 0 ? s : s.slice(i), at, 'utf8');
    page[at++] = c;
  }
  return at;
}

/** A separator inside a value would make the packed row ambiguous. */
function hasMarker(v: string): boolean {
  return v.includes(SEP);
}
