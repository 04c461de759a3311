import { describe, expect, it } from 'vitest';
import { findCardArguments, isCardLike, refuseCardArguments } from '../../src/argv-guard.js';
import { UsageError } from '../../src/errors.js';

describe('isCardLike', () => {
  it('catches Luhn-valid 13–19 digit numbers, grouped or not', () => {
    expect(isCardLike('4242424242424242')).toBe(true);
    expect(isCardLike('4242 4242 4242 4242')).toBe(true);
    expect(isCardLike('4242-4242-4242-4242')).toBe(true);
    expect(isCardLike(' 4111111111111111 ')).toBe(true);
    expect(isCardLike('378282246310005')).toBe(true); // 15-digit Amex
    expect(isCardLike('4222222222222')).toBe(true); // 13 digits
  });

  it('leaves other arguments alone', () => {
    expect(isCardLike('4242424242424241')).toBe(false); // fails Luhn
    expect(isCardLike('424242424242')).toBe(false); // 12 digits
    expect(isCardLike('42424242424242424242')).toBe(false); // 20 digits
    expect(isCardLike('PO-20261122001500-ab12cd')).toBe(false);
    expect(isCardLike('12.50')).toBe(false);
    expect(isCardLike('12/2030')).toBe(false);
    expect(isCardLike('--amount')).toBe(false);
    expect(isCardLike('1700000000')).toBe(false);
    expect(isCardLike('')).toBe(false);
  });
});

describe('findCardArguments', () => {
  it('finds numbers as separate arguments and as --flag=value', () => {
    const at = (argv: string[]) => findCardArguments(argv).map((f) => f.index);
    expect(at(['pay', 'card', '--amount', '10', '4242424242424242'])).toEqual([4]);
    expect(at(['pay', 'card', '--note=4242 4242 4242 4242'])).toEqual([2]);
    expect(at(['pay', 'card', '--card', '4000-0000-0000-0002'])).toEqual([3]);
    expect(at(['pay', 'card', '--amount', '10', '--currency', 'USD'])).toEqual([]);
  });
});

