// The flags of `payops capture|cancel|review|refund`: one order given by flags, or a file.
import { UsageError } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import type { InlineOrder } from './input.js';
import { ALL_ORDER_FLAGS, OPERATIONS } from './operations.js';

export interface BulkFlags {
  file?: string;
  /** A workbook's sheet to read (--sheet); default its first. */
  sheet?: string;
  /** --columns 'transaction_id=Txn Ref,…': the file's headers for columns named otherwise. */
  columns?: string;
  /** --header-row N: the row that holds the header. */
  headerRow?: number;
  transactionId?: string;
  orderNo?: string;
  currency?: string;
  amount?: string;
  refundAmount?: string;
  refundReason?: string;
  reviewFlag?: string;
  resume?: boolean;
  force?: boolean;
  skipDone?: boolean;
  /** --no-check: capture, cancel, review sent without the gateway check (order query is IP-restricted). */
  noCheck?: boolean;
  /** --settle-time, in ms (parsed by the command). */
  settleTime?: number;
  maxAttempts?: number;
  maxOrders?: number;
  maxAmount?: string[];
  /** Amounts use a decimal comma (`49,99`, `1.234,56`). */
  decimalComma?: boolean;
  /** The file's encoding (utf-8, windows-1252, latin1, utf-16le, utf-16be). */
  encoding?: string;
  /** A workbook's hidden rows and sheets: send them (--include-hidden) or leave them out (--skip-hidden). */
  includeHidden?: boolean;
  skipHidden?: boolean;
  /** --plan FILE: the approved plan this run must be (approval/gate.ts). */
  plan?: string;
}

/** How a run sends again rows whose requests were lost (not the transport's RetryPolicy): from the flags, else the profile, else defaults. */
export interface ResendPolicy {
  settleMs: number;
  maxAttempts: number;
}

export const DEFAULT_MAX_ATTEMPTS = 3;

export function resendPolicy(
  flags: Pick<BulkFlags, 'settleTime' | 'maxAttempts'>,
  settleMs: number,
): ResendPolicy {
  return { settleMs: flags.settleTime ?? settleMs, maxAttempts: flags.maxAttempts ?? DEFAULT_MAX_ATTEMPTS };
}

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** One order given by flags, or undefined for --file; refuses both, neither, and foreign flags. */
export function inlineOrder(op: BatchOperation, flags: BulkFlags): InlineOrder | undefined {
  // With --file, --refund-reason is the reason of the rows that have none (read-as.ts).
  const given = ALL_ORDER_FLAGS.filter(
    (k) => flags[k] !== undefined && !(flags.file !== undefined && k === 'refundReason'),
  );
  if (flags.file !== undefined) {
    if (given.length > 0) {
      throw new UsageError(
        `give either --file or the order flags, not both (${given.map(flagName).join(', ')})`,
      );
    }
    return undefined;
  }
  if (given.length === 0) {
    throw new UsageError(
      `give --file FILE.csv, or one order with ${OPERATIONS[op].flags.map((f) => f.option).join(' ')}`,
    );
  }
  const allowed = new Set<keyof BulkFlags>(OPERATIONS[op].flags.map((f) => f.key));
  const foreign = given.filter((k) => !allowed.has(k));
  if (foreign.length > 0) {
    throw new UsageError(
      `${foreign.map(flagName).join(', ')} ${foreign.length > 1 ? 'do' : 'does'} not apply to ${op}`,
    );
  }
  // Missing values become empty cells, so validation names each missing flag.
  return OPERATIONS[op].flags.map((f) => [f.column, String(flags[f.key] ?? '')]);
}
