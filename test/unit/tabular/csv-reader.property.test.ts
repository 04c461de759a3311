import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { type CsvRow, readCsv } from '../../../src/tabular/csv-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'payops-csvprop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function read(content: string | Uint8Array, chunkSize?: number) {
  const f = join(dir, `p${n++}.csv`);
  writeFileSync(f, content);
  const r = readCsv({ file: f, ...(chunkSize ? { chunkSize } : {}) });
  const header = await r.header;
  const rows: CsvRow[] = [];
  for await (const row of r.rows) rows.push(row);
  await r.sha256;
  return { header, rows };
}

// Values mix separators, quotes, line feeds, blanks and non-ASCII text.
const value = fc.string({
  unit: fc.constantFrom('a', 'Z', '1', '.', ',', ';', '\t', '"', '\n', ' ', 'é', '€', '😀', '=', '-'),
  maxLength: 8,
});

describe('readCsv properties', () => {
  it('reads back what csv-stringify writes, with any delimiter, BOM, CR/CRLF/LF, blank lines, chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }).chain((cols) =>
          fc.record({
            cols: fc.constant(cols),
            records: fc.array(
              fc.record({
                values: fc.array(value, { minLength: cols, maxLength: cols }),
                blankLinesBefore: fc.constantFrom(0, 0, 0, 1, 2),
              }),
              { maxLength: 12 },
            ),
            delimiter: fc.constantFrom(',', ';', '\t'),
            eol: fc.constantFrom('\r\n', '\n', '\r'),
            bom: fc.boolean(),
            chunkSize: fc.constantFrom(undefined, 1, 3, 16),
          }),
        ),
        async ({ cols, records, delimiter, eol, bom, chunkSize }) => {
          const names = Array.from({ length: cols }, (_, i) => `Col${i}`);
          const line = (cells: string[]) =>
            stringify([cells], {
              delimiter,
              record_delimiter: eol,
              // Excel quotes values with line breaks; blanks quoted to keep them significant for raw.
              quoted_match: [/^\s|\s$/, /\n/],
            });
          // Line breaks inside quoted values use the file's line ending too, as Excel writes them.
          const text =
            line(names) +
            records
              .map((r) => eol.repeat(r.blankLinesBefore) + line(r.values.map((v) => v.replace(/\n/g, eol))))
              .join('');
          const { header, rows } = await read((bom ? '\uFEFF' : '') + text, chunkSize);
          expect(header.delimiter).toBe(delimiter);
          expect(header.bom).toBe(bom);
          expect(header.columns).toEqual(names);

          // Expected: physical start lines, all-blank records skipped.
          const expected: Array<{ line: number; values: string[] }> = [];
          let at = 2;
          for (const { values: rec, blankLinesBefore } of records) {
            at += blankLinesBefore;
            if (rec.some((v) => v.trim() !== '')) expected.push({ line: at, values: rec });
            at += 1 + rec.reduce((s, v) => s + (v.match(/\n/g)?.length ?? 0), 0);
          }
          expect(rows.map((r) => r.line)).toEqual(expected.map((e) => e.line));
          rows.forEach((row, i) => {
            const values = expected[i]!.values;
            expect(row.problems).toBeUndefined();
            expect(row.cells).toEqual(values);
            expect(Object.values(row.fields)).toEqual(values.map((v) => v.trim()));
            expect(Object.keys(row.fields)).toEqual(names.map((c) => c.toLowerCase()));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('arbitrary bytes never crash: rows or an InputError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc
            .string({ unit: fc.constantFrom('a', ',', ';', '"', '\n', '\r', ' ', '\t', 'é'), maxLength: 60 })
            .map((s) => Buffer.from(s)),
        ),
        fc.constantFrom(undefined, 1, 7),
        async (bytes, chunkSize) => {
          try {
            const { rows } = await read(bytes, chunkSize);
            for (const r of rows) expect(r.line).toBeGreaterThan(0);
          } catch (err) {
            expect(err).toBeInstanceOf(InputError);
            const e = err as InputError;
            expect(e.problems.length).toBeGreaterThan(0);
            expect(e.problems[0]!.line === undefined || e.problems[0]!.line > 0).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
