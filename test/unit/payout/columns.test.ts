import { describe, expect, it } from 'vitest';
import { mapColumns, rowToObject } from '../../../src/payout/columns.js';
import { PAYOUT_SPEC } from '../../../src/payout/fields.js';

describe('payout CSV columns', () => {
  it('turns dotted columns into nested objects, case-insensitively', () => {
    const map = mapColumns(
      [
        'Payment_Amount',
        'payment_currency',
        'Beneficiary.Bank_Details.IBAN',
        'beneficiary.bank_details.account_name',
        'payer.entity_type',
      ],
      PAYOUT_SPEC,
    );
    expect(map.problems).toEqual([]);
    expect(rowToObject(map, ['10.00', 'EUR', 'DE89370400440532013000', 'ACME GmbH', 'COMPANY'])).toEqual({
      payment_amount: '10.00',
      payment_currency: 'EUR',
      beneficiary: { bank_details: { iban: 'DE89370400440532013000', account_name: 'ACME GmbH' } },
      payer: { entity_type: 'COMPANY' },
    });
  });

  it('builds lists from indexed columns and leaves out empty cells', () => {
    const map = mapColumns(
      [
        'beneficiary.person_documents[0].file_url',
        'beneficiary.person_documents[0].labels[0]',
        'beneficiary.person_documents[0].labels[2]',
        'reference',
      ],
      PAYOUT_SPEC,
    );
    expect(map.problems).toEqual([]);
    expect(rowToObject(map, ['https://x/doc.pdf', 'ID', 'PASSPORT', ' '])).toEqual({
      beneficiary: { person_documents: [{ file_url: 'https://x/doc.pdf', labels: ['ID', 'PASSPORT'] }] },
    });
  });

  it('reports unknown, object and repeated columns on line 1', () => {
    const map = mapColumns(
      ['beneficiary.bank_detail.iban', 'beneficiary.address', 'payment_amount', 'PAYMENT_AMOUNT'],
      PAYOUT_SPEC,
      'p.csv',
    );
    expect(map.problems.map((p) => [p.line, p.field, p.message])).toEqual([
      [1, 'beneficiary.bank_detail.iban', 'is not a payout field'],
      [1, 'beneficiary.address', 'names an object, not a single value'],
      [1, 'PAYMENT_AMOUNT', 'repeats column "payment_amount"'],
    ]);
  });
});
