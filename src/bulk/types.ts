// Shapes shared by the bulk planner, engine, reconciliation and result rendering. Core data only:
// nothing here formats or prints.
import type { BatchOperation } from '../gateway/endpoints.js';

/**
 * What happened to one input row. `already_done`: the gateway showed it done before the run, and
 * the run skipped it (--skip-done); `not_sent`: payops never sent it (run interrupted or stopped), or
 * sent it and proved it was not applied, with no attempt left; `duplicated`: the gateway applied it
 * more than once (a request committed after payops had concluded it was lost); `skipped`: a
 * workbook row a person does not see (hidden, filtered out), left out by --skip-hidden.
 */
export type Outcome =
  | 'succeeded'
  | 'already_done'
  | 'skipped'
  | 'failed'
  | 'unknown'
  | 'not_sent'
  | 'duplicated';

/** One validated input row, as much as the engine needs (validate.ts's ValidRow satisfies it). */
export interface BulkRow {
  /** Line of the row in the input file (1 = header). */
  line: number;
  transaction_id: string;
  order_no: string;
  currency: string;
  amountMinor: bigint;
  refundMinor?: bigint;
  refund_reason?: string;
  review_flag?: string;
  /** Canonical wire text of amountMinor / refundMinor when validation already made it. */
  amount?: string;
  refund_amount?: string;
}

/** A row that passed validation (validate.ts), with its amounts in canonical wire text. */
export interface ValidRow extends BulkRow {
  /** ISO 4217 code, upper case. */
  currency: string;
  /** canonical wire text */
  amount: string;
  review_flag?: '0' | '1';
}

/** A row with its raw input cells, in the file's column order, for the results file. */
export interface InputRow extends BulkRow {
  cells: string[];
}

export interface Chunk<R extends BulkRow = BulkRow> {
  /** 0-based, in input order; identical for the same file, so a resumed run finds its chunks again. */
  index: number;
  /** May be built on first use (a chunk of the row cache decodes its rows only when it is sent). */
  rows: R[];
  /** The rows' lines in order, where known without building `rows` (chunk.ts `chunkLines`). */
  lines?: number[];
  /**
   * Called once the chunk's outcomes are out: a chunk that built its rows on first use forgets them
   * (reading `rows` again builds them again). A chunk outlives its outcomes in places the engine
   * does not control (a suspended generator's registers), and rows kept that long were promoted to
   * V8's old generation, to be freed only by a full collection.
   */
  release?: () => void;
}

/** The wire element of one row (capture_orders / cancel_orders / review_orders / refund_orders). */
export type WireElement = Record<string, string>;

export interface RowOutcome {
  line: number;
  outcome: Outcome;
  /** Why, in words: the gateway's message, or how the outcome was established. */
  detail: string;
  /** The gateway's per-order fields (status, error_message, refund_reference_id, …). */
  fields: Record<string, string>;
  /**
   * Set by reconciliation only: the operation certainly did not take effect and the order still
   * allows it. Never journaled as such: the engine sends the row again or leaves it `not_sent`.
   */
  absent?: boolean;
}

export type OutcomeCounts = {
  succeeded: number;
  failed: number;
  unknown: number;
  not_sent: number;
  already_done: number;
  skipped: number;
  duplicated: number;
};

/** Counts and money per outcome; money is what the operation moves (refund_amount for refunds). */
export interface RunTotals {
  counts: OutcomeCounts;
  /** outcome → currency → minor units. */
  money: Record<Outcome, Map<string, bigint>>;
}

export type { BatchOperation };
