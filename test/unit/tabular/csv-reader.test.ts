import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { type CsvRow, detectDelimiter, readCsv, sha256File } from '../../../src/tabular/csv-reader.js';
import { fieldsMaker, trimmed } from '../../../src/tabular/csv-records.js';

const dir = mkdtempSync(join(tmpdir(), 'payops-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string | Uint8Array): string {
  const f = join(dir, `f${n++}.csv`);
  writeFileSync(f, content);
  return f;
}

async function readAll(content: string | Uint8Array, required: string[] = [], chunkSize?: number) {
  const f = file(content);
  const r = readCsv({ file: f, required, ...(chunkSize ? { chunkSize } : {}) });
  const header = await r.header;
  const rows: CsvRow[] = [];
  for await (const row of r.rows) rows.push(row);
  return { f, header, rows, sha256: await r.sha256 };
}

async function inputError(content: string | Uint8Array, required: string[] = []): Promise<InputError> {
  const f = file(content);
  const r = readCsv({ file: f, required });
  try {
    await r.header;
    for await (const _ of r.rows) {
      // drain
    }
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    const e = err as InputError;
    expect(e.message).toContain(f);
    expect(e.problems.length).toBeGreaterThan(0);
    for (const p of e.problems) expect(p.file).toBe(f);
    return e;
  }
  throw new Error('expected an InputError');
}

describe('readCsv: what Excel writes', () => {
  it('reads a plain comma file with LF', async () => {
    const { header, rows } = await readAll('transaction_id,order_no,amount\nT1,O1,10.00\nT2,O2,5\n');
    expect(header).toEqual({
      columns: ['transaction_id', 'order_no', 'amount'],
      normalised: ['transaction_id', 'order_no', 'amount'],
      delimiter: ',',
      bom: false,
      written: ['transaction_id', 'order_no', 'amount'],
      line: 1,
    });
    expect(rows).toEqual([
      {
        line: 2,
        fields: { transaction_id: 'T1', order_no: 'O1', amount: '10.00' },
        cells: ['T1', 'O1', '10.00'],
      },
      {
        line: 3,
        fields: { transaction_id: 'T2', order_no: 'O2', amount: '5' },
        cells: ['T2', 'O2', '5'],
      },
    ]);
  });

  it('handles BOM, semicolons, CRLF, case and blanks in the header, and trims values', async () => {
    const { header, rows } = await readAll(
      '\uFEFF Transaction_ID ;Order_No;Amount\r\nT1; O1 ;"12.50"\r\n\r\n;;\r\nT2;O2;3\r\n\r\n\r\n',
      ['transaction_id', 'amount'],
    );
    expect(header.bom).toBe(true);
    expect(header.delimiter).toBe(';');
    expect(header.columns).toEqual([' Transaction_ID ', 'Order_No', 'Amount']);
    expect(header.normalised).toEqual(['transaction_id', 'order_no', 'amount']);
    expect(rows.map((r) => r.line)).toEqual([2, 5]);
    expect(rows[0]!.fields).toEqual({ transaction_id: 'T1', order_no: 'O1', amount: '12.50' });
    expect(rows[0]!.cells).toEqual(['T1', ' O1 ', '12.50']);
  });

  it('detects tabs, and old-Mac CR line endings', async () => {
    const tab = await readAll('a\tb\r1\t2\r3\t4\r');
    expect(tab.header.delimiter).toBe('\t');
    expect(tab.rows.map((r) => [r.line, r.fields])).toEqual([
      [2, { a: '1', b: '2' }],
      [3, { a: '3', b: '4' }],
    ]);
  });

  it('honours an Excel "sep=" line and counts it as a line', async () => {
    const { header, rows } = await readAll('sep=;\r\na;b\r\n1,5;2\r\n');
    expect(header.delimiter).toBe(';');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.line).toBe(3);
    expect(rows[0]!.fields).toEqual({ a: '1,5', b: '2' });
  });

  it('gives the physical line where a multi-line record starts', async () => {
    const { rows } = await readAll('id,note\n1,"one\ntwo\r\nthree"\n2,x\n\n3,"a\n\nb"\n4,y');
    expect(rows.map((r) => [r.line, r.fields.id])).toEqual([
      [2, '1'],
      [5, '2'],
      [7, '3'],
      [10, '4'],
    ]);
    expect(rows[0]!.fields.note).toBe('one\ntwo\nthree');
  });

  it('skips leading blank lines before the header and counts them', async () => {
    const { rows } = await readAll('\n\na,b\n1,2\n');
    expect(rows[0]!.line).toBe(4);
  });

  it('keeps a stray quote inside an unquoted value, or after a closing quote, as text', async () => {
    const { rows } = await readAll('a,b\n12" pipe,2\n3,"x" y\n');
    expect(rows[0]!.fields.a).toBe('12" pipe');
    // Validation refuses quotes in ids and amounts, so this cannot slip through silently.
    expect(rows[1]!.fields.b).toBe('"x" y');
  });

  it('tolerates trailing empty columns (Excel) and names unnamed middle columns', async () => {
    const { header, rows } = await readAll('a,,b,,\n1,x,2,,\n3,,4\n');
    expect(header.columns).toEqual(['a', 'column_2', 'b']);
    expect(rows.map((r) => r.problems)).toEqual([undefined, undefined]);
    expect(rows[0]!.fields).toEqual({ a: '1', column_2: 'x', b: '2' });
  });

  it('reports ragged rows as a problem of that row, with the line', async () => {
    const f = file('a,b,c\n1,2,3\n1,2\n1,2,3,4\n');
    const r = readCsv({ file: f });
    const rows: CsvRow[] = [];
    for await (const row of r.rows) rows.push(row);
    expect(rows[0]!.problems).toBeUndefined();
    expect(rows[1]!.problems).toEqual([
      expect.objectContaining({
        file: f,
        line: 3,
        message: expect.stringMatching(/2 fields but the header has 3/),
      }),
    ]);
    expect(rows[1]!.fields).toEqual({ a: '1', b: '2', c: '' });
    expect(rows[2]!.problems?.[0]?.line).toBe(4);
    // One cell per header column: a short line padded, a long one cut.
    expect(rows.map((row) => row.cells)).toEqual([
      ['1', '2', '3'],
      ['1', '2', ''],
      ['1', '2', '3'],
    ]);
  });

  it('computes the SHA-256 of the bytes in the same pass', async () => {
    const content = '\uFEFFa,b\r\n1,2\r\n';
    const { f, sha256 } = await readAll(content);
    const expected = createHash('sha256').update(Buffer.from(content)).digest('hex');
    expect(sha256).toBe(expected);
    expect(await sha256File(f)).toBe(expected);
  });

  it('resolves the header before rows are iterated, and rows are the same with tiny chunks', async () => {
    const content = 'a;b\r\n"x\r\ny";é€😀\r\n2;"q""uote"\r\n';
    const big = await readAll(content);
    for (const size of [1, 2, 3, 5]) {
      const small = await readAll(content, [], size);
      expect(small.rows).toEqual(big.rows);
      expect(small.sha256).toBe(big.sha256);
    }
    expect(big.rows[0]!.fields).toEqual({ a: 'x\ny', b: 'é€😀' });
    expect(big.rows[1]!.fields.b).toBe('q"uote');
  });

  it('rejects sha256 when iteration stops early, and closes the file', async () => {
    const f = file('a\n1\n2\n3\n');
    const r = readCsv({ file: f });
    for await (const _ of r.rows) break;
    await expect(r.sha256).rejects.toThrow(/stopped before its end/);
  });

  it('stops on abort', async () => {
    const f = file(`a\n${'1\n'.repeat(10_000)}`);
    const ac = new AbortController();
    const r = readCsv({ file: f, signal: ac.signal, chunkSize: 64 });
    let count = 0;
    await expect(
      (async () => {
        for await (const _ of r.rows) if (++count === 10) ac.abort();
      })(),
    ).rejects.toThrow(/abort/i);
    expect(count).toBeLessThan(10_000);
  });
});

