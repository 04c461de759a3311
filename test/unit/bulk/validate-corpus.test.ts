// The bad-input corpus (test/fixtures/bad-csv/): every malformed file ends in an InputError that names
// the file, the line and the field, through pass 1 of a bulk run itself (planBulk: readCsv →
// validateRow → CrossRowChecker). Huge inputs are generated here rather than committed.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBulk } from '../../../src/bulk/plan/plan.js';
import type { BulkOp } from '../../../src/bulk/plan/validate.js';
import { InputError } from '../../../src/errors.js';

const CORPUS = join(import.meta.dirname, '../../fixtures/bad-csv');

async function inputErrorOf(op: BulkOp, file: string): Promise<InputError> {
  try {
    await planBulk(op, { path: file, label: file });
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error(`${file}: no problem found`);
}

// file → operation, line and field of the first problem, and what its message says.
// A null field: a whole-file problem (wrong encoding, empty file) that no column can be blamed for.
const CASES: Record<string, [BulkOp, number, string | null, RegExp]> = {
  'unterminated-quote.csv': ['refund', 3, 'refund_reason', /never closed/],
  'latin1-reason.csv': ['refund', 3, 'refund_reason', /not valid UTF-8/],
  'windows1252-euro.csv': ['refund', 4, 'refund_reason', /not valid UTF-8/],
  'utf16le-no-bom.csv': ['refund', 1, null, /UTF-16/],
  'truncated-multibyte-at-end.csv': ['refund', 3, 'refund_reason', /not valid UTF-8/],
  'excel-scientific-transaction-id.csv': ['refund', 3, 'transaction_id', /scientific notation/],
  'excel-scientific-order-no.csv': ['refund', 4, 'order_no', /scientific notation/],
  // Issue 14: read as meant now (test/fixtures/locales/handmade): UTF-16 with a BOM, decimal commas
  // in a ; file, "1,234.56", "1.234,56" in a ; file, "1 000.00". A file that mixes marks stays refused.
  'decimal-comma-refund-only.csv': ['refund', 2, 'refund_amount', /decimal comma/],
  'unknown-currency.csv': ['refund', 3, 'currency', /not an ISO 4217/],
  'negative-amount.csv': ['refund', 2, 'amount', /negative/],
  'negative-refund.csv': ['refund', 2, 'refund_amount', /negative/],
  'overflowing-amount.csv': ['refund', 2, 'amount', /more than 15 digits/],
  'too-many-decimals.csv': ['refund', 2, 'amount', /3 decimals but USD has 2/],
  'jpy-with-decimals.csv': ['refund', 2, 'amount', /JPY has no minor unit/],
  'currency-symbol.csv': ['refund', 2, 'amount', /currency symbol/],
  'scientific-amount.csv': ['refund', 2, 'amount', /scientific notation/],
  'refund-above-amount.csv': ['refund', 2, 'refund_amount', /more than the order amount/],
  'refund-zero.csv': ['refund', 2, 'refund_amount', /zero/],
  'refund-sum-above-amount.csv': ['refund', 5, 'refund_amount', /add up to 25\.01 .* lines 2 and 3/],
  'duplicate-refund.csv': ['refund', 4, 'refund_amount', /duplicate row: .* line 2/],
  'conflicting-amount.csv': ['refund', 3, 'amount', /also on line 2 with amount 25\.00, here 30\.00/],
  'formula-order-no.csv': ['refund', 3, 'order_no', /formula/],
  'formula-transaction-id.csv': ['refund', 2, 'transaction_id', /formula/],
  'formula-at.csv': ['refund', 2, 'transaction_id', /formula/],
  'missing-column.csv': [
    'refund',
    1,
    'refund_amount',
    // The header is listed once, in the refusal's first line (issue 26: one short block).
    /^missing column "refund_amount"$/,
  ],
  'duplicate-header.csv': ['refund', 1, 'amount', /appears twice/],
  'ragged-row-short.csv': ['refund', 3, 'refund_amount', /4 fields but the header has 6/],
  'ragged-row-long.csv': ['refund', 4, 'refund_reason', /7 fields but the header has 6/],
  'missing-value.csv': ['refund', 3, 'currency', /currency is empty/],
  'quote-in-id.csv': ['refund', 2, 'order_no', /quote/],
  'control-char-in-id.csv': ['refund', 2, 'transaction_id', /control character/],
  // A bidi override and a zero-width space: ids that look like others (shown escaped).
  'invisible-char-in-id.csv': [
    'refund',
    3,
    'transaction_id',
    /"T10\\u202e01" contains an invisible character \(U\+202E\)/,
  ],
  'review-flag-invalid.csv': ['review', 3, 'review_flag', /"yes" is not a review flag/],
  // Issue 13: escape sequences in cells are quoted escaped, never echoed raw.
  'escape-osc-title-in-currency.csv': [
    'refund',
    2,
    'currency',
    /^"\\x1b\]0;pwned\\x07USD" is not an ISO 4217/,
  ],
  'escape-clear-screen-in-amount.csv': ['refund', 2, 'amount', /^"\\x1b\[2J\\x1b\[H10\.00" is not an amount/],
  'escape-c1-csi-in-refund-amount.csv': ['refund', 2, 'refund_amount', /"\\x9b2J5\.00"/],
  'escape-bidi-override-in-currency.csv': ['refund', 2, 'currency', /^"\\u202eDSU" is not an ISO 4217/],
  'escape-formula-with-osc-in-id.csv': [
    'refund',
    2,
    'transaction_id',
    /^"=\\x1b\]0;pwned\\x07" begins with "=", which a spreadsheet runs as a formula/,
  ],
  'escape-in-header.csv': ['refund', 1, 'amount', /^missing column "amount"$/],
  'review-escape-in-flag.csv': ['review', 2, 'review_flag', /^"1\\x1b\[2J" is not a review flag/],
  'capture-duplicate.csv': [
    'capture',
    4,
    'transaction_id',
    /duplicate row: transaction T1 is already on line 2/,
  ],
};

const tmp = mkdtempSync(join(tmpdir(), 'payops-corpus-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function expectNamed(e: InputError, file: string, line: number, field: string | null, message: RegExp) {
  expect(e).toBeInstanceOf(InputError);
  expect(e.exitCode).toBe(2);
  expect(e.problems.length).toBeGreaterThan(0);
  for (const p of e.problems) {
    expect(p.file).toBe(file);
    expect(p.line).toBeGreaterThan(0);
    expect(p.message.length).toBeGreaterThan(0);
    if (field !== null) expect(p.field).toBeTruthy();
  }
  const first = e.problems[0]!;
  expect(first.line).toBe(line);
  if (field === null) expect(first.field).toBeUndefined();
  else expect(first.field).toBe(field);
  expect(first.message).toMatch(message);
  expect(first.expected).toBeTruthy();
}

describe('bad-csv corpus', () => {
  it('has a case for every fixture and at least 25 of them', () => {
    const files = readdirSync(CORPUS).filter((f) => f.endsWith('.csv'));
    expect(files.sort()).toEqual(Object.keys(CASES).sort());
    expect(files.length).toBeGreaterThanOrEqual(25);
  });

  for (const [name, [op, line, field, message]] of Object.entries(CASES)) {
    it(`${name}: ${op} refuses it at line ${line}${field ? `, ${field}` : ''}`, async () => {
      const file = join(CORPUS, name);
      expectNamed(await inputErrorOf(op, file), file, line, field, message);
    });
  }

  const H = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason\n';
  const OK = 'T1,O1,USD,25.00,5.00,x\n';

  it('a 2 MB field (generated)', async () => {
    const file = join(tmp, 'huge-field.csv');
    writeFileSync(file, `${H}${OK}T2,O2,USD,25.00,5.00,"${'x'.repeat(2 * 1024 * 1024)}"\n${OK}`);
    expectNamed(await inputErrorOf('refund', file), file, 3, 'refund_reason', /longer than/);
  });

  it('a 10 MB single line (generated) neither hangs nor buffers', async () => {
    const file = join(tmp, 'ten-mb-line.csv');
    writeFileSync(file, `${H}T2,${'9'.repeat(10 * 1024 * 1024)}`);
    const before = process.memoryUsage().rss;
    expectNamed(await inputErrorOf('refund', file), file, 2, 'order_no', /longer than/);
    // The reader stops at 1 MB; nothing close to the 10 MB line is kept.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('an empty file (generated)', async () => {
    const file = join(tmp, 'empty.csv');
    writeFileSync(file, '');
    expectNamed(await inputErrorOf('refund', file), file, 1, null, /is empty/);
  });

  it('reports every problem of a file, not just the first', async () => {
    const file = join(tmp, 'many.csv');
    writeFileSync(
      file,
      `${H}T1,O1,usd,25.00,5.00,x\nT2,O2,EURO,1,1,x\nT3,O3,USD,12,50,1,x\nT4,,USD,1.001,2,x\n${OK}`,
    );
    const e = await inputErrorOf('refund', file);
    expect(e.problems.map((p) => [p.line, p.field])).toEqual([
      [3, 'currency'],
      [4, 'refund_reason'],
      [5, 'order_no'],
      [5, 'amount'],
      [6, 'refund_amount'],
    ]);
  });
});
