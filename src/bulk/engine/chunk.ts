// Rows → chunks of the operation's limit → wire elements; gateway results → per-row outcomes,
// matched by transaction_id + order_no and the amounts in minor units (by position only where each
// result answers its row's element).
import { ORDER_FIELDS } from '../../gateway/batch-rules.js';
import { type BatchOperation, ENDPOINTS } from '../../gateway/endpoints.js';
import { splitCodedMessage } from '../../gateway/types.js';
import { formatAmount, parseAmount } from '../../money/amount.js';
import { quote } from '../../quote.js';
import { redactOutput } from '../../redact.js';
import { OPERATIONS } from '../operations.js';
import { reasonEchoes, reasonKey, sameReason } from '../plan/reason.js';
import type { BulkRow, Chunk, RowOutcome, WireElement } from '../types.js';
import { sameMoney } from './reconcile.js';

/** Orders per request for a bulk operation, from the endpoints table. */
export function chunkSize(op: BatchOperation): number {
  return ENDPOINTS[op].limit;
}

export function requestCount(rows: number, op: BatchOperation): number {
  return Math.ceil(rows / chunkSize(op));
}

/** The lines of a chunk's rows, in order, building the rows only when the chunk does not know them. */
export function chunkLines(chunk: Chunk): number[] {
  return chunk.lines ?? chunk.rows.map((r) => r.line);
}

/** Group rows into chunks of `size`, numbered from 0, without holding more than one chunk. */
export async function* chunkRows<R extends BulkRow>(
  rows: AsyncIterable<R> | Iterable<R>,
  size: number,
): AsyncGenerator<Chunk<R>> {
  let index = 0;
  let current: R[] = [];
  /** Add a row; the chunk it completes, if it does. */
  const add = (row: R): Chunk<R> | undefined => {
    current.push(row);
    if (current.length < size) return undefined;
    const full = { index: index++, rows: current };
    current = [];
    return full;
  };
  if (Symbol.asyncIterator in rows) {
    for await (const row of rows) {
      const full = add(row);
      if (full) yield full;
    }
  } else {
    // Rows already in memory (pass 1's cache) are taken synchronously: `for await` over them
    // would cost a promise and a microtask per row.
    for (const row of rows) {
      const full = add(row);
      if (full) yield full;
    }
  }
  if (current.length > 0) yield { index, rows: current };
}

/**
 * How a row gives each wire element field beyond the four that name the order. An operation sends
 * the fields its entry lists (OPERATIONS[op].elementFields), in that order.
 */
const EXTRA_VALUE: Readonly<Record<string, (row: BulkRow) => string>> = {
  refund_amount: (r) => r.refund_amount ?? formatAmount(r.refundMinor ?? r.amountMinor, r.currency),
  refund_reason: (r) => r.refund_reason ?? '',
  review_flag: (r) => r.review_flag ?? '',
};

interface Extras {
  fields: string[];
  values: Array<(row: BulkRow) => string>;
}
const extrasByOp = new Map<BatchOperation, Extras>();

function extrasOf(op: BatchOperation): Extras {
  let extras = extrasByOp.get(op);
  if (extras === undefined) {
    const fields = OPERATIONS[op].elementFields;
    if (ORDER_FIELDS.some((f, i) => fields[i] !== f)) {
      throw new Error(`${op}: a wire element begins with ${ORDER_FIELDS.join(', ')}`);
    }
    extras = { fields: fields.slice(ORDER_FIELDS.length), values: [] };
    for (const f of extras.fields) {
      const value = EXTRA_VALUE[f];
      if (value === undefined)
        throw new Error(`${op}: bulk/engine/chunk.ts does not know how a row gives ${f}`);
      extras.values.push(value);
    }
    extrasByOp.set(op, extras);
  }
  return extras;
}

/** The request element of one row; amounts are canonical wire text. */
export function wireElement(op: BatchOperation, row: BulkRow): WireElement {
  // The order's four fields as a literal: this runs for every row of a run, and a literal is
  // several times faster to build than the same object field by field.
  const el: WireElement = {
    transaction_id: row.transaction_id,
    order_no: row.order_no,
    currency: row.currency,
    amount: row.amount ?? formatAmount(row.amountMinor, row.currency),
  };
  const { fields, values } = extrasOf(op);
  for (let i = 0; i < fields.length; i++) el[fields[i]!] = values[i]!(row);
  return el;
}

function key(transactionId: unknown, orderNo: unknown): string {
  return `${String(transactionId ?? '')}\u0000${String(orderNo ?? '')}`;
}