describe('readCsv: errors name file and line', () => {
  it('missing required column lists the columns found', async () => {
    const e = await inputError('transaction_id,order_no\nT1,O1\n', ['transaction_id', 'currency', 'amount']);
    expect(e.message).toMatch(/missing columns currency, amount \(columns found: transaction_id, order_no\)/);
    expect(e.problems.map((p) => [p.line, p.field])).toEqual([
      [1, 'currency'],
      [1, 'amount'],
    ]);
  });

  it('duplicate header names (case-insensitively)', async () => {
    const e = await inputError('amount,Amount \n1,2\n');
    expect(e.problems[0]).toMatchObject({
      line: 1,
      field: 'amount',
      message: expect.stringMatching(/twice/),
    });
  });

  it('an empty file, or only blank lines', async () => {
    expect((await inputError('', ['a'])).message).toMatch(/is empty/);
    expect((await inputError('\n\r\n  \n')).message).toMatch(/is empty/);
  });

  it('invalid UTF-8 gives the line of the bad byte, even across chunk boundaries', async () => {
    const bytes = Buffer.concat([
      Buffer.from('a,b\n1,café\n2,caf'),
      Buffer.from([0xe9]),
      Buffer.from(',x\n'),
    ]);
    const e = await inputError(bytes);
    expect(e.problems[0]!.line).toBe(3);
    expect(e.problems[0]!.field).toBe('b');
    expect(e.hint).toMatch(/CSV UTF-8/);
    for (const size of [1, 2, 7]) {
      const f = file(bytes);
      const r = readCsv({ file: f, chunkSize: size });
      const err = await (async () => {
        try {
          for await (const _ of r.rows) {
            // drain
          }
        } catch (e) {
          return e as InputError;
        }
      })();
      expect(err?.problems[0]?.line, `chunk ${size}`).toBe(3);
      expect(err?.problems[0]?.field, `chunk ${size}`).toBe('b');
    }
  });

  it('a truncated multi-byte character at the very end', async () => {
    const e = await inputError(Buffer.concat([Buffer.from('a\n1\n'), Buffer.from([0xe2, 0x82])]));
    expect(e.problems[0]!.line).toBe(3);
  });

  it('UTF-16: read by its BOM (issue 14); without a BOM refused, naming --encoding', async () => {
    const text = 'a;b\r\nÄ;2,5\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    for (const bytes of [le, be]) {
      for (const chunkSize of [1, 3, 64 * 1024]) {
        const { header, rows } = await readAll(bytes, [], chunkSize);
        expect(header.columns, `chunk ${chunkSize}`).toEqual(['a', 'b']);
        expect(rows.map((r) => r.cells)).toEqual([['Ä', '2,5']]);
      }
    }
    const bare = await inputError(Buffer.from(text, 'utf16le'));
    expect(bare.message).toMatch(/UTF-16/);
    expect(bare.hint).toMatch(/--encoding utf-16le/);
    const f = file(Buffer.from(text, 'utf16le'));
    const r = readCsv({ file: 'given.csv', path: f, encoding: 'utf-16le' });
    const rows: CsvRow[] = [];
    for await (const row of r.rows) rows.push(row);
    expect(rows.map((x) => x.cells)).toEqual([['Ä', '2,5']]);
  });

  it('windows-1252 and latin1 by --encoding; the UTF-8 refusal names the option and the name given', async () => {
    const bytes = Buffer.from('a;b\r\nM\xfcller \x80;1\r\n', 'latin1');
    const e = await inputError(bytes);
    expect(e.hint).toMatch(/--encoding windows-1252/);
    const f = file(bytes);
    for (const [encoding, want] of [
      ['windows-1252', 'Müller €'],
      ['latin1', 'Müller \u0080'],
    ] as const) {
      const r = readCsv({ file: 'given.csv', path: f, encoding, chunkSize: 2 });
      const rows: CsvRow[] = [];
      for await (const row of r.rows) rows.push(row);
      expect(rows[0]!.cells[0], encoding).toBe(want);
    }
    const missing = readCsv({ file: 'typed.csv', path: join(tmpdir(), 'payops-no-such-dir', 'x.csv') });
    const err = await missing.header.catch((x: unknown) => x);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe('typed.csv: no such file');
  });

  it('an Excel workbook instead of CSV', async () => {
    const xlsx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 1)]);
    expect((await inputError(xlsx)).message).toMatch(/Excel workbook \(\.xlsx\)/);
    const xls = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), Buffer.alloc(100, 1)]);
    expect((await inputError(xls)).hint).toMatch(/CSV UTF-8/);
  });

  it('an unterminated quote names the line where the record starts', async () => {
    const e = await inputError('a,b\n1,2\n3,"never closed\n4,5\n6,7\n');
    expect(e.problems[0]!.line).toBe(3);
    expect(e.problems[0]!.field).toBe('b');
    expect(e.message).toMatch(/never closed/);
  });

  it('a 2 MB field is refused without buffering the file', async () => {
    const e = await inputError(`a,b\n1,2\n3,${'x'.repeat(2 * 1024 * 1024)}\n`);
    expect(e.problems[0]!.line).toBe(3);
    expect(e.message).toMatch(/longer than/);
  });

  it('a 10 MB header line with no newline is refused', async () => {
    const e = await inputError('a'.repeat(10 * 1024 * 1024));
    expect(e.problems[0]!.line).toBe(1);
  });

  it('a missing file', async () => {
    const r = readCsv({ file: join(dir, 'nope.csv') });
    await expect(r.header).rejects.toBeInstanceOf(InputError);
    await expect(r.sha256).rejects.toBeInstanceOf(InputError);
  });
});

