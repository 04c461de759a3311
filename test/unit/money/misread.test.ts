// Money must never be read as another amount than the person meant: what could be either is
// refused, naming the amount. Hostile and edge forms of amounts, and the decimal mark of mixed files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAmountText } from '../../../src/money/amount.js';
import { amountStyle, DEFAULT_READ_AS, settleMark } from '../../../src/tabular/read-as.js';
import { tempDir } from '../../helpers/run-cli.js';

const UNKNOWN = { mark: '.', established: false } as const;

describe('amounts that could be read two ways', () => {
  it('12.000 JPY while the decimal mark is not known is refused, not read as 12 yen', () => {
    const r = parseAmountText('12.000', 'JPY', 0, UNKNOWN);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toMatch(/ambiguous/);
    // Known marks read it as the file writes it; two zeros are still the zero-decimals form.
    expect(parseAmountText('12.000', 'JPY', 0, { mark: '.', established: true })).toEqual({
      ok: true,
      minor: 12n,
    });
    expect(parseAmountText('12.000', 'JPY', 0, { mark: ',', established: true })).toEqual({
      ok: true,
      minor: 12000n,
    });
    expect(parseAmountText('12000.00', 'JPY', 0, UNKNOWN)).toEqual({ ok: true, minor: 12000n });
  });

  it('signs, exponents, other digits and odd spaces are refused in every style', () => {
    for (const s of [
      '-1,00',
      '+5',
      '1e3',
      '１２',
      '١٢',
      '12٫5',
      '1\u2009000,00',
      "1'000",
      '1_000',
      ',5',
      '1,,5',
    ]) {
      for (const style of [UNKNOWN, { mark: ',', established: true } as const]) {
        expect(parseAmountText(s, 'USD', 2, style).ok, `${s} ${style.mark}`).toBe(false);
      }
    }
  });
});

describe('the decimal mark of a mixed ; file', () => {
  it('does not make 1.234 a thousand when some amounts are written with a decimal point', async () => {
    const file = join(tempDir(), 'mixed.csv');
    writeFileSync(file, 'transaction_id;amount\nT1;12,50\nT2;13,50\nT3;14,50\nT4;10.25\nT5;1.234\n');
    const r = await settleMark(file, file, { ...DEFAULT_READ_AS }, ['amount']);
    expect(r.mark).toBe(',');
    // 1.234 in a file where someone wrote 10.25 could be 1.234 or 1234: it must be refused.
    expect(parseAmountText('1.234', 'KWD', 3, amountStyle(r)).ok).toBe(false);
    expect(parseAmountText('1.234', 'USD', 2, amountStyle(r)).ok).toBe(false);
    expect(parseAmountText('12,50', 'USD', 2, amountStyle(r))).toEqual({ ok: true, minor: 1250n });
    expect(parseAmountText('1.234,50', 'USD', 2, amountStyle(r))).toEqual({ ok: true, minor: 123450n });
  });
});
