// The leaf every writer, the gateway's --debug log and the sandbox mask card data with.
import { describe, expect, it } from 'vitest';
import {
  cardFieldKind,
  cellHoldsCardNumber,
  containsCardNumber,
  isIdentifierField,
  longNumbersAsStrings,
  looksLikePan,
  luhnValid,
  maskPan,
  redactBody,
  redactOutput,
  redactText,
  redactWireBody,
} from '../../src/redact.js';

const PAN = '4111111111111111';

describe('card helpers', () => {
  it('checks Luhn and masks all but the first 6 and last 4 digits', () => {
    expect(luhnValid(PAN)).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(looksLikePan(PAN)).toBe(true);
    expect(looksLikePan('123456789012')).toBe(false);
    expect(maskPan('4111 1111 1111 1111')).toBe('411111******1111');
    expect(maskPan('123')).toBe('***');
  });
});

describe('redaction', () => {
  it('masks card numbers and secrets in text, leaving other long numbers', () => {
    expect(redactText(`card ${PAN} order 1234567890123`, ['the-sign-key'])).toBe(
      'card 411111******1111 order 1234567890123',
    );
    expect(redactText('key the-sign-key', ['the-sign-key'])).toBe('key ****');
  });

  it('drops security codes and sign keys and masks the card in bodies, JSON, form and XML', () => {
    expect(redactBody({ card: PAN, security_code: '123', nested: [{ cvv: '1', note: PAN }] })).toEqual({
      card: '411111******1111',
      nested: [{ note: '411111******1111' }],
    });
    const json = redactWireBody(
      JSON.stringify({ card: PAN, sign_key: 'k', amount: '1.00' }),
      'application/json',
    );
    expect(JSON.parse(json)).toEqual({ card: '411111******1111', amount: '1.00' });
    const form = redactWireBody(`card=${PAN}&security_code=123&a=1`, 'application/x-www-form-urlencoded');
    expect(form).toBe('card=411111******1111&a=1');
    const xml = redactWireBody(`<respon><card>${PAN}</card><cvv>123</cvv></respon>`, 'application/xml');
    expect(xml).toBe('<respon><card>411111******1111</card><cvv>[removed]</cvv></respon>');
  });
});

// Issue 13, items 8 and 9: card numbers written with spaces or dashes are masked like plain ones,
// a security code is masked next to its label, and numeric identifiers and timestamps that happen
// to pass Luhn (a CNPJ, a transaction_date) are left alone — outside free text.
const CNPJ = '41234567000100'; // a valid CNPJ that also passes Luhn
const DATE = '20261122134707'; // YYYYMMDDhhmmss that passes Luhn
const SPACED = '4242 4242 4242 4242';
const DASHED = '4242-4242-4242-4242';

describe('card numbers in free text', () => {
  it('masks spaced and dashed card numbers (first 6, last 4)', () => {
    expect(luhnValid(CNPJ)).toBe(true);
    expect(luhnValid(DATE)).toBe(true);
    expect(redactText(`card ${SPACED} thanks`)).toBe('card 424242******4242 thanks');
    expect(redactText(`card ${DASHED}.`)).toBe('card 424242******4242.');
    expect(redactText('amex 3782 822463 10005 ok')).toBe('amex 378282*****0005 ok');
    expect(redactText('mixed 4242-4242 4242 4242')).toBe('mixed 424242******4242');
  });

  it('masks the card number of "card … cvv …" and the security code after its label', () => {
    const text = redactText(`note=card ${SPACED} cvv 737`);
    expect(text).toBe('note=card 424242******4242 cvv ***');
    expect(redactText('CVC: 1234, security_code=987 and security code 555')).toBe(
      'CVC: ****, security_code=*** and security code ***',
    );
  });

  it('leaves what cannot be a card number: wrong first digit, failed Luhn, dates, run ids, phones', () => {
    for (const text of [
      '1234 5678 1234 5670', // starts with 1
      '4242 4242 4242 4241', // fails Luhn
      'run 20261122-013045-3fa2c1',
      'at 2026-11-22 13:47:07',
      'phone +55 11 98765-4321',
      'order 424242424242', // 12 digits
    ]) {
      expect(redactText(text)).toBe(text);
    }
  });
});