describe('detectDelimiter', () => {
  it('counts separators outside quotes', () => {
    expect(detectDelimiter('a,b,c')).toBe(',');
    expect(detectDelimiter('a;b;c')).toBe(';');
    expect(detectDelimiter('a\tb')).toBe('\t');
    expect(detectDelimiter('"a;b;c",d')).toBe(',');
    expect(detectDelimiter('single')).toBe(',');
  });
});

describe('rows, read the quick way', () => {
  it('trim only where a cell starts or ends with what trim() would remove (property)', () => {
    const blanks = [' ', '\t', '\u00a0', '\u2028', '\ufeff', '\u3000', '\u000b', '\u0085', '\u200b'];
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constantFrom(...blanks),
            fc.string({ minLength: 1, maxLength: 1 }),
            fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
          ),
        }),
        (v) => {
          expect(trimmed(v)).toBe(v.trim());
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('makes the fields a loop adding each name would make, whatever the names (property)', () => {
    const byLoop = (names: string[], values: string[]) => {
      const fields: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) fields[names[i]!] = (values[i] ?? '').trim();
      return fields;
    };
    const name = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(
        '"',
        "'",
        '\\',
        `\`$\{x}\``,
        '\u2028',
        '0',
        '12',
        'constructor',
        'toString',
        '__proto__',
        'a b',
      ),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { maxLength: 8 }),
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 9 }),
        (names, values) => {
          const made = fieldsMaker(names)(values);
          const want = byLoop(names, values);
          expect(made).toEqual(want);
          expect(Object.keys(made)).toEqual(Object.keys(want));
          expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('fields in header order, each row its own object; ready() gives the rows next() would', async () => {
    const { rows } = await readAll('B, a ,c\n1, 2 ,3\n4,5\n');
    expect(rows.map((r) => Object.keys(r.fields))).toEqual([
      ['b', 'a', 'c'],
      ['b', 'a', 'c'],
    ]);
    expect(rows[0]!.fields).toEqual({ b: '1', a: '2', c: '3' });
    expect(rows[1]!.fields).toEqual({ b: '4', a: '5', c: '' });
    expect(rows[0]!.fields).not.toBe(rows[1]!.fields);

    const text = `x,y\n${Array.from({ length: 3000 }, (_, i) => `${i},"q${i}"`).join('\n')}\n`;
    const f = file(text);
    const r = readCsv({ file: f, chunkSize: 1000 });
    const mixed: CsvRow[] = [];
    for (;;) {
      const row = r.rows.ready();
      if (row !== undefined) {
        mixed.push(row);
        continue;
      }
      const next = await r.rows.next();
      if (next.done) break;
      mixed.push(next.value);
    }
    expect(mixed).toEqual((await readAll(text, [], 1000)).rows);
    expect(mixed).toHaveLength(3000);
  });
});

