// Pass 1 of a bulk run: stream the whole input through validation, keeping no rows, and produce the
// plan — rows, requests, totals per currency, the file's SHA-256 — or an InputError listing every
// problem found (nothing is sent). Safety limits (--max-orders, --max-amount) are enforced here.

import { InputError, type InputProblem, UsageError } from '../../errors.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { addToTotals, formatMoney, parseAmount } from '../../money/amount.js';
import { currencyInfo, normaliseCurrency } from '../../money/currency.js';
import type { ColumnMatch } from '../../tabular/column-match.js';
import type { CsvRow, CsvRows, HiddenMode, SheetFacts } from '../../tabular/csv-reader.js';
import { everyRowHidden, type HiddenRow, type HiddenRows } from '../../tabular/hidden.js';
import { DEFAULT_READ_AS, settleMark } from '../../tabular/read-as.js';
import { lookUpLimit } from '../check/preflight.js';
import { chunkSize, requestCount } from '../engine/chunk.js';
import { asFlagProblem, type InputSource, openRows, rulesOf } from '../input.js';
import { OPERATIONS } from '../operations.js';
import type { ReadAs } from '../read-as.js';
import type { ValidRow } from '../types.js';
import { ContentKey } from './content-key.js';
import type { RowCache } from './row-cache.js';
import { checkRow, crossChecker, type RowRules } from './row-check.js';

export interface MaxAmount {
  currency: string;
  minor: bigint;
}

export interface PlanLimits {
  maxOrders?: number;
  /** One limit per currency; a file moving a currency without a limit is refused. */
  maxAmounts?: MaxAmount[];
}

export interface BulkPlan {
  op: BatchOperation;
  source: InputSource;
  /** Input columns as written in the header, in order. */
  columns: string[];
  sha256: string;
  /** What the file means, whatever its bytes (content-key.ts): the input lock is held on it. */
  content: string;
  rows: number;
  requests: number;
  chunkSize: number;
  /** Order amounts per currency (minor units). */
  amounts: Map<string, bigint>;
  /** Money the operation moves per currency: refund_amount for refunds, the order amount otherwise. */
  moving: Map<string, bigint>;
  /**
   * What each chunk (request) moves, by chunk index: a resumed run's plan totals the chunks left,
   * not the whole file (issue 27). One short list per chunk, not per row.
   */
  chunkMoving?: Array<Array<[currency: string, minor: bigint]>>;
  /** Distinct orders (rows of one order — partial refunds — count once); `amounts` counts each once. */
  orders?: number;
  /** A review: rows to approve (review_flag 1) and to reject (0), with their order amounts. */
  reviews?: {
    approve: number;
    reject: number;
    approveAmounts: Map<string, bigint>;
    rejectAmounts: Map<string, bigint>;
  };
  /** How the file was read (also in `source.readAs`): the plan says which decimal mark and why. */
  readAs?: ReadAs;
  /** Rows whose refund_reason came from --refund-reason. */
  reasonFilled?: number;
  /** Things to check that are no reason to refuse the file (ids a spreadsheet may have rounded). */
  warnings?: InputProblem[];
  /** A workbook's sheet that was read: the plan names it. */
  sheet?: SheetFacts;
  /** The header's line (row) and the columns matched other than by name: the plan says them. */
  header?: { line: number; matches: ColumnMatch[] };
  /** A workbook's rows a person does not see; absent when there are none. */
  hidden?: HiddenRows;
}

/** Warnings kept in full; beyond this only counted. */
const MAX_WARNINGS = 20;

/**
 * An all-digit id of 16 or more digits ending in zeros may be a longer id a spreadsheet rounded:
 * Excel keeps 15 significant digits of a number. The gateway check (order not found) settles it.
 */
export function roundedIdWarning(row: ValidRow, file: string): InputProblem | undefined {
  for (const field of ['transaction_id', 'order_no'] as const) {
    const id = row[field];
    if (id.length >= 16 && id.charCodeAt(id.length - 1) === 48 && /^\d+$/.test(id)) {
      return {
        file,
        line: row.line,
        field,
        message: `${field} ${id} has ${id.length} digits ending in zeros: a spreadsheet may have rounded it (Excel keeps 15 significant digits)`,
        expected: 'the id exactly as the gateway issued it (format the column as Text before entering ids)',
      };
    }
  }
  return undefined;
}

