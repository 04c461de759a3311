import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { createCsvWriter, csvLine, openCsvWriter } from '../../../src/output/csv-writer.js';
import { excelSafe } from '../../../src/output/sanitize.js';
import { cellSafe } from '../../../src/quote.js';
import { capture } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'payops-csvw-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('excelSafe', () => {
  it('neutralises formula-looking text', () => {
    for (const v of [
      '=1+1',
      '+cmd',
      '-cmd|x',
      '@SUM(A1)',
      '\tx',
      '\rx',
      '=HYPERLINK("http://x")',
      '-',
      '+',
      '--1',
      '-1-1',
      '＝1+1',
    ]) {
      expect(excelSafe(v), JSON.stringify(v)).toBe(`'${v}`);
    }
  });
  it('keeps numbers, amounts and ordinary text', () => {
    for (const v of [
      '',
      '-12.50',
      '10.00',
      '+3',
      '-7',
      '0',
      'T1',
      'ORD-1',
      'a=b',
      'customer request',
      ' =x',
    ]) {
      expect(excelSafe(v), JSON.stringify(v)).toBe(v);
    }
  });
  it('never lets a formula start through (property)', () => {
    fc.assert(
      fc.property(fc.string(), (v) => {
        const out = excelSafe(v);
        if (/^[=+\-@\t\r＝＋－＠]/.test(out)) expect(out).toMatch(/^[+-]?\d+(\.\d+)?$/);
        expect(out === v || out === `'${v}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('createCsvWriter', () => {
  it('writes header and records with CRLF, quoting and neutralising, to a stream left open', async () => {
    const out = capture();
    const w = createCsvWriter(out, ['transaction_id', 'amount', 'note', 'outcome']);
    w.write({ transaction_id: 'T1', amount: '-12.50', note: '=HYPERLINK("x")', outcome: 'succeeded' });
    w.write({ transaction_id: 'T2', amount: 10n, note: 'a, "b"\nc' });
    await w.end();
    expect(out.text()).toBe(
      'transaction_id,amount,note,outcome\r\n' +
        `T1,-12.50,"'=HYPERLINK(""x"")",succeeded\r\n` +
        'T2,10,"a, ""b""\nc",\r\n',
    );
    expect(out.writableEnded).toBe(false);
  });

  it('neutralises every formula start, full-width ones included, and keeps amounts as numbers', async () => {
    const risky = ['=1', '+cmd', '-cmd', '@SUM(A1)', '\tx', '＝1', '＋1', '－1', '＠A'];
    const out = capture();
    const w = createCsvWriter(out, ['v']);
    for (const v of [...risky, '\rx', '-12.50', '10.00']) w.writeCells([v]);
    await w.end();
    const back = (parse(out.text()) as string[][]).slice(1).map((r) => r[0]);
    // A leading lone CR is escaped (cellSafe), which no spreadsheet reads as a formula.
    expect(back).toEqual([...risky.map((v) => `'${v}`), '\\x0dx', '-12.50', '10.00']);
  });

  it('writes cells given in column order exactly as the same record', async () => {
    const viaRecord = capture();
    const viaCells = capture();
    const columns = ['transaction_id', 'amount', 'note', 'outcome'];
    const a = createCsvWriter(viaRecord, columns);
    const b = createCsvWriter(viaCells, columns);
    a.write({ transaction_id: 'T1', amount: '-12.50', note: '=HYPERLINK("x")', outcome: 'succeeded' });
    a.write({ transaction_id: 'T2', note: 'a, "b"\nc' });
    b.writeCells(['T1', '-12.50', '=HYPERLINK("x")', 'succeeded']);
    b.writeCells(['T2', undefined, 'a, "b"\nc']);
    await Promise.all([a.end(), b.end()]);
    expect(viaCells.text()).toBe(viaRecord.text());
    expect(viaCells.text()).toContain(`T1,-12.50,"'=HYPERLINK(""x"")",succeeded\r\nT2,,"a, ""b""\nc",\r\n`);
  });

  it('writes just the header when there are no records, with a BOM on request', async () => {
    const out = capture();
    const w = createCsvWriter(out, ['a', '=b'], { bom: true });
    await w.end();
    expect(out.text()).toBe("\uFEFFa,'=b\r\n");
  });

  it('round-trips through csv-parse for arbitrary text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.string(), { minLength: 3, maxLength: 3 }), { maxLength: 20 }),
        async (rows) => {
          const out = capture();
          const w = createCsvWriter(out, ['a', 'b', 'c']);
          for (const [a, b, c] of rows) await w.write({ a, b, c });
          await w.end();
          const back = parse(out.text(), { relax_column_count: false }) as string[][];
          expect(back[0]).toEqual(['a', 'b', 'c']);
          expect(back.slice(1)).toEqual(rows.map((r) => r.map((v) => excelSafe(cellSafe(v)))));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes a file, many rows, and closes it', async () => {
    const file = join(dir, 'out.csv');
    const w = await openCsvWriter(file, ['n']);
    for (let i = 0; i < 5000; i++) await w.write({ n: String(i) });
    await w.end();
    const lines = readFileSync(file, 'utf8').split('\r\n');
    expect(lines[0]).toBe('n');
    expect(lines[5000]).toBe('4999');
    expect(lines).toHaveLength(5002);
    // Results are private to their owner, as the journal and the config are.
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('fails early with a UsageError when the file cannot be created', async () => {
    await expect(openCsvWriter(join(dir, 'missing', 'x.csv'), ['a'])).rejects.toBeInstanceOf(UsageError);
  });

  it('quotes a cell with a line feed or a CRLF, so the row stays one record', () => {
    expect(csvLine(['a\nb', 'c\r\nd', 'e'])).toBe('"a\nb","c\r\nd",e\r\n');
    expect(parse(csvLine(['a\nb', 'c\r\nd', 'e']))).toEqual([['a\nb', 'c\r\nd', 'e']]);
  });

  it('writes exactly what csv-stringify writes (the reference), for cells without line breaks', () => {
    // csv-stringify is the oracle here; the hand-written writer only exists for speed.
    fc.assert(
      fc.property(
        fc.array(
          fc.string().filter((v) => !/[\r\n]/.test(v)),
          { minLength: 1, maxLength: 6 },
        ),
        (cells) => {
          expect(csvLine(cells)).toBe(
            stringify([cells.map((v) => excelSafe(cellSafe(v)))], { record_delimiter: 'windows' }),
          );
        },
      ),
    );
  });

  it('writes the bytes of csvLine for every row, in blocks, whatever the text (property)', async () => {
    // The writer copies plain ASCII cells byte by byte and hands everything else to csvLine's rules;
    // cells long enough to outgrow a block (64 KB) take the path for those.
    const cell = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme-ascii' }),
      fc.string({ unit: 'binary', minLength: 11_000, maxLength: 12_000 }),
      fc.constant(undefined),
      fc.bigInt(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { maxLength: 40 }),
        async (rows) => {
          const out = new PassThrough();
          const chunks: Buffer[] = [];
          out.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
          const w = createCsvWriter(out, ['a', 'b', 'c']);
          for (const r of rows) await w.writeCells(r);
          await w.end();
          const want = csvLine(['a', 'b', 'c']) + rows.map((r) => csvLine(r)).join('');
          expect(Buffer.concat(chunks).equals(Buffer.from(want, 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('csvLine formats one line', () => {
    expect(csvLine(['a', '@x', 1n, undefined])).toBe("a,'@x,1,\r\n");
  });

  // issue 24: a raw ESC from an input cell drove the terminal of whoever ran `cat results.csv`.
  it('writes control characters as the terminal-safe escapes of src/quote.ts; line feeds, CRLF and tabs stay', () => {
    expect(csvLine(['a\x1b]0;owned\x07b', 'x\u009by', 'p\u202eq', 'del\x7f'])).toBe(
      'a\\x1b]0;owned\\x07b,x\\x9by,p\\u202eq,del\\x7f\r\n',
    );
    expect(csvLine(['one\ntwo', 'w\r\nx', 'lone\rcr', 'tab\there'])).toBe(
      '"one\ntwo","w\r\nx",lone\\x0dcr,tab\there\r\n',
    );
  });

  it('the block writer neutralises them too (the ASCII fast path included)', async () => {
    const out = capture();
    const w = createCsvWriter(out, ['note']);
    await w.writeCells(['plain\x1b[2Jascii']);
    await w.writeCells(['\x1b[31mred']);
    await w.end();
    expect(out.text()).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
    expect(out.text()).toBe('note\r\nplain\\x1b[2Jascii\r\n\\x1b[31mred\r\n');
  });
});