describe('a UTF-8 file read in a single-byte encoding (issue 23)', () => {
  async function read(bytes: Uint8Array, encoding: 'windows-1252' | 'latin1', chunkSize: number) {
    const r = readCsv({ file: file(bytes), encoding, chunkSize });
    await r.header;
    const rows: CsvRow[] = [];
    for await (const row of r.rows) rows.push(row);
    return rows;
  }
  const text = 'transaction_id,refund_reason\nT1,goodwill\nT2,Rückerstattung wegen Defekt\nT3,x\n';

  it('is refused with the line, the column and both readings, whatever the chunks', async () => {
    for (const encoding of ['windows-1252', 'latin1'] as const) {
      for (const chunkSize of [1, 3, 7, 64 * 1024]) {
        const err = await read(Buffer.from(text, 'utf8'), encoding, chunkSize).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, `${encoding} ${chunkSize}`).toBeInstanceOf(InputError);
        const e = err as InputError;
        expect(e.message).toContain(
          `:3 (column refund_reason): the file was read as ${encoding}, but it is almost surely UTF-8`,
        );
        expect(e.message).toContain('"RÃ¼ckerstattung" would have been sent for "Rückerstattung"');
        expect(e.problems[0]).toMatchObject({ line: 3, field: 'refund_reason' });
      }
    }
  });

  it('is read as given when its bytes are not UTF-8, or are ASCII only', async () => {
    // A real windows-1252 file: ü is the one byte 0xFC.
    const ansi = await read(Buffer.from(text, 'latin1'), 'windows-1252', 3);
    expect(ansi[1]!.fields.refund_reason).toBe('Rückerstattung wegen Defekt');
    // UTF-8 text first, then a windows-1252 byte: not UTF-8 after all, read as given.
    const mixed = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from('T4,\xe9t\xe9\n', 'latin1')]);
    const rows = await read(mixed, 'windows-1252', 64 * 1024);
    expect(rows[1]!.fields.refund_reason).toBe('RÃ¼ckerstattung wegen Defekt');
    expect(rows[3]!.fields.refund_reason).toBe('été');
    const ascii = await read(Buffer.from('transaction_id,refund_reason\nT1,goodwill\n'), 'latin1', 64 * 1024);
    expect(ascii).toHaveLength(1);
  });
});