describe('refuseCardArguments', () => {
  it('throws a usage error that never repeats the number', () => {
    let err: unknown;
    try {
      refuseCardArguments(['pay', 'card', '4111111111111111']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    const e = err as UsageError;
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('#3');
    expect(`${e.message} ${e.hint}`).not.toContain('4111');
    expect(e.hint).toMatch(/stdin/);
  });

  it('passes clean argv', () => {
    expect(() => refuseCardArguments(['pay', 'card', '--amount', '12.50'])).not.toThrow();
  });
});

// Issue 13, items 7 and 9: card data inside arguments (`--data card=…`, a number in a note) is
// refused for every command, naming the field; numeric identifiers that pass Luhn are not.
const CNPJ = '41234567000100'; // a valid CNPJ that also passes Luhn
const DATE = '20261122134707';

function refusal(argv: string[], command?: string): UsageError {
  try {
    refuseCardArguments(argv, command);
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error(`not refused: ${argv.join(' ')}`);
}

describe('card data inside arguments', () => {
  it('refuses card and security_code keys of --data at any depth, whatever their value', () => {
    const argv = ['call', '/v1/authorise', '--data', 'card=4242424242424242', '--data', 'security_code=737'];
    expect(findCardArguments(argv)).toEqual([
      { index: 3, field: '--data card', why: 'card field' },
      { index: 5, field: '--data security_code', why: 'card field' },
    ]);
    for (const data of [
      'card.number=4242424242424242',
      'payment.card=x',
      'cvv=737',
      'CVC=737',
      'card_number=4242',
      'pan=1',
      'person.security_code=737',
      'cards[0].card=x',
    ]) {
      expect(findCardArguments(['call', '/v1/x', '--data', data]), data).toHaveLength(1);
      expect(findCardArguments(['call', '/v1/x', `--data=${data}`]), data).toHaveLength(1);
    }
  });

  it('refuses card flags of any command, also as --flag=value', () => {
    expect(findCardArguments(['pay', 'card', '--security-code', '737'])).toEqual([
      { index: 3, field: '--security-code', why: 'card field' },
    ]);
    expect(findCardArguments(['refund', '--cvv=737'])).toEqual([
      { index: 1, field: '--cvv', why: 'card field' },
    ]);
  });

  it('refuses a card number inside free text, spaced or dashed, naming the field', () => {
    expect(findCardArguments(['call', '/v1/x', '--data', 'note=card 4242 4242 4242 4242 cvv 737'])).toEqual([
      { index: 3, field: '--data note', why: 'card number' },
    ]);
    expect(findCardArguments(['refund', '--refund-reason', 'card 4242-4242-4242-4242'])).toEqual([
      { index: 2, field: '--refund-reason', why: 'card number' },
    ]);
  });

  it('lets numeric identifiers and timestamps through, however Luhn-valid', () => {
    for (const argv of [
      ['pay', 'apm', '--document', CNPJ],
      ['pay', 'apm', `--person-document-number=${CNPJ}`],
      ['call', '/v1/authorise', '--data', `person.document_number=${CNPJ}`],
      ['call', '/v1/authorise', '--data', `document=${CNPJ}`],
      ['call', '/v1/x', '--data', `orders[0].transaction_date=${DATE}`],
      ['refund', '--transaction-id', CNPJ, '--order-no', CNPJ],
      ['query', '--transaction-id', `${CNPJ},${CNPJ}`],
      ['config', 'set', 'merchant_id', CNPJ],
      ['query', '--from', DATE, `--to=${DATE}`],
    ]) {
      expect(findCardArguments(argv), argv.join(' ')).toEqual([]);
    }
  });

  it('leaves numbers that cannot be card numbers (first digit 0, 1, 7, 8, 9)', () => {
    expect(isCardLike('1234567812345670')).toBe(false); // passes Luhn, starts with 1
    expect(isCardLike('7992739871300008')).toBe(false); // passes Luhn, starts with 7
  });

  it('leaves run ids alone, whatever their digits (8-6-4 is not how cards are grouped)', () => {
    // 20261124-000125-4569 is 18 digits from 2 that pass Luhn.
    expect(isCardLike('202611240001254569')).toBe(true);
    expect(isCardLike('20261124-000125-4569')).toBe(false);
    expect(findCardArguments(['runs', 'show', '20261124-000125-4569'])).toEqual([]);
  });

  it('refuses a card flag with nothing after it, at the flag', () => {
    expect(findCardArguments(['pay', 'card', '--cvv'])).toEqual([
      { index: 2, field: '--cvv', why: 'card field' },
    ]);
    expect(findCardArguments(['refund', '--security-code', '--yes'])).toEqual([
      { index: 1, field: '--security-code', why: 'card field' },
    ]);
    expect(findCardArguments(['call', '/v1/x', '--data', 'custom=7992739871300008'])).toEqual([]);
  });

  it('names the field and the way in: stdin or the prompt (pay), --json - (call)', () => {
    const call = refusal(
      ['call', '/v1/authorise', '--data', 'card=4242424242424242', '--data', 'security_code=737'],
      'call',
    );
    expect(call.exitCode).toBe(2);
    expect(call.message).toContain('#4 (--data card)');
    expect(call.message).toContain('#6 (--data security_code)');
    expect(call.hint).toContain('--json -');
    expect(call.hint).toContain('payops pay card');
    const pay = refusal(['pay', 'card', '--note', 'card 4242 4242 4242 4242'], 'pay');
    expect(pay.message).toContain('#4 (--note)');
    expect(pay.hint).toMatch(/hidden/);
    expect(pay.hint).toMatch(/stdin/);
    for (const e of [call, pay]) expect(`${e.message} ${e.hint}`).not.toMatch(/4242|737/);
  });
});

// Review of issue 13: card fields under other names, card numbers with other separators, and card
// data in JSON text given as an argument (`--json '{"security_code":"737"}'`).
describe('card fields by other names, other separators, inline JSON', () => {
  it('refuses field names that hold a card word as a whole part of the name', () => {
    for (const data of [
      'card_security=737',
      'card_security_code=737',
      'cardSecurityCode=737',
      'securitycode=737',
      'billing.card_cvv=737',
      'cvv2=737',
      'cardNumber=x',
      'cardnumber=x',
      'payer.card_number=x',
      'PAN=x',
      'card_pan=x',
      'security-code=737',
    ]) {
      expect(findCardArguments(['call', '/v1/x', '--data', data]), data).toEqual([
        { index: 3, field: `--data ${data.slice(0, data.indexOf('='))}`, why: 'card field' },
      ]);
    }
    expect(findCardArguments(['pay', 'card', '--card-security', '737'])).toHaveLength(1);
  });

  it('leaves names that only contain the letters: company, span, expansion, pancake, discard, security', () => {
    for (const data of [
      'company=ACME',
      'company_name=ACME',
      'span=3',
      'expansion=1',
      'pancake=1',
      'discard=1',
      'cards_count=2',
      'security=high',
      'code=737',
      'account_number=1',
    ]) {
      expect(findCardArguments(['call', '/v1/x', '--data', data]), data).toEqual([]);
    }
  });

  it('refuses card numbers grouped with dots, tabs or several spaces', () => {
    for (const pan of [
      '4242  4242  4242  4242',
      '4242.4242.4242.4242',
      '4242\t4242\t4242\t4242',
      '4242 - 4242 - 4242 - 4242',
    ]) {
      expect(isCardLike(pan), pan).toBe(true);
      expect(findCardArguments(['call', '/v1/x', '--data', `note=card ${pan}`]), pan).toEqual([
        { index: 3, field: '--data note', why: 'card number' },
      ]);
    }
    // Not grouped like a card: a version, an amount, a date.
    for (const text of ['1.2.3', '4242.42', '2026.11.22', '12.50'])
      expect(isCardLike(text), text).toBe(false);
  });

  it('refuses JSON text in an argument that carries a card field or a card number, naming the field', () => {
    expect(findCardArguments(['call', '/v1/authorise', '--json', '{"security_code":"737"}'])).toEqual([
      { index: 3, field: '--json security_code', why: 'card field' },
    ]);
    expect(findCardArguments(['call', '/v1/authorise', '--json={"a":{"card":"x"}}'])).toEqual([
      { index: 2, field: '--json a.card', why: 'card field' },
    ]);
    expect(findCardArguments(['call', '/v1/x', '--json', '{"note":4242424242424242}'])).toEqual([
      { index: 3, field: '--json note', why: 'card number' },
    ]);
    expect(findCardArguments(['call', '/v1/x', '--json', '[{"n":"4242.4242.4242.4242"}]'])).toEqual([
      { index: 3, field: '--json [0].n', why: 'card number' },
    ]);
    // Not valid JSON, but a card field is plain to see.
    expect(findCardArguments(['call', '/v1/x', '--json', "{'cvv': 737}"])).toEqual([
      { index: 3, field: '--json', why: 'card field' },
    ]);
    // Identifiers in JSON text pass, as they do in --data.
    expect(
      findCardArguments(['call', '/v1/x', '--json', `{"document":"${CNPJ}","transaction_date":${DATE}}`]),
    ).toEqual([]);
    const e = refusal(['call', '/v1/authorise', '--json', '{"security_code":"737"}'], 'call');
    expect(`${e.message} ${e.hint}`).not.toContain('737');
  });
});

// issue 24: `--file refunds-4242424242424242.csv` was refused as a card number.
describe('file-name arguments are not card numbers', () => {
  const NUMBER = '4242424242424242';
  const none = () => false;
  const only =
    (...paths: string[]) =>
    (p: string) =>
      paths.includes(p);

  it('a path given to --file, --out, --request or --json: its digits are part of a name', () => {
    for (const argv of [
      ['refund', '--file', `refunds-${NUMBER}.csv`],
      ['refund', `--file=${NUMBER}.csv`],
      ['--out', `out/${NUMBER}`, 'refund', '--file', 'a.csv'],
      ['pay', 'card', '--request', `req-${NUMBER}.json`],
      ['call', '/v1/x', '--json', `bodies/${NUMBER}`],
    ]) {
      expect(findCardArguments(argv, none), argv.join(' ')).toEqual([]);
    }
  });

  it('a file flag given the number alone is refused unless that file exists', () => {
    expect(findCardArguments(['refund', '--file', NUMBER], none)).toEqual([
      { index: 2, field: '--file', why: 'card number' },
    ]);
    expect(findCardArguments(['refund', '--file', NUMBER], only(NUMBER))).toEqual([]);
  });

  it('a bare argument passes only when it names something that exists', () => {
    expect(findCardArguments(['refund', `${NUMBER}.csv`], none)).toEqual([{ index: 1, why: 'card number' }]);
    expect(findCardArguments(['refund', `${NUMBER}.csv`], only(`${NUMBER}.csv`))).toEqual([]);
    expect(findCardArguments(['pay', NUMBER], none)).toEqual([{ index: 1, why: 'card number' }]);
  });

  it('other flags are judged as before, whatever exists', () => {
    const all = () => true;
    expect(findCardArguments(['pay', 'card', '--note', `${NUMBER}.csv`], all)).toEqual([
      { index: 3, field: '--note', why: 'card number' },
    ]);
    expect(findCardArguments(['config', 'set', 'note', NUMBER], all)).toEqual([
      { index: 3, field: 'note', why: 'card number' },
    ]);
  });
});
