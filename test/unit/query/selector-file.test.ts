import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { type FileSelectors, readSelectorFile } from '../../../src/query/selector-file.js';

const dir = mkdtempSync(join(tmpdir(), 'payops-selector-'));
let n = 0;
function file(text: string): string {
  const name = `f${n++}.csv`;
  writeFileSync(join(dir, name), text);
  return name;
}

/** The ids read, without the notes about how (header row, matched headers, hidden rows). */
function ids(got: FileSelectors): Pick<FileSelectors, 'orderNos' | 'transactionIds'> {
  return { orderNos: got.orderNos, transactionIds: got.transactionIds };
}

async function problems(name: string): Promise<InputError> {
  try {
    await readSelectorFile(name, dir);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('readSelectorFile', () => {
  it('reads an order_no column in any case, as Excel saves it (BOM, semicolons, CRLF, blank lines)', async () => {
    const got = await readSelectorFile(file('\uFEFFOrder_No;Note\r\nA-1;x\r\n;\r\nA-2;y\r\n\r\n'), dir);
    expect(ids(got)).toEqual({ orderNos: ['A-1', 'A-2'], transactionIds: [] });
  });

  it('prefers a row’s transaction id and falls back to its order number', async () => {
    const got = await readSelectorFile(file('order_no,transaction_id\nA-1,T1\nA-2,\n,T3\n'), dir);
    expect(ids(got)).toEqual({ orderNos: ['A-2'], transactionIds: ['T1', 'T3'] });
  });

  it('reads dashboard names ("Order No.", "Transaction ID") below a title (issue 26, items 3 and 4)', async () => {
    const got = await readSelectorFile(
      file('Orders to check, November 2026\n\nOrder No.,Transaction ID,Note\nA-1,,x\n,T2,y\n'),
      dir,
    );
    expect(ids(got)).toEqual({ orderNos: ['A-1'], transactionIds: ['T2'] });
    const title = await problems(file('Orders to check\nfoo,bar\n1,2\n'));
    expect(title.message).toContain('no order_no or transaction_id column');
  });

  it('refuses a file without either column, naming the columns it has', async () => {
    const e = await problems(file('id,amount\n1,2\n'));
    expect(e.message).toContain('no order_no or transaction_id column');
    expect(e.hint).toContain('id, amount');
  });

  it('reports every bad row with its line: ids mangled by Excel, commas, rows without an id', async () => {
    const e = await problems(file('order_no,note\n1.23457E+15,x\n"A,B",y\n,only a note\nOK-1,z\n'));
    expect(e.problems.map((p) => [p.line, p.field])).toEqual([
      [2, 'order_no'],
      [3, 'order_no'],
      [4, 'order_no'],
    ]);
    expect(e.problems[0]!.message).toContain('scientific notation');
    expect(e.problems[1]!.message).toContain('comma');
  });

  it('reports an id holding an invisible character, naming it, shown escaped', async () => {
    const e = await problems(file('order_no\nORD-1\nORD-\u200b2\n'));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]!.line).toBe(3);
    expect(e.problems[0]!.message).toBe(
      '"ORD-\\u200b2" contains an invisible character (U+200B), which makes it look like another id',
    );
  });

  it('refuses a file with a header and no orders', async () => {
    const e = await problems(file('order_no\n'));
    expect(e.message).toContain('lists no orders');
  });

  it('reports a missing file as an input error', async () => {
    await expect(readSelectorFile('no-such.csv', dir)).rejects.toBeInstanceOf(InputError);
  });
});