/** Problems kept in full; beyond this only counted (a million bad rows must not fill memory). */
export const MAX_PROBLEMS_KEPT = 1000;

/** `USD:5000` or `usd:5000.00` → a limit in minor units. */
export function parseMaxAmount(text: string): MaxAmount {
  const m = /^\s*([A-Za-z]{3})\s*:\s*(.+?)\s*$/.exec(text);
  const fail = (why: string) =>
    new UsageError(`--max-amount ${JSON.stringify(text)}: ${why}`, {
      hint: 'write it as CURRENCY:AMOUNT, e.g. --max-amount USD:5000 (repeat it for each currency)',
    });
  if (!m) throw fail('expected CURRENCY:AMOUNT');
  const currency = normaliseCurrency(m[1]!);
  if (currencyInfo(currency) === undefined) throw fail(`${currency} is not an ISO 4217 currency code`);
  const parsed = parseAmount(m[2]!, currency);
  if (!parsed.ok) throw fail(parsed.message);
  return { currency, minor: parsed.minor };
}

/** A file's problems as they are; those of rows given on the command line name the flag instead. */
function asFlagError(source: InputSource, err: unknown): unknown {
  return source.inline && err instanceof InputError
    ? new InputError(err.message, err.problems.map(asFlagProblem), { hint: err.hint })
    : err;
}

/** Rows of pass 1 between two turns of the event loop while look-ups run beside it. */
const BREATHE_ROWS = 500;

/**
 * Pass 1. With `cache`, the valid rows are also kept (compactly, within its budget) so that pass 2
 * need not read the file again. `lookUps`: the gateway check running beside pass 1 (look-ahead.ts),
 * stopped at the first problem found and given a turn of the event loop every BREATHE_ROWS rows.
 */
