// `payops approve X.plan --file FILE` (docs/approvals.md): the checker's own copy of the file, read
// exactly as the plan says (its readAs, sheet and columns) and validated as pass 1 validates it —
// no gateway, no credentials — then bound to the plan by its rows digest (rows-digest.ts). A copy
// whose rows are not the plan's is refused before anything is signed; with --list its rows are shown.
import { resolve } from 'node:path';
import { inputRows } from '../bulk/input.js';
import { planBulk } from '../bulk/plan/plan.js';
import { readAsOf } from '../bulk/read-as.js';
import { UsageError } from '../errors.js';
import { formatAmount } from '../money/amount.js';
import { wrapAtSpaces } from '../output/width.js';
import { quote, terminalSafe } from '../quote.js';
import { hiddenRefusal } from '../tabular/hidden.js';
import { tableReadAsOf } from '../tabular/read-as.js';
import type { PlanBody } from './plan-doc.js';
import { payoutRowsDigest, RowsDigest } from './rows-digest.js';

/** One row as the checker sees it: line, then the row's fields as text. */
export interface CopyRow {
  line: number;
  cells: string[];
}

export interface CheckedCopy {
  rowsDigest: string;
  /** The copy's validated rows (payouts). */
  count: number;
  /** The column names of a listed row: line, then its cells. */
  heading: string[];
  /** The columns written right-aligned (line and amounts), by index in heading. */
  right: number[];
  rows: CopyRow[];
}

/** The copy's rows digest and rows; `keep` false keeps no rows (only the digest is wanted). */
export async function readCopy(
  cwd: string,
  file: string,
  plan: PlanBody,
  keep: boolean,
): Promise<CheckedCopy> {
  const path = resolve(cwd, file);
  if (plan.op === 'payout') {
    const { loadPayoutCsv } = await import('../payout/plan.js');
    const read = await loadPayoutCsv(file, cwd, tableReadAsOf(plan.readAs || undefined), plan.sheet);
    return {
      rowsDigest: payoutRowsDigest(read.items),
      count: read.items.length,
      heading: ['line', 'currency', 'amount', 'request_id'],
      right: [0, 2],
      rows: keep
        ? read.items.map((i) => ({
            line: i.line,
            cells: [
              i.currency,
              formatAmount(i.minor, i.currency),
              i.requestIdFrom === 'input' ? String(i.request.request_id) : '',
            ],
          }))
        : [],
    };
  }
  const source = {
    path,
    label: file,
    ...(plan.sheet === undefined ? {} : { sheet: plan.sheet }),
    readAs: readAsOf(plan.readAs || undefined),
  };
  const planned = await planBulk(plan.op, source, {}, undefined);
  const hidden = hiddenRefusal(planned.source.label, planned);
  if (hidden) throw hidden;
  const digest = new RowsDigest();
  const rows: CopyRow[] = [];
  for await (const row of inputRows(plan.op, planned.source)) {
    digest.addBulk(row);
    if (!keep) continue;
    rows.push({
      line: row.line,
      cells: [
        row.transaction_id,
        row.order_no,
        row.currency,
        formatAmount(row.amountMinor, row.currency),
        row.refundMinor === undefined ? '' : formatAmount(row.refundMinor, row.currency),
        row.refund_reason ?? row.review_flag ?? '',
      ],
    });
  }
  return {
    rowsDigest: digest.digest(),
    count: planned.rows,
    heading: ['line', 'transaction_id', 'order_no', 'currency', 'amount', 'refund', 'reason'],
    right: [0, 4, 5],
    rows,
  };
}

/** Refuses a copy whose rows are not the plan's, naming both digests and the counts. */
export function assertCopyIsPlanned(copy: CheckedCopy, plan: PlanBody, file: string): void {
  const count = copy.count;
  if (copy.rowsDigest === plan.rowsDigest) return;
  const rows = count === plan.rows ? `${count} rows, as planned` : `${count} rows, the plan has ${plan.rows}`;
  throw new UsageError(
    `your copy of the file is not the file planned: ${quote(file)} has other rows than the plan (${rows}; rows digest ${copy.rowsDigest.slice(0, 16)}…, the plan's ${plan.rowsDigest.slice(0, 16)}…); nothing was signed`,
    {
      hint: 'compare your copy with the maker\'s (an amount, an order, a row added or removed), or reject the plan: payops approve X.plan --reject --reason "…"',
    },
  );
}

/** The rows as a table, columns padded (the last one not), every cell terminal-safe. */
export function copyLines(copy: CheckedCopy, columns?: number): string[] {
  const table = [copy.heading, ...copy.rows.map((r) => [String(r.line), ...r.cells])].map((cells) =>
    cells.map((c) => terminalSafe(c).replace(/[\n\t]/g, ' ')),
  );
  const widths = copy.heading.map((_, i) => Math.max(...table.map((cells) => (cells[i] ?? '').length)));
  const cell = (c: string, i: number, last: boolean) =>
    last ? c : copy.right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!);
  const lines = table.map((cells) =>
    `  ${cells.map((c, i) => cell(c, i, i === cells.length - 1)).join('  ')}`.trimEnd(),
  );
  if (!columns || columns < 20) return lines;
  // The last column (reason, request_id) wraps at spaces under itself, when that leaves it room.
  const before = 2 + widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0);
  const indent = ' '.repeat(before < (columns - 1) / 2 ? before : 4);
  return lines.flatMap((l) => wrapAtSpaces(l, columns - 1, indent));
}
