import { Parser } from 'csv-parse';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RecordBatch } from '../../../src/tabular/csv-fast-lines.js';
import { recordParser } from '../../../src/tabular/csv-reader.js';

const MAX = 24;

/** Records and the error code of the reader's csv-parse stream fed `pieces`, with or without the fast path. */
async function run(pieces: string[], delimiter: string, fast: boolean, batched = false) {
  const parser = recordParser(delimiter, MAX, fast, batched);
  const records: string[][] = [];
  parser.on('data', (r: string[] | RecordBatch) => {
    if (!batched) records.push(r as string[]);
    else {
      // Batches are non-empty; a batch said to be quote-free has no line break in any value.
      const batch = r as RecordBatch;
      let taken = 0;
      for (let record = batch.next(); record !== undefined; record = batch.next()) {
        expect(Array.isArray(record)).toBe(true);
        if (batch.quoteFree) expect(record.some((v) => v.includes('\n'))).toBe(false);
        records.push(record);
        taken++;
      }
      expect(taken).toBeGreaterThan(0);
    }
  });
  const done = new Promise<string | undefined>((resolve) => {
    parser.on('end', () => resolve(undefined));
    parser.on('error', (e: { code?: string }) => resolve(e.code ?? 'error'));
  });
  for (const p of pieces) parser.write(p);
  parser.end();
  const error = await done;
  return { records, error };
}

describe('QuoteFreeLines, the fast path in front of csv-parse', () => {
  it('gives exactly what csv-parse gives, however the text is cut (property)', async () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', ',', ';', '"', '\n', ' ', 'é', '😀'),
      maxLength: 120,
    });
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(fc.nat(120), { maxLength: 6 }),
        fc.constantFrom(',', ';'),
        async (t, cuts, d) => {
          const at = [...new Set(cuts.map((c) => Math.min(c, t.length)))].sort((a, b) => a - b);
          const pieces: string[] = [];
          let from = 0;
          for (const c of at) {
            // Never cut a surrogate pair: the reader writes whole characters.
            if (c > from && !/[\uDC00-\uDFFF]/.test(t[c] ?? '')) {
              pieces.push(t.slice(from, c));
              from = c;
            }
          }
          pieces.push(t.slice(from));
          const want = await run(pieces, d, false);
          const got = await run(pieces, d, true);
          // In batches (the reader's way): the same records and error, in the same order.
          expect(await run(pieces, d, true, true)).toEqual(got);
          if (want.error === undefined) expect(got).toEqual(want);
          else {
            expect(got.error).toBe(want.error);
            // Records before the error are the same ones (either may have parsed fewer of them).
            expect(want.records.slice(0, got.records.length)).toEqual(got.records);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('splits quote-free lines and hands over at the first quote', async () => {
    const got = await run(['a,b\nc,', 'd\n\ne,"f\ng",h\ni,j'], ',', true);
    expect(got).toEqual({
      records: [['a', 'b'], ['c', 'd'], [''], ['e', 'f\ng', 'h'], ['i', 'j']],
      error: undefined,
    });
  });

  it('measures a line in UTF-8 bytes, as csv-parse does (found by the property above)', async () => {
    // 15 UTF-16 units but 26 bytes: over the limit of 24 for csv-parse.
    for (const pieces of [['aaa😀😀😀😀éa😀'], ['aaa😀😀😀😀éa😀\nok\n'], ['ok\n', 'aaa😀😀😀😀éa😀']]) {
      const want = await run(pieces, ',', false);
      expect(want.error).toBe('CSV_MAX_RECORD_SIZE');
      expect(await run(pieces, ',', true)).toEqual(want);
    }
    // Just within the limit in bytes: split by the fast path, the same records.
    const within = await run(['😀😀😀😀😀😀\n'], ',', true);
    expect(within).toEqual(await run(['😀😀😀😀😀😀\n'], ',', false));
    expect(within.error).toBeUndefined();
  });

  it('drives an unmodified csv-parse parser: it patches none of its methods', async () => {
    const fast = recordParser(',', MAX, true);
    expect(fast).not.toBeInstanceOf(Parser);
    fast.write('a,b\n"c\nd",e\n');
    const inner = (fast as unknown as { parser: unknown }).parser;
    expect(inner).toBeInstanceOf(Parser);
    const own = Object.getOwnPropertyNames(inner).filter(
      (k) => typeof (inner as Record<string, unknown>)[k] === 'function',
    );
    expect(own).toEqual([]);
    fast.destroy();
  });

  it('leaves an over-long line to csv-parse, which decides about it', async () => {
    const got = await run(['ok,1\n', `${'x'.repeat(MAX + 5)}\nlater\n`], ',', true);
    expect(got.records).toEqual([['ok', '1']]);
    expect(got.error).toBe('CSV_MAX_RECORD_SIZE');
    for (let n = MAX - 2; n <= MAX + 6; n++) {
      for (const line of ['x'.repeat(n), `${'x'.repeat(n - 2)},y`]) {
        const pieces = ['ok,1\n', `${line}\nlater\n`, 'end'];
        expect(await run(pieces, ',', true), `${n}`).toEqual(await run(pieces, ',', false));
      }
    }
  });
});
