// Issue 26, items 3 and 4: a title above the header, and a dashboard's column names. The header is
// the first row (within the first 20) holding the required columns, or --header-row's; names match
// after leaving out case, spaces, `_`, `-`, `.`, or by a small alias table, or by --columns; never a
// guess between two headers; a refusal is one short block with the --columns line that fixes it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { columnKey, matchColumns } from '../../../src/tabular/column-match.js';
import { type CsvReadOptions, type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';
import { tempDir } from '../../helpers/run-cli.js';

const REFUND = ['transaction_id', 'order_no', 'currency', 'refund_amount', 'refund_reason'];
const WANTED = [...REFUND, 'amount'];
const dir = tempDir();
let n = 0;

function csv(text: string): string {
  const f = join(dir, `f${n++}.csv`);
  writeFileSync(f, text);
  return f;
}

async function xlsx(rows: string[][]): Promise<string> {
  const f = join(dir, `w${n++}.xlsx`);
  const width = Math.max(...rows.map((r) => r.length));
  const w = createXlsxWriter(f, [...rows[0]!, ...new Array<string>(width - rows[0]!.length).fill('')]);
  await w.ready;
  for (const r of rows.slice(1)) await w.writeCells(r);
  await w.end();
  return f;
}

async function read(file: string, extra: Partial<CsvReadOptions> = {}) {
  const r = readCsv({ file, required: REFUND, matching: { wanted: WANTED }, ...extra });
  const header = await r.header;
  const rows: CsvRow[] = [];
  for await (const row of r.rows) rows.push(row);
  return { header, rows };
}

async function refusal(file: string, extra: Partial<CsvReadOptions> = {}): Promise<InputError> {
  try {
    await read(file, extra);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('not refused');
}

const DASHBOARD = ['Transaction ID', 'Order No.', 'Currency', 'Amount', 'Refund Amount', 'Reason'];
const ROW = ['TX1', '01234', 'USD', '100.00', '12.50', 'damaged'];

describe('column names as dashboards write them (item 4)', () => {
  it('keys leave out case, spaces, _ - . and read # as no', () => {
    expect(columnKey('Order No.')).toBe(columnKey('order_no'));
    expect(columnKey('Order #')).toBe(columnKey('order_no'));
    expect(columnKey('TRANSACTION-ID')).toBe(columnKey('transaction_id'));
  });

  it('a CSV with dashboard headers is read under the columns the command reads', async () => {
    const { header, rows } = await read(csv(`${DASHBOARD.join(',')}\n${ROW.join(',')}\n`));
    expect(header.normalised).toEqual([
      'transaction_id',
      'order_no',
      'currency',
      'amount',
      'refund_amount',
      'refund_reason',
    ]);
    expect(rows[0]!.fields).toMatchObject({
      transaction_id: 'TX1',
      order_no: '01234',
      refund_amount: '12.50',
      refund_reason: 'damaged',
    });
    expect(header.matches?.map((m) => `${m.column}<-${m.header}:${m.how}`)).toContain(
      'refund_reason<-Reason:alias',
    );
  });

  it('aliases: Order Number, Txn ID, Amount to Refund, Refund Reason', async () => {
    const m = matchColumns(
      ['Txn ID', 'Order Number', 'Currency', 'Amount to Refund', 'Refund Reason'],
      REFUND,
    );
    expect(m.names).toEqual(REFUND);
  });

  it('"Refunded Amount" (money already refunded, in an export) is never the amount to refund', async () => {
    expect(matchColumns(['Refunded Amount'], ['refund_amount']).names).toEqual(['refunded amount']);
    // A file with only that column is refused as missing refund_amount, not refunded again.
    const e = await refusal(
      csv('Transaction ID,Order No.,Currency,Amount,Refunded Amount,Reason\nTX1,A,USD,150.00,150.00,x\n'),
    );
    expect(e.message).toMatch(/missing column refund_amount/);
  });

  it('two aliases of one column are never chosen between', () => {
    const m = matchColumns(['Order Number', 'Order ID', 'Txn ID'], ['order_no', 'transaction_id']);
    expect(m.ambiguous).toEqual([{ column: 'order_no', headers: ['Order Number', 'Order ID'] }]);
    expect(m.names).toEqual(['order number', 'order id', 'transaction_id']);
  });

  it('the closest header is never the order amount for a missing refund amount', async () => {
    const e = await refusal(csv('Transaction ID,Order No.,Currency,Amount,Reason\nTX1,A,USD,1.00,x\n'));
    expect(e.hint ?? '').not.toContain('refund_amount=Amount');
    expect(e.hint).toContain("--columns 'refund_amount=HEADER'");
  });

  it('two headers that could be one column are refused, naming both (never a guess)', async () => {
    const e = await refusal(
      csv('Order No,order_no,Transaction ID,Currency,Refund Amount,Reason\nA,B,TX1,USD,1.00,x\n'),
    );
    expect(e.message).toMatch(/order_no could be the column "Order No" or "order_no"/);
    expect(e.hint).toMatch(/--columns/);
  });

  it('a missing column: one short block, the closest header, and the --columns line that fixes it', async () => {
    const e = await refusal(csv('Txn Ref,Invoice,Currency,Refund Amount,Reason\nTX1,A1,USD,1.00,x\n'));
    const text = [e.message, ...e.problems.map((p) => `${p.message} ${p.expected ?? ''}`), e.hint ?? ''].join(
      '\n',
    );
    // The header list once, not once per problem.
    expect(text.split('Refund Amount').length - 1).toBe(1);
    expect(e.message).toMatch(/missing columns transaction_id, order_no/);
    expect(e.hint).toContain("--columns 'transaction_id=Txn Ref");
  });

  it('--columns maps the rest; a mapping to a header the file lacks is refused', async () => {
    const f = csv('Txn Ref,Invoice,Currency,Refund Amount,Reason\nTX1,A1,USD,1.00,x\n');
    const { rows, header } = await read(f, {
      matching: { wanted: WANTED, given: { transaction_id: 'Txn Ref', order_no: 'invoice' } },
    });
    expect(rows[0]!.fields).toMatchObject({ transaction_id: 'TX1', order_no: 'A1' });
    expect(header.matches?.filter((m) => m.how === 'mapped').map((m) => m.header)).toEqual([
      'Txn Ref',
      'Invoice',
    ]);
    const e = await refusal(f, { matching: { wanted: WANTED, given: { transaction_id: 'Txn Reference' } } });
    expect(e.message).toMatch(/mapped to the header "Txn Reference"/);
  });
});

describe('a title above the header (item 3)', () => {
  it('a CSV: the first line with the columns is the header; the lines above are left out', async () => {
    const { header, rows } = await read(
      csv(`Refunds November 2026\n\n${DASHBOARD.join(',')}\n${ROW.join(',')}\n`),
    );
    expect(header.line).toBe(3);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.line).toBe(4);
    expect(rows[0]!.fields.transaction_id).toBe('TX1');
  });

  it('a semicolon CSV below a title line without a delimiter: the delimiter comes from the header line', async () => {
    const { header, rows } = await read(
      csv(`Refunds November 2026\n\n${DASHBOARD.join(';')}\nTX1;A;USD;100,00;12,50;x\n`),
    );
    expect(header.delimiter).toBe(';');
    expect(header.line).toBe(3);
    expect(rows[0]!.fields.refund_amount).toBe('12,50');
  });

  it('a one-column file whose first line is its header keeps its first line as the header', async () => {
    const r = readCsv({
      file: csv('order_no\nA;1\nB\n'),
      matching: { wanted: ['order_no', 'transaction_id'] },
    });
    const header = await r.header;
    expect(header.delimiter).toBe(',');
    const rows: CsvRow[] = [];
    for await (const row of r.rows) rows.push(row);
    expect(rows.map((x) => x.fields.order_no)).toEqual(['A;1', 'B']);
  });

  it('a workbook: "Refunds November 2026" on row 1, the header on row 3', async () => {
    const f = await xlsx([['Refunds November 2026'], [''], DASHBOARD, ROW]);
    const { header, rows } = await read(f);
    expect(header.line).toBe(3);
    expect(rows.map((r) => r.fields.transaction_id)).toEqual(['TX1']);
    expect(rows[0]!.line).toBe(4);
  });

  it('--header-row N sets it; an empty row N is refused naming it', async () => {
    const f = await xlsx([['Refunds November 2026'], ['exported by', 'Dashboard'], DASHBOARD, ROW]);
    const { header } = await read(f, { matching: { wanted: WANTED, headerRow: 3 } });
    expect(header.line).toBe(3);
    const wrong = await refusal(f, { matching: { wanted: WANTED, headerRow: 2 } });
    expect(wrong.message).toMatch(/missing columns/);
    expect(wrong.message).toContain('!2:2');
    const c = csv(`Refunds\n\n${DASHBOARD.join(',')}\n${ROW.join(',')}\n`);
    expect((await read(c, { matching: { wanted: WANTED, headerRow: 3 } })).header.line).toBe(3);
    expect((await refusal(c, { matching: { wanted: WANTED, headerRow: 2 } })).message).toMatch(
      /--header-row 2/,
    );
  });

  it('no row within the first 20 holds the columns: refused naming the row that holds the most', async () => {
    const e = await refusal(
      csv('Refunds November 2026\nTransaction ID,Order No.,Currency,Refund Amount\nTX1,A,USD,1.00\n'),
    );
    expect(e.message).toMatch(/:2: missing column refund_reason/);
  });
});

describe('a fix file’s payops_* columns (issue 27 item 2)', () => {
  const FIX = [...REFUND, 'amount', 'payops_outcome', 'payops_reason'];
  const FIX_ROW = [
    'T1',
    'ORD-1',
    'JPY',
    '12000',
    'customer request',
    '12000',
    'failed',
    'E2002:the order is 12000 JPY',
  ];

  it('no column, alias or --columns takes a payops_* column', () => {
    const m = matchColumns(FIX, WANTED, { refund_reason: 'payops_reason' });
    // Before issue 27 --columns could map refund_reason to the run's own note.
    expect(m.unmappedGiven).toEqual([{ column: 'refund_reason', header: 'payops_reason' }]);
    expect(m.names.slice(-2)).toEqual(['payops_outcome', 'payops_reason']);
  });

  it('a corrected fix file reads as CSV and as .xlsx, its notes left out of every column', async () => {
    for (const file of [csv(`${FIX.join(',')}\n${FIX_ROW.join(',')}\n`), await xlsx([FIX, FIX_ROW])]) {
      const { rows } = await read(file);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.fields).toMatchObject({
        transaction_id: 'T1',
        refund_amount: '12000',
        refund_reason: 'customer request',
      });
      expect(rows[0]!.problems ?? []).toEqual([]);
    }
  });
});
