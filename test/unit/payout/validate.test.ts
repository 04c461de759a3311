import { describe, expect, it } from 'vitest';
import type { InputProblem } from '../../../src/errors.js';
import type { RawRecord } from '../../../src/lifecycle/records.js';
import { parsePayoutRecord } from '../../../src/payout/records.js';
import { payoutExitCode, settledFromRecords } from '../../../src/payout/run-payout.js';

/** Journal records as a payout run reads them back. */
const parsed = (r: object) => parsePayoutRecord(r as RawRecord)!;

import type { PayoutResultRow } from '../../../src/payout/send.js';
import { checkPayout, ibanValid } from '../../../src/payout/validate.js';

function valid(): Record<string, unknown> {
  return {
    payment_amount: '1250.5',
    payment_currency: 'eur',
    payment_method: 'SWIFT',
    payment_date: '2026-11-23',
    beneficiary: {
      entity_type: 'COMPANY',
      company_name: 'ACME GmbH',
      bank_details: { account_name: 'ACME GmbH', iban: 'DE89370400440532013000', bank_country_code: 'de' },
    },
    payer: { entity_type: 'COMPANY', company_name: 'Shop Ltd' },
  };
}

describe('checkPayout', () => {
  it('accepts a valid payout and normalises amount and codes', () => {
    const problems: InputProblem[] = [];
    const checked = checkPayout(valid(), problems, { file: 'p.json' });
    expect(problems).toEqual([]);
    expect(checked?.minor).toBe(125050n);
    expect(checked?.currency).toBe('EUR');
    expect(checked?.request).toMatchObject({
      payment_amount: '1250.50',
      payment_currency: 'EUR',
      beneficiary: { bank_details: { bank_country_code: 'DE' } },
    });
  });

  it('reports every missing required field', () => {
    const problems: InputProblem[] = [];
    expect(checkPayout({}, problems, { file: 'p.csv', line: 3 })).toBeUndefined();
    expect(problems.map((p) => p.field).sort()).toEqual([
      'beneficiary.bank_details.account_name',
      'beneficiary.bank_details.iban',
      'beneficiary.entity_type',
      'payer.entity_type',
      'payment_amount',
      'payment_currency',
      'payment_method',
    ]);
    expect(problems.every((p) => p.file === 'p.csv' && p.line === 3)).toBe(true);
  });

  it('accepts account_number instead of iban', () => {
    const p = valid();
    (p.beneficiary as { bank_details: Record<string, string> }).bank_details = {
      account_name: 'X',
      account_number: '12345678',
    };
    const problems: InputProblem[] = [];
    expect(checkPayout(p, problems)).toBeDefined();
    expect(problems).toEqual([]);
  });

  it('refuses bad amounts, currencies, dates and request_ids', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ payment_amount: '1,250.50' }, 'payment_amount'],
      [{ payment_amount: '0' }, 'payment_amount'],
      [{ payment_amount: '10.001' }, 'payment_amount'],
      [{ payment_currency: 'EURO' }, 'payment_currency'],
      [{ payment_date: '2026-02-30' }, 'payment_date'],
      [{ request_id: 'not-a-uuid' }, 'request_id'],
      [{ source_amount: '10' }, 'source_currency'],
      [{ source_amount: '10.5', source_currency: 'JPY' }, 'source_amount'],
      [{ payer: { entity_type: 'X', date_of_birth: '01-02-1990' } }, 'payer.date_of_birth'],
      [{ unknown_field: 'x' }, 'unknown_field'],
      [
        {
          beneficiary: {
            entity_type: 'COMPANY',
            bank_details: { account_name: 'A', iban: 'DE89370400440532013001' },
          },
        },
        'beneficiary.bank_details.iban',
      ],
    ];
    for (const [patch, field] of cases) {
      const problems: InputProblem[] = [];
      expect(checkPayout({ ...valid(), ...patch }, problems), field).toBeUndefined();
      expect(
        problems.map((p) => p.field),
        JSON.stringify(patch),
      ).toEqual([field]);
    }
  });
});

describe('ibanValid', () => {
  it('checks the mod-97 check digits', () => {
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(ibanValid('DE89')).toBe(false);
  });
});

describe('run records', () => {
  it('reads settled rows from journal records', () => {
    const row = (line: number, outcome: PayoutResultRow['outcome']) => ({
      type: 'result',
      line,
      outcome,
      request_id: `r${line}`,
    });
    const records = [
      {
        type: 'plan',
        items: [
          { line: 2, request_id: 'r2' },
          { line: 3, request_id: 'r3' },
        ],
      },
      { type: 'intent', line: 2 },
      row(2, 'completed'),
      row(3, 'unknown'),
    ];
    expect([...settledFromRecords(records.map(parsed)).keys()]).toEqual([2]);
  });

  it('maps outcomes to exit codes', () => {
    const r = (outcome: PayoutResultRow['outcome']) => ({ outcome }) as PayoutResultRow;
    expect(payoutExitCode([r('completed')])).toBe(0);
    expect(payoutExitCode([r('completed'), r('failed')])).toBe(1);
    expect(payoutExitCode([r('failed'), r('unknown')])).toBe(3);
  });
});

describe('latestResults', () => {
  it('keeps the last result of each line, in line order', async () => {
    const { latestResults } = await import('../../../src/payout/runs.js');
    const rows = latestResults(
      [
        { type: 'plan', items: [] },
        { type: 'result', line: 3, outcome: 'unknown', at: 'x' },
        { type: 'result', line: 2, outcome: 'completed' },
        { type: 'result', line: 3, outcome: 'completed' },
      ].map(parsed),
    );
    expect(rows.map((r) => [r.line, r.outcome])).toEqual([
      [2, 'completed'],
      [3, 'completed'],
    ]);
    expect(rows[1]).not.toHaveProperty('at');
  });
});
