// How the rows of one file are read beyond their columns (validate.ts): kept apart so that
// validation stays one readable file.
import { type AmountStyle, DOT_DEFAULT } from '../../money/amount.js';

/**
 * How the rows of one file are read, beyond their columns: the decimal mark (money/amount.ts
 * AmountStyle) and the refund reason given by --refund-reason for rows that have none. `filled`
 * counts the rows that took it (the plan says how many).
 */
export interface RowRules {
  style: AmountStyle;
  reasonFill?: string;
  filled: number;
}

export function rowRules(style: AmountStyle = DOT_DEFAULT, reasonFill?: string): RowRules {
  return reasonFill === undefined ? { style, filled: 0 } : { style, reasonFill, filled: 0 };
}

export const DEFAULT_RULES: RowRules = Object.freeze({ style: DOT_DEFAULT, filled: 0 }) as RowRules;
