// `--file FILE.csv`: the orders to look up, from a column `order_no` or `transaction_id` (matched
// case-insensitively). A row with a transaction id is looked up by it (unique at the gateway),
// otherwise by its order number. Every bad row is reported at once (file:line), nothing is sent.
import { resolve } from 'node:path';
import { InputError, type InputProblem } from '../errors.js';
import { invisibleIdProblem, quote } from '../quote.js';

export interface FileSelectors {
  orderNos: string[];
  transactionIds: string[];
}

const EXCEL_EXPONENT = /^\d+(?:\.\d+)?E\+\d+$/i;

export async function readSelectorFile(
  file: string,
  cwd: string,
  signal?: AbortSignal,
  /** Where the bytes are read from when not the file itself: a pipe's copy (tabular/pipe-input.ts). */
  readFrom?: string,
): Promise<FileSelectors> {
  const { readCsv } = await import('../tabular/csv-reader.js');
  // Dashboard names ("Order No.", "Transaction ID") and a title above the header are read as for bulk files.
  const reader = readCsv({
    file,
    path: readFrom ?? resolve(cwd, file),
    matching: { wanted: ['order_no', 'transaction_id'] },
    ...(signal ? { signal } : {}),
  });
  const header = await reader.header;
  const hasOrderNo = header.normalised.includes('order_no');
  const hasTransactionId = header.normalised.includes('transaction_id');
  if (!hasOrderNo && !hasTransactionId) {
    // Drain nothing more: the stream is abandoned, which the reader allows.
    throw new InputError(`${file} has no order_no or transaction_id column`, [], {
      hint: `its columns are: ${header.columns.join(', ') || '(none)'}; the header must name a column order_no or transaction_id (or "Order No.", "Transaction ID")`,
    });
  }

  const out: FileSelectors = { orderNos: [], transactionIds: [] };
  const problems: InputProblem[] = [];
  for await (const row of reader.rows) {
    if (row.problems?.length) {
      problems.push(...row.problems);
      continue;
    }
    const tx = hasTransactionId ? (row.fields.transaction_id ?? '') : '';
    const ord = hasOrderNo ? (row.fields.order_no ?? '') : '';
    const [field, value] = tx !== '' ? (['transaction_id', tx] as const) : (['order_no', ord] as const);
    if (value === '') {
      // A wholly empty row (Excel leaves some) is skipped; a row with other data but no id is an error.
      if (Object.values(row.fields).some((v) => v !== '')) {
        problems.push({
          file,
          line: row.line,
          field: [hasTransactionId && 'transaction_id', hasOrderNo && 'order_no'].filter(Boolean).join(' / '),
          message: 'no order number or transaction id in this row',
        });
      }
      continue;
    }
    if (value.includes(',')) {
      problems.push({
        file,
        line: row.line,
        field,
        message: `${quote(value)} contains a comma, which the gateway's lists cannot carry`,
        expected: 'one id per row',
      });
      continue;
    }
    if (EXCEL_EXPONENT.test(value)) {
      problems.push({
        file,
        line: row.line,
        field,
        message: `${quote(value)} looks like a number Excel turned into scientific notation`,
        expected: 'the id as text: format the column as Text in the spreadsheet and export again',
      });
      continue;
    }
    const invisible = invisibleIdProblem(value);
    if (invisible) {
      problems.push({
        file,
        line: row.line,
        field,
        message: invisible,
        expected: 'the id exactly as the gateway issued it, without the hidden character',
      });
      continue;
    }
    (field === 'transaction_id' ? out.transactionIds : out.orderNos).push(value);
  }
  if (problems.length > 0) {
    throw new InputError(
      `${file}: ${problems.length} row${problems.length === 1 ? '' : 's'} cannot be used`,
      problems,
    );
  }
  if (out.orderNos.length === 0 && out.transactionIds.length === 0) {
    throw new InputError(`${file} lists no orders`, [], {
      hint: 'one order_no or transaction_id per row below the header',
    });
  }
  return out;
}
