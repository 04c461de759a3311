// How a bulk run reads its input file: as a table (tabular/read-as.ts: encoding, decimal mark,
// hidden rows) and, for refunds, the reason of rows that have none (--refund-reason). Kept with the
// run as its header's `readAs` JSON, so pass 2, --resume and `runs resume` read the run's own copy
// exactly as pass 1 did.
import { UsageError } from '../errors.js';
import type { DecimalMark } from '../money/amount.js';
import { hiddenTextProblem } from '../quote.js';
import {
  encodingAndMark,
  type TableReadAs,
  type TableReadFlags,
  tableReadAsOf,
  withColumns,
  withHidden,
} from '../tabular/read-as.js';

export interface ReadAs extends TableReadAs {
  /** --refund-reason: the reason of refund rows that have none. */
  refundReason?: string;
}

/** The flags and profile value that choose how a file is read. */
export interface ReadFlags extends TableReadFlags {
  refundReason?: string;
  columns?: string;
  headerRow?: number;
}

/** The columns a command reads and the profile's mapping for them (columns.<command>). */
export interface ColumnsContext {
  known: readonly string[];
  profile?: { key: string; text: string };
}

export function readAsFrom(
  flags: ReadFlags,
  profileMark: DecimalMark | undefined,
  columns?: ColumnsContext,
): ReadAs {
  const readAs: ReadAs = encodingAndMark(flags, profileMark);
  if (flags.refundReason !== undefined) {
    if (flags.refundReason.trim() === '')
      throw new UsageError('--refund-reason is empty: give the reason text');
    const hidden = hiddenTextProblem(flags.refundReason, 'reason');
    if (hidden) throw new UsageError(`--refund-reason ${hidden}`);
    readAs.refundReason = flags.refundReason;
  }
  withHidden(readAs, flags);
  return columns === undefined ? readAs : withColumns(readAs, flags, columns.known, columns.profile);
}

/** The run header's `readAs` text (JSON) → ReadAs, the refund reason included; none reads as before. */
export function readAsOf(text: string | undefined): ReadAs {
  return tableReadAsOf<ReadAs>(text);
}
