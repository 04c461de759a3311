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
  withHidden,
} from '../tabular/read-as.js';

export interface ReadAs extends TableReadAs {
  /** --refund-reason: the reason of refund rows that have none. */
  refundReason?: string;
}

/** The flags and profile value that choose how a file is read. */
export interface ReadFlags extends TableReadFlags {
  refundReason?: string;
}

export function readAsFrom(flags: ReadFlags, profileMark: DecimalMark | undefined): ReadAs {
  const readAs: ReadAs = encodingAndMark(flags, profileMark);
  if (flags.refundReason !== undefined) {
    if (flags.refundReason.trim() === '')
      throw new UsageError('--refund-reason is empty: give the reason text');
    const hidden = hiddenTextProblem(flags.refundReason, 'reason');
    if (hidden) throw new UsageError(`--refund-reason ${hidden}`);
    readAs.refundReason = flags.refundReason;
  }
  return withHidden(readAs, flags);
}

/** The run header's `readAs` text (JSON) → ReadAs, the refund reason included; none reads as before. */
export function readAsOf(text: string | undefined): ReadAs {
  return tableReadAsOf<ReadAs>(text);
}