/** `E2003:…` or `0000:Refund accepted` → the text a person reads. */
function messageOf(op: BatchOperation, result: Record<string, unknown>): string {
  const msg = result[OPERATIONS[op].messageField];
  return typeof msg === 'string' ? msg : '';
}

/** Element fields that hold an amount: compared in minor units (`30` and `30.00` are one amount). */
const AMOUNT_FIELDS: ReadonlySet<string> = new Set(['amount', 'refund_amount']);

/**
 * Whether a result can be the answer to an element of its order: what it says of the currency,
 * the amounts (in minor units) and the operation's distinguishing fields (a reason as the gateway
 * echoes it: reason.ts) agrees with the element. A field the result leaves out decides nothing.
 */
function agrees(rec: Record<string, unknown>, el: WireElement, distinctBy: readonly string[]): boolean {
  if (
    rec.currency != null &&
    rec.currency !== el.currency &&
    String(rec.currency).toUpperCase() !== String(el.currency ?? '').toUpperCase()
  )
    return false;
  if (rec.amount != null && !sameMoney(String(rec.amount), el.amount, el.currency)) return false;
  for (const f of distinctBy) {
    const v = rec[f];
    if (v == null || v === el[f]) continue;
    const text = String(v);
    if (
      AMOUNT_FIELDS.has(f)
        ? !sameMoney(text, el[f], el.currency)
        : f === 'refund_reason'
          ? !reasonEchoes(el[f], text)
          : true
    )
      return false;
  }
  return true;
}

/** An element by what it means (its order, amounts in minor units, reason by meaning). */
function meaningOf(el: WireElement, distinctBy: readonly string[]): string {
  let m = key(el.transaction_id, el.order_no);
  for (const f of distinctBy) {
    const v = el[f] ?? '';
    if (AMOUNT_FIELDS.has(f)) {
      const p = parseAmount(v, el.currency ?? '');
      m += `\u0000${p.ok ? String(p.minor) : v}`;
    } else m += `\u0000${f === 'refund_reason' ? reasonKey(v) : v}`;
  }
  return m;
}

function unknownRow(line: number, detail: string): RowOutcome {
  return { line, outcome: 'unknown', detail, fields: {} };
}

/**
 * A row's outcome from the one result that answers it. `failed` only when the result clearly
 * refuses the row — status `0` with an error code; `succeeded` for status `1` without one; any
 * other answer (no status, an unknown status, a status contradicting its message) is `unknown`,
 * to be settled at the gateway: the gateway may well have done the work (issue 23).
 */
function readResult(op: BatchOperation, line: number, result: Record<string, unknown>): RowOutcome {
  const statusField = ENDPOINTS[op].statusField;
  const fields: Record<string, string> = {};
  for (const f of OPERATIONS[op].resultColumns) {
    const v = result[f];
    // The gateway's text as the --debug log shows it, before it reaches the journal, the results
    // and the screen (issue 24): an echo of a card number is masked, identifiers kept.
    if (v !== undefined && v !== null) fields[f] = redactOutput(f, String(v));
  }
  const raw = result[statusField];
  const status = raw === undefined || raw === null ? undefined : String(raw);
  const message = redactOutput(undefined, messageOf(op, result));
  // Most answers are `0000:…` or empty: no regular expression for those (this runs for every row).
  const code =
    message === '' ? undefined : message.startsWith('0000:') ? '0000' : splitCodedMessage(message).code;
  const errorCode = code !== undefined && code !== '0000';
  if (status === '1' && !errorCode)
    return { line, outcome: 'succeeded', detail: message || 'accepted', fields };
  if (status === '0' && errorCode) return { line, outcome: 'failed', detail: message, fields };
  const said = message ? ` (${quote(message)})` : '';
  return unknownRow(
    line,
    status === undefined
      ? `the gateway's result for this order has no ${statusField}${said}`
      : status === '1'
        ? `the gateway's result for this order contradicts itself: ${statusField} 1 with the error ${quote(message)}`
        : status === '0'
          ? `the gateway's result for this order has ${statusField} 0 without an error code${said}`
          : `the gateway's result for this order has ${statusField} ${quote(status)}, which payops does not know${said}`,
  );
}

/**
 * Turn a batch response's result array into one outcome per element, in element order. A result
 * answers an element when it names its transaction_id and order_no and agrees with its amounts (in
 * minor units) and, for several rows of one order (partial refunds), the operation's distinctBy
 * fields; each result answers one element at most. An element no result answers, or two, or one
 * that could as well answer another row, is `unknown` — settled at the gateway, never `failed`.
 */
