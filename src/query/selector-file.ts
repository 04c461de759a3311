// `--file FILE.csv`: the orders to look up, from a column `order_no` or `transaction_id` (matched
// case-insensitively). A row with a transaction id is looked up by it (unique at the gateway),
// otherwise by its order number. Every bad row is reported at once (file:line), nothing is sent.
import { resolve } from 'node:path';
import { InputError, type InputProblem } from '../errors.js';
import { invisibleIdProblem, quote } from '../quote.js';
import type { CsvHeader } from '../tabular/csv-header.js';
import { headerNotes } from '../tabular/header-notes.js';
import { matchingOf, type TableReadAs } from '../tabular/read-as.js';

export interface FileSelectors {
  orderNos: string[];
  transactionIds: string[];
  /** A workbook's rows a person does not see that were looked up too (`Sheet1!A7`), for a note. */
  hiddenLookedUp: string[];
  /** The same rows left out by --skip-hidden. */
  hiddenSkipped: string[];
  /** The header row when not the first, and the columns matched other than by name: for a note. */
  header?: CsvHeader;
}

/** How --file is read: its sheet, its headers (--columns / the profile's columns.query, --header-row), hidden rows. */
export interface SelectorFileOptions {
  readFrom?: string;
  sheet?: string;
  readAs?: TableReadAs;
}

const EXCEL_EXPONENT = /^\d+(?:\.\d+)?E\+\d+$/i;

export async function readSelectorFile(
  file: string,
  cwd: string,
  signal?: AbortSignal,
  /** readFrom: where the bytes are read from when not the file itself (a pipe's copy, tabular/pipe-input.ts). */
  opts: SelectorFileOptions = {},
): Promise<FileSelectors> {
  const { readCsv } = await import('../tabular/csv-reader.js');
  const { readFrom, sheet, readAs } = opts;
  // Dashboard names ("Order No.", "Transaction ID"), a title above the header, --columns and
  // --header-row are read as for bulk files. A look-up moves no money, so a workbook's hidden rows
  // are looked up too unless --skip-hidden (and said so); a hidden first sheet needs a choice, as for bulk.
  const reader = readCsv({
    file,
    path: readFrom ?? resolve(cwd, file),
    matching: matchingOf(readAs, ['order_no', 'transaction_id']),
    ...(readAs?.hidden === undefined ? {} : { hidden: readAs.hidden }),
    ...(sheet === undefined ? {} : { sheet }),
    ...(signal ? { signal } : {}),
  });
  const header = await reader.header;
  const hasOrderNo = header.normalised.includes('order_no');
  const hasTransactionId = header.normalised.includes('transaction_id');
  if (!hasOrderNo && !hasTransactionId) {
    // Drain nothing more: the stream is abandoned, which the reader allows.
    throw new InputError(`${file} has no order_no or transaction_id column`, [], {
      hint: `its columns are: ${header.columns.join(', ') || '(none)'}; the header must name a column order_no or transaction_id (or "Order No.", "Transaction ID"), or say which column it is: --columns 'order_no=HEADER' (with --header-row N when a title is above the header)`,
    });
  }

  const out: FileSelectors = { orderNos: [], transactionIds: [], hiddenLookedUp: [], hiddenSkipped: [] };
  if ((header.line ?? 1) > 1 || (header.matches?.length ?? 0) > 0) out.header = header;
  const problems: InputProblem[] = [];
  for await (const row of reader.rows) {
    if (row.hidden !== undefined) {
      if (readAs?.hidden === 'skip') {
        out.hiddenSkipped.push(row.hidden);
        continue;
      }
      out.hiddenLookedUp.push(row.hidden);
    }
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

/** What a person should know about how --file was read: the header row, matched headers, hidden rows. */
export function selectorFileNotes(found: FileSelectors, readAs: TableReadAs | undefined): string[] {
  const notes = headerNotes(found.header, readAs);
  const cells = (refs: string[]) =>
    refs.length <= 5 ? refs.join(', ') : `${refs.slice(0, 5).join(', ')} and ${refs.length - 5} more`;
  if (found.hiddenLookedUp.length > 0) {
    const n = found.hiddenLookedUp.length;
    notes.push(
      `${n} hidden or filtered-out row${n === 1 ? '' : 's'} looked up too (${cells(found.hiddenLookedUp)}); --skip-hidden leaves them out`,
    );
  }
  if (found.hiddenSkipped.length > 0) {
    const n = found.hiddenSkipped.length;
    notes.push(
      `${n} hidden or filtered-out row${n === 1 ? '' : 's'} left out (--skip-hidden): ${cells(found.hiddenSkipped)}`,
    );
  }
  return notes;
}