export async function planBulk(
  op: BatchOperation,
  source: InputSource,
  limits: PlanLimits = {},
  cache?: RowCache,
  lookUps?: { stop(): void },
): Promise<BulkPlan> {
  const problems: InputProblem[] = [];
  let dropped = 0;
  // A workbook's problems name their cell (`refunds.xlsx:Sheet1!C7`) rather than file:line.
  let locate = (p: InputProblem) => p;
  const note = (list: readonly InputProblem[] | undefined) => {
    // Nearly every row has none: no iterator for an empty list (while this code is still cold).
    if (!list || list.length === 0) return;
    if (problems.length === 0 && dropped === 0) lookUps?.stop();
    for (const p of list) {
      if (problems.length < MAX_PROBLEMS_KEPT) problems.push(source.inline ? asFlagProblem(p) : locate(p));
      else dropped++;
    }
  };

  // The decimal mark settled first (a `;` or tab file may need its amounts looked at once).
  let readAs: ReadAs;
  try {
    readAs = await settleMark(
      source.label,
      source.path,
      source.readAs ?? DEFAULT_READ_AS,
      OPERATIONS[op].elementFields.filter((f) => f === 'amount' || f === 'refund_amount'),
    );
  } catch (err) {
    throw asFlagError(source, err);
  }
  source = { ...source, readAs };
  const rules = rulesOf(source);
  const opened = openRows(op, source, rules);
  let columns: string[];
  try {
    columns = await opened.columns;
    locate = await opened.locate;
  } catch (err) {
    throw asFlagError(source, err);
  }
  const tally = new Tally(op, source.label, note, cache, rules, readAs.hidden);
  // Rows already parsed are taken in a plain loop (`ready`), without a promise each; `next`
  // waits for more.
  const reader = opened.rows;
  let read = false;
  let breathed = 0;
  try {
    for (;;) {
      tally.takeReady(reader);
      // With look-ups under way (look-ahead.ts), let their answers in every so many rows: the file's
      // next bytes are often read already, and awaiting them never reached the event loop, so the
      // look-ups stood still until pass 1 ended and overlapped it hardly at all.
      if (lookUps !== undefined && tally.rows - breathed >= BREATHE_ROWS) {
        breathed = tally.rows;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const next = await reader.next();
      if (next.done) break;
      tally.take(next.value);
    }
    tally.finish();
    read = true;
  } finally {
    // As `for await` would: a loop left early stops the reading.
    if (!read) await reader.return?.();
  }
  const { cross, amounts, moving, rows, content, orders, warnings } = tally;
  note(cross.finish());
  const sha256 = await opened.sha256;
  const sheet = await opened.sheet;
  const headerRead = await opened.header;

  if (dropped > 0) {
    problems.push({ file: source.label, message: `… and ${dropped} more problems not listed` });
  }
  if (problems.length > 0) {
    const total = problems.length - (dropped > 0 ? 1 : 0) + dropped;
    throw new InputError(
      `${source.label}: ${total} problem${total === 1 ? '' : 's'} found; nothing was sent`,
      problems,
      {
        hint: source.inline
          ? undefined
          : 'fix every listed row and run again (`--dry-run` checks a file without sending)',
      },
    );
  }
  if (rows === 0 && tally.hidden.length > 0) throw everyRowHidden(source.label, tally.hidden, readAs.hidden);
  if (rows === 0) {
    throw new InputError(`${source.label} has no orders (only a header)`, [
      {
        file: source.label,
        line: 2,
        message: 'no data rows',
        expected: 'one order per row under the header',
      },
    ]);
  }
  enforceLimits(op, rows, moving, limits);

  return {
    op,
    source,
    columns,
    sha256,
    content: `${op}:${content.digest()}`,
    rows,
    requests: requestCount(rows, op),
    chunkSize: chunkSize(op),
    amounts,
    moving,
    chunkMoving: tally.chunkMoving,
    orders,
    ...(OPERATIONS[op].approvesOrRejects ? { reviews: tally.reviews } : {}),
    readAs,
    reasonFilled: rules.filled,
    warnings,
    ...(sheet === undefined ? {} : { sheet }),
    ...(source.inline ? {} : { header: { line: headerRead.line ?? 1, matches: headerRead.matches ?? [] } }),
    ...(tally.hidden.length === 0 ? {} : { hidden: { mode: readAs.hidden, rows: tally.hidden } }),
  };
}

/**
 * Pass 1's work on each row: check it, check it against the rows before it, keep it (row cache),
 * add it to the content key and the totals. A plain class rather than the body of planBulk's
 * loop: an async function is compiled as a whole, with all it calls, and later; this code is
 * optimised early in a big file.
 */
class Tally {
  readonly cross: ReturnType<typeof crossChecker>;
  readonly amounts = new Map<string, bigint>();
  readonly moving = new Map<string, bigint>();
  readonly content = new ContentKey();
  rows = 0;
  orders = 0;
  readonly reviews = {
    approve: 0,
    reject: 0,
    approveAmounts: new Map<string, bigint>(),
    rejectAmounts: new Map<string, bigint>(),
  };
  readonly warnings: InputProblem[] = [];
  readonly hidden: HiddenRow[] = [];
  private readonly skipHidden: boolean;
  private readonly includeHidden: boolean;
  private readonly moves: 'amountMinor' | 'refundMinor';
  // Totals of the rows since the currency last changed, added to the maps when it changes again
  // (two map look-ups and stores per row otherwise); the maps keep first-seen currency order.
  private runCurrency: string | undefined;
  private runAmount = 0n;
  private runMoving = 0n;
  /** Per chunk: what it moves in each currency, in the order met (see BulkPlan.chunkMoving). */
  readonly chunkMoving: Array<Array<[string, bigint]>> = [];
  private readonly size: number;

  constructor(
    private readonly op: BatchOperation,
    private readonly file: string,
    private readonly note: (list: readonly InputProblem[] | undefined) => void,
    private readonly cache: RowCache | undefined,
    private readonly rules: RowRules,
    hidden?: HiddenMode,
  ) {
    this.skipHidden = hidden === 'skip';
    this.includeHidden = hidden === 'include';
    this.cross = crossChecker(op, file);
    this.moves = OPERATIONS[op].moves;
    this.size = chunkSize(op);
    // The look-ups before a run are cut as the rows come (ids only: nothing is sent in pass 1).
    cache?.cutLookUps(lookUpLimit(op));
  }

  /** Every row the reader has parsed already. */
  takeReady(reader: CsvRows): void {
    for (let row = reader.ready(); row !== undefined; row = reader.ready()) this.take(row);
  }

  take(row: CsvRow): void {
    if (row.hidden !== undefined) {
      // A row nobody sees is checked, counted and sent only with --include-hidden: left out by
      // --skip-hidden, and without a flag listed for the refusal (run.ts), not in the totals.
      if (!this.includeHidden) {
        this.hidden.push({
          line: row.line,
          ref: row.hidden,
          ...(this.skipHidden ? { cells: row.cells } : {}),
        });
        return;
      }
      this.hidden.push({ line: row.line, ref: row.hidden });
    }
    const { valid, problems } = checkRow(this.op, row, this.file, this.rules);
    this.note(problems);
    if (!valid) return;
    // Ids of 16+ digits are rare: one length test per row before any pattern.
    if (valid.transaction_id.length >= 16 || valid.order_no.length >= 16) this.warnId(valid);
    this.note(this.cross.add(valid));
    const cache = this.cache;
    cache?.add(valid, row.cells, this.cross.lastWasFirst());
    // From the bytes the cache has just written when it can (the same key, read cheaper).
    if (cache === undefined || !cache.keyLastRow(this.content)) this.content.add(valid);
    this.rows++;
    if (valid.currency !== this.runCurrency) {
      this.finish();
      this.runCurrency = valid.currency;
      this.runAmount = 0n;
      this.runMoving = 0n;
    }
    // An order's amount counts once, however many rows (partial refunds) it has.
    if (this.cross.lastWasFirst()) {
      this.orders++;
      this.runAmount += valid.amountMinor;
    }
    const moves = valid[this.moves] ?? valid.amountMinor;
    this.runMoving += moves;
    this.addToChunk(valid.currency, moves);
    if (valid.review_flag !== undefined) {
      const approve = valid.review_flag === '1';
      if (approve) this.reviews.approve++;
      else this.reviews.reject++;
      addToTotals(
        approve ? this.reviews.approveAmounts : this.reviews.rejectAmounts,
        valid.currency,
        valid.amountMinor,
      );
    }
  }

  private dropped = 0;

  /** The row just counted (this.rows - 1) into its chunk's totals. */
  private addToChunk(currency: string, minor: bigint): void {
    const index = this.rows - 1;
    let chunk: Array<[string, bigint]>;
    if (index % this.size === 0) {
      chunk = [];
      this.chunkMoving.push(chunk);
    } else chunk = this.chunkMoving[this.chunkMoving.length - 1]!;
    const last = chunk[chunk.length - 1];
    if (last !== undefined && last[0] === currency) last[1] += minor;
    else chunk.push([currency, minor]);
  }

  private warnId(valid: ValidRow): void {
    const w = roundedIdWarning(valid, this.file);
    if (w === undefined) return;
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(w);
    else if (++this.dropped === 1) this.warnings.push({ file: this.file, message: '… and more such ids' });
  }

  /** The totals of the last run of one currency into the maps. */
  finish(): void {
    if (this.runCurrency === undefined) return;
    addToTotals(this.amounts, this.runCurrency, this.runAmount);
    addToTotals(this.moving, this.runCurrency, this.runMoving);
    this.runCurrency = undefined;
  }
}

function enforceLimits(
  op: BatchOperation,
  rows: number,
  moving: Map<string, bigint>,
  limits: PlanLimits,
): void {
  if (limits.maxOrders !== undefined && rows > limits.maxOrders) {
    throw new InputError(
      `the file has ${rows} orders, more than --max-orders ${limits.maxOrders}; nothing was sent`,
      [],
      {
        hint: 'split the file, or raise --max-orders if this many is intended',
      },
    );
  }
  const maxAmounts = limits.maxAmounts ?? [];
  if (maxAmounts.length === 0) return;
  const { plural: what, moneyVerb } = OPERATIONS[op].words;
  for (const [currency, total] of moving) {
    const limit = maxAmounts.find((m) => m.currency === currency);
    if (limit === undefined) {
      throw new InputError(
        `the file ${moneyVerb} ${formatMoney(total, currency)}, but --max-amount sets no limit for ${currency}; nothing was sent`,
        [],
        { hint: `add --max-amount ${currency}:AMOUNT` },
      );
    }
    if (total > limit.minor) {
      throw new InputError(
        `the ${what} in the file total ${formatMoney(total, currency)}, more than --max-amount ${formatMoney(limit.minor, currency)}; nothing was sent`,
        [],
        { hint: 'check the file; raise --max-amount if this total is intended' },
      );
    }
  }
}
