// The one place the bulk engine calls row validation (validate.ts), so the planner and pass 2 see
// rows the same way. Rows from another reader (an .xlsx sheet) come through here too: a CsvRow is
// only line, fields and cells.
import type { InputProblem } from '../../errors.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import type { CsvRow } from '../../tabular/csv-reader.js';
import { OPERATIONS } from '../operations.js';
import { CrossRowChecker } from './cross-row.js';
import { NO_PROBLEMS, type RowRules, type ValidRow, validateRow } from './validate.js';

export { type RowRules, rowRules } from './validate.js';

/** The columns a file must have; refund_reason may be left out when --refund-reason gives it. */
export function requiredColumns(op: BatchOperation, rules?: Pick<RowRules, 'reasonFill'>): readonly string[] {
  const required = OPERATIONS[op].columns.required;
  return rules?.reasonFill === undefined ? required : required.filter((c) => c !== 'refund_reason');
}

export function checkRow(
  op: BatchOperation,
  row: CsvRow,
  file: string,
  rules?: RowRules,
): { valid?: ValidRow; problems: readonly InputProblem[] } {
  const r = validateRow(op, row, file, rules);
  return r.ok ? { valid: r.row, problems: NO_PROBLEMS } : { problems: r.problems };
}

/** Checks across rows (duplicates, refunds above the order amount); problems come at `add` or `finish`. */
export function crossChecker(op: BatchOperation, file: string) {
  const checker = new CrossRowChecker(op, file);
  return {
    add: (row: ValidRow): readonly InputProblem[] => checker.add(row),
    /** Whether the row added last was the first of its transaction in the file. */
    lastWasFirst: (): boolean => checker.lastWasFirst,
    finish: (): InputProblem[] => checker.finish(),
  };
}