export function matchResults(
  op: BatchOperation,
  lines: readonly number[],
  elements: readonly WireElement[],
  results: readonly unknown[],
): RowOutcome[] {
  const { distinctBy } = OPERATIONS[op];
  // A gateway answers in request order almost always: when every result answers the element at
  // its position (and no order repeats there), that is the match, with no index built.
  if (alignedResults(elements, results, distinctBy)) {
    return elements.map((_, i) => readResult(op, lines[i]!, results[i] as Record<string, unknown>));
  }
  const recs = results.map((r) =>
    r && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : undefined,
  );
  const byKey = new Map<string, number[]>();
  recs.forEach((rec, i) => {
    if (!rec) return;
    const k = key(rec.transaction_id, rec.order_no);
    const list = byKey.get(k);
    if (list) list.push(i);
    else byKey.set(k, [i]);
  });
  const named = elements.map((el) => byKey.get(key(el.transaction_id, el.order_no)) ?? []);
  const fits = elements.map((el, n) => {
    const all = named[n]!.filter((i) => agrees(recs[i]!, el, distinctBy));
    if (!distinctBy.includes('refund_reason')) return all;
    // A reason echoed whole is this row's before one that is only a cut-short echo of it.
    const exact = all.filter((i) =>
      sameReason(el.refund_reason, recs[i]!.refund_reason as string | undefined),
    );
    return exact.length > 0 ? exact : all;
  });
  const meaning = elements.map((el) => meaningOf(el, distinctBy));
  // Which rows (by meaning) each result can answer, and how many rows mean the same (a file never
  // holds two, validate.ts; they would be interchangeable).
  const owners = new Map<number, Set<string>>();
  const alike = new Map<string, number>();
  fits.forEach((list, n) => {
    alike.set(meaning[n]!, (alike.get(meaning[n]!) ?? 0) + 1);
    for (const i of list) {
      const set = owners.get(i) ?? new Set<string>();
      set.add(meaning[n]!);
      owners.set(i, set);
    }
  });
  const used = new Set<number>();
  return elements.map((el, n) => {
    const line = lines[n]!;
    const list = fits[n]!;
    if (list.length === 0) {
      return unknownRow(
        line,
        named[n]!.length > 0
          ? `the gateway's result for this order names another amount or reason (${describe(recs[named[n]![0]!]!, el)})`
          : 'the gateway answered but returned no result for this order',
      );
    }
    if (list.some((i) => owners.get(i)!.size > 1)) {
      const others = elements.flatMap((_, m) =>
        m !== n && meaning[m] !== meaning[n] && fits[m]!.some((i) => list.includes(i)) ? [lines[m]!] : [],
      );
      return unknownRow(
        line,
        `ambiguous: the gateway's result for this order could answer this row or line ${others.join(', line ')}`,
      );
    }
    if (list.length > alike.get(meaning[n]!)!) {
      return unknownRow(line, `the gateway answered ${list.length} results for this order`);
    }
    const pick = list.find((i) => !used.has(i));
    if (pick === undefined)
      return unknownRow(line, 'the gateway answered but returned no result for this order');
    used.add(pick);
    return readResult(op, line, recs[pick]!);
  });
}

/** What a result says of the amounts and reason, for a row it does not answer. */
function describe(rec: Record<string, unknown>, el: WireElement): string {
  const parts: string[] = [];
  for (const f of ['amount', 'refund_amount', 'refund_reason']) {
    if (rec[f] != null && el[f] !== undefined) parts.push(`${f} ${quote(String(rec[f]))}`);
  }
  return parts.join(', ') || 'no amounts';
}

/** Whether result i answers element i for every i, and no order appears twice. */
function alignedResults(
  elements: readonly WireElement[],
  results: readonly unknown[],
  distinctBy: readonly string[],
): boolean {
  if (results.length !== elements.length) return false;
  const seen = new Set<string>();
  for (let i = 0; i < elements.length; i++) {
    const r = results[i];
    if (!r || typeof r !== 'object') return false;
    const rec = r as Record<string, unknown>;
    const el = elements[i]!;
    if (rec.transaction_id !== el.transaction_id || rec.order_no !== el.order_no) return false;
    if (!agrees(rec, el, distinctBy)) return false;
    // Several rows of one order (partial refunds) are matched by OPERATIONS[op].distinctBy instead.
    const before = seen.size;
    seen.add(String(el.transaction_id));
    if (seen.size === before) return false;
  }
  return true;
}

/** Every row of a chunk with the same outcome (whole-request rejection, not sent, …). */
export function sameOutcome(
  lines: readonly number[],
  outcome: RowOutcome['outcome'],
  detail: string,
): RowOutcome[] {
  return lines.map((line) => ({ line, outcome, detail, fields: {} }));
}