describe('identifier fields are not card numbers', () => {
  it('redactBody keeps documents, dates and ids that pass Luhn, and still masks card and free text', () => {
    const body = {
      document: CNPJ,
      person: { document_number: CNPJ, phone_number: CNPJ, note: `pay ${SPACED}` },
      orders_list: [{ transaction_id: CNPJ, transaction_date: DATE, order_no: CNPJ, reference_no: CNPJ }],
      refund_orders: [{ refund_date: DATE, refund_reference_id: `${CNPJ}-01` }],
      note: `card ${DASHED}`,
      custom: CNPJ,
      card: SPACED,
      nested: { card: PAN, token_id: PAN },
    };
    expect(redactBody(body)).toEqual({
      document: CNPJ,
      person: { document_number: CNPJ, phone_number: CNPJ, note: 'pay 424242******4242' },
      orders_list: [{ transaction_id: CNPJ, transaction_date: DATE, order_no: CNPJ, reference_no: CNPJ }],
      refund_orders: [{ refund_date: DATE, refund_reference_id: `${CNPJ}-01` }],
      note: 'card 424242******4242',
      custom: '412345****0100',
      card: '424242******4242',
      nested: { card: '411111******1111', token_id: '411111******1111' },
    });
  });

  it('wire bodies: JSON, form and XML keep identifier fields and mask the rest', () => {
    const json = JSON.parse(
      redactWireBody(
        JSON.stringify({ transaction_date: DATE, note: `x ${SPACED} cvv 737` }),
        'application/json',
      ),
    );
    expect(json).toEqual({ transaction_date: DATE, note: 'x 424242******4242 cvv ***' });
    const form = redactWireBody(
      new URLSearchParams({ document: CNPJ, note: `card ${SPACED}`, card: PAN }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(new URLSearchParams(form).get('document')).toBe(CNPJ);
    expect(new URLSearchParams(form).get('note')).toBe('card 424242******4242');
    expect(new URLSearchParams(form).get('card')).toBe('411111******1111');
    const xml = redactWireBody(
      `<respon><transaction_id>${CNPJ}</transaction_id><card>${PAN}</card><note>card ${SPACED} cvv 737</note>` +
        `<security_code>737</security_code><recurring_deduction_time>${DATE}</recurring_deduction_time></respon>`,
      'application/xml',
    );
    expect(xml).toBe(
      `<respon><transaction_id>${CNPJ}</transaction_id><card>411111******1111</card>` +
        '<note>card 424242******4242 cvv ***</note><security_code>[removed]</security_code>' +
        `<recurring_deduction_time>${DATE}</recurring_deduction_time></respon>`,
    );
  });

  it('knows the identifier fields of the spec, and never the card fields', () => {
    for (const name of [
      'document',
      'document_number',
      'owner_document_number',
      'transaction_id',
      'transaction_date',
      'refund_date',
      'refund_processing_date',
      'created_at',
      'recurring_deduction_time',
      'checkout_time',
      'order_no',
      'reference_no',
      'refund_reference',
      'refund_reference_id',
      'merchant_id',
      'account_id',
      'account_number',
      'shopper_phone',
      'phone_number',
      'business_registration_number',
      'personal_id_number',
      'birth_date',
      'payment_date',
    ]) {
      expect(isIdentifierField(name), name).toBe(true);
    }
    for (const name of [
      'card',
      'card_number',
      'security_code',
      'cvv',
      'cvc',
      'pan',
      'token_id',
      'note',
      'custom',
      // ids a merchant makes up freely: a card number there is still refused and masked
      'shopper_id',
      'session_id',
      'productId',
    ]) {
      expect(isIdentifierField(name), name).toBe(false);
    }
  });
});

// Review of issue 13: a card number sent as a JSON number, and groups joined by dots, tabs or
// several spaces; card fields under other names in bodies.
describe('card numbers as JSON numbers and with other separators', () => {
  it('masks a JSON number that is a card number in a wire body, keeping identifiers and amounts', () => {
    // Long numbers come back as strings of their exact digits (a log line, not data).
    const text = `{"card":${PAN},"note":4242424242424242,"transaction_date":${DATE},"document":${CNPJ},"amount":12.5,"n":[4242424242424242]}`;
    const out = redactWireBody(text, 'application/json');
    expect(out).not.toContain(PAN);
    expect(out).not.toContain('4242424242424242');
    expect(JSON.parse(out)).toEqual({
      card: '411111******1111',
      note: '424242******4242',
      transaction_date: DATE,
      document: CNPJ,
      amount: 12.5,
      n: ['424242******4242'],
    });
  });

  it('masks a 19-digit card number sent as a JSON number by its digits as written', () => {
    // 19 digits, Luhn-valid, beyond what a double holds exactly.
    const long = '4000000000000000006';
    expect(looksLikePan(long)).toBe(true);
    const out = redactWireBody(`{"note":${long}}`, 'application/json; charset=utf-8');
    expect(JSON.parse(out)).toEqual({ note: '400000*********0006' });
  });

  it('touches only numbers outside strings, and still masks JSON that does not parse', () => {
    expect(longNumbersAsStrings('{"a":"x\\"1234567890123","b":1234567890123,"c":-1234567890123}')).toBe(
      '{"a":"x\\"1234567890123","b":"1234567890123","c":-1234567890123}',
    );
    expect(redactWireBody('{"note":4242424242424242', 'application/json')).toBe('{"note":424242******4242');
  });

  it('masks card numbers among the numbers of an already parsed body', () => {
    expect(
      redactBody({ card: Number(PAN), note: 4242424242424242, transaction_date: Number(DATE), n: 12 }),
    ).toEqual({ card: '411111******1111', note: '424242******4242', transaction_date: Number(DATE), n: 12 });
  });

  it('masks groups joined by dots, tabs or several spaces', () => {
    expect(redactText('card 4242  4242  4242  4242 ok')).toBe('card 424242******4242 ok');
    expect(redactText('card 4242.4242.4242.4242.')).toBe('card 424242******4242.');
    expect(redactText('card 4242\t4242\t4242\t4242')).toBe('card 424242******4242');
    expect(redactText('card 4242 - 4242 - 4242 - 4242')).toBe('card 424242******4242');
    // Amounts, versions and dates with dots stay.
    for (const text of ['paid 1234.56 and 4242.42', 'v1.2.3', 'on 2026.11.22', '10.00 20.00 30.00 40.00'])
      expect(redactText(text)).toBe(text);
  });

  it('knows card fields under other names, and not names that merely contain the letters', () => {
    for (const [name, kind] of [
      ['card', 'pan'],
      ['card_number', 'pan'],
      ['cardNumber', 'pan'],
      ['pan', 'pan'],
      ['card_pan', 'pan'],
      ['security_code', 'code'],
      ['securityCode', 'code'],
      ['card_security', 'code'],
      ['card_cvv', 'code'],
      ['CVC2', 'code'],
    ] as const) {
      expect(cardFieldKind(name), name).toBe(kind);
    }
    for (const name of [
      'company',
      'span',
      'expansion',
      'pancake',
      'discard',
      'card_type',
      'security',
      'note',
    ])
      expect(cardFieldKind(name), name).toBeUndefined();
    expect(redactBody({ card_cvv: '737', cardNumber: PAN, company: 'ACME' })).toEqual({
      cardNumber: '411111******1111',
      company: 'ACME',
    });
  });
});

describe('output redaction, by column (issue 24)', () => {
  it('masks card numbers and labelled codes in free text, the card field by itself, identifiers never', async () => {
    const { outputJsonReplacer, redactOutput } = await import('../../src/redact.js');
    expect(redactOutput('note', 'card 5555-5555-5555-4444 cvv 7391')).toBe('card 555555******4444 cvv ****');
    expect(redactOutput('card', '5555555555554444')).toBe('555555******4444');
    expect(redactOutput('card', '424242******4242')).toBe('424242******4242');
    // A label in the card's place (the dry run's) is text, not a number to blank.
    expect(redactOutput('card', 'read from the prompt')).toBe('read from the prompt');
    expect(redactOutput('transaction_id', '5555555555554444')).toBe('5555555555554444');
    expect(redactOutput('refund_reference_id', '5555555555554444-01')).toBe('5555555555554444-01');
    expect(redactOutput('amount', '1234.50')).toBe('1234.50');
    expect(redactOutput(undefined, 'x 4111 1111 1111 1111')).toBe('x 411111******1111');
    const json = JSON.stringify(
      {
        card: 5555555555554444,
        note: 'cvc: 123',
        order_no: '5555555555554444',
        n: 10n,
        list: ['4111111111111111'],
      },
      outputJsonReplacer,
    );
    expect(json).toBe(
      '{"card":"555555******4444","note":"cvc: ***","order_no":"5555555555554444","n":"10","list":["411111******1111"]}',
    );
  });
});

describe('card numbers written with other spaces and digits (found trying it: they passed every check)', () => {
  it.each([
    ['no-break spaces', 'cc 4242\u00a04242\u00a04242\u00a04242'],
    ['narrow no-break spaces', 'card 5555\u202f5555\u202f5555\u202f4444 cvv 7391'],
    ['full-width digits', 'cc ４２４２４２４２４２４２４２４２'],
    ['full-width digits in groups', 'cc ４２４２ ４２４２ ４２４２ ４２４２'],
  ])('%s: found, refused in a cell, and masked in output', (_name, text) => {
    expect(containsCardNumber(text)).toBe(true);
    expect(cellHoldsCardNumber('refund_reason', text)).toBe(true);
    const shown = redactOutput('note', text);
    expect(shown).not.toMatch(/4242.?4242|5555.?5555|４２４２４２/);
    expect(shown).toMatch(/424242\*+4242|555555\*+4444/);
    expect(shown).not.toContain('7391');
  });

  it('a run of full-width digits that is no card number is left as it is', () => {
    expect(containsCardNumber('order ４２４２')).toBe(false);
    expect(redactOutput('note', 'order ４２４２')).toBe('order ４２４２');
  });
});
