// Card data and prototype keys on the command line (issue 13, items 7, 9 and 11), through
// main(argv, io) in this process against a recording server: refused with exit 2 for every command,
// the field named, the number never echoed, and nothing on the wire.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { type RecordingServer, startRecordingServer } from '../../helpers/recording-server.js';
import { expectCleanProcess } from './support.js';

expectCleanProcess();

const CARD = '4242424242424242';
const CNPJ = '41234567000100'; // a valid CNPJ that also passes Luhn

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({ body: '{"return_status":"1","return_message":"OK"}' }));
});
afterEach(async () => {
  await server.close();
  delete (Object.prototype as Record<string, unknown>).merchant_id;
});

function io() {
  return fakeIo({
    env: {
      PAYOPS_BASE_URL: server.url,
      PAYOPS_MERCHANT_ID: '800001',
      PAYOPS_ACCOUNT_ID: '800001001',
      PAYOPS_SIGN_KEY: 'sandbox-sign-key',
      PAYOPS_NO_OPEN: '1',
    },
  });
}

describe('card data in arguments is refused for every command', () => {
  it('payops call --data card=… --data security_code=…: exit 2, both named, nothing sent', async () => {
    const r = await runMain(
      [
        'call',
        '/v1/authorise',
        '--data',
        `card=${CARD}`,
        '--data',
        'security_code=737',
        '--data',
        'amount=1.00',
      ],
      io(),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--data card');
    expect(r.stderr).toContain('--data security_code');
    expect(r.stderr).toContain('--json -');
    expect(r.stdout + r.stderr).not.toMatch(/4242|737/);
    expect(server.requests).toEqual([]);
  });

  it('a spaced card number inside a note, and a --cvv flag, for call, refund and query', async () => {
    for (const argv of [
      ['call', '/v1/authorise', '--data', 'note=card 4242 4242 4242 4242 cvv 737'],
      [
        'refund',
        '--transaction-id',
        'T1',
        '--order-no',
        'O1',
        '--currency',
        'USD',
        '--amount',
        '1.00',
        '--refund-amount',
        '1.00',
        '--refund-reason',
        'card 4242-4242-4242-4242',
        '--yes',
      ],
      ['query', '--transaction-id', 'T1', '--cvv', '737'],
    ]) {
      const r = await runMain(argv, io());
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/refusing to run/);
      expect(r.stdout + r.stderr).not.toMatch(/4242|737/);
    }
    expect(server.requests).toEqual([]);
  });

  it('a CNPJ in document and person.document_number is sent, not refused', async () => {
    const r = await runMain(
      [
        '--yes',
        'call',
        '/v1/authorise',
        '--data',
        `document=${CNPJ}`,
        '--data',
        `person.document_number=${CNPJ}`,
      ],
      io(),
    );
    expect(r.stderr).not.toMatch(/refusing/);
    expect(server.requests).toHaveLength(1);
    const sent = JSON.parse(server.requests[0]!.body);
    expect(sent.document).toBe(CNPJ);
    expect(sent.person.document_number).toBe(CNPJ);
  });
});

describe('numeric identifiers are not card numbers', () => {
  it('pay apm --document CNPJ --person-document-number CNPJ: sent as given', async () => {
    await server.close();
    server = await startRecordingServer(() => ({
      contentType: 'application/xml',
      body: '<respon><order_no>O1</order_no><amount>1.00</amount><currency>BRL</currency><issuer_url>https://issuer.example/p</issuer_url></respon>',
    }));
    const r = await runMain(
      [
        '--yes',
        'pay',
        'apm',
        '--payment-method',
        'PIX',
        '--amount',
        '1.00',
        '--currency',
        'BRL',
        '--order-no',
        'O1',
        '--document',
        CNPJ,
        '--person-document-number',
        CNPJ,
      ],
      io(),
    );
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.parse(server.requests[0]!.body);
    expect(sent.document).toBe(CNPJ);
    expect(sent.person.document_number).toBe(CNPJ);
  });
});

describe('prototype keys', () => {
  it('--data __proto__.merchant_id=999: exit 2, nothing sent, Object.prototype untouched', async () => {
    const r = await runMain(['--yes', 'call', '/v1/capture', '--data', '__proto__.merchant_id=999'], io());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).merchant_id).toBeUndefined();
    expect(server.requests).toEqual([]);
  });

  it('a call after a refused one still signs merchant_id', async () => {
    await runMain(['--yes', 'call', '/v1/capture', '--data', '__proto__.merchant_id=999'], io());
    await runMain(['--yes', 'call', '/v1/capture', '--data', 'order_no=O1'], io());
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.body).merchant_id).toBe('800001');
  });
});

describe('what payops call prints', () => {
  const DATE = '20261122134707'; // YYYYMMDDhhmmss that passes Luhn

  it('identifiers and timestamps as they are; a card number in free text masked (JSON)', async () => {
    await server.close();
    server = await startRecordingServer(() => ({
      contentType: 'application/json',
      body: JSON.stringify({
        return_status: '1',
        return_message: 'OK',
        orders_list: [{ transaction_id: CNPJ, transaction_date: DATE, note: 'card 4242 4242 4242 4242' }],
      }),
    }));
    const r = await runMain(['--yes', 'call', '/v1/retrievalTrans', '--data', 'order_no=O1'], io());
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.orders_list[0]).toEqual({
      transaction_id: CNPJ,
      transaction_date: DATE,
      note: 'card 424242******4242',
    });
  });

  it('the same in an XML answer, and a gateway echo with escapes shown escaped', async () => {
    await server.close();
    server = await startRecordingServer(() => ({
      contentType: 'application/xml',
      body:
        `<respon><transaction_id>${CNPJ}</transaction_id><card>${CARD}</card>` +
        `<note>card 4242-4242-4242-4242 cvv 737 \u001b]0;pwned\u0007</note></respon>`,
    }));
    const r = await runMain(['--yes', 'call', '/v1/whatever', '--data', 'order_no=O1'], io());
    expect(r.stdout).toContain(`<transaction_id>${CNPJ}</transaction_id>`);
    expect(r.stdout).toContain('<card>424242******4242</card>');
    expect(r.stdout).toContain('<note>card 424242******4242 cvv *** \\x1b]0;pwned\\x07</note>');
    expect(r.stdout + r.stderr).not.toMatch(/\u001b|\u0007/);
  });
});

// Review of issue 13: card fields by other names, card numbers with other separators, JSON text in
// --json, and the gateway's answer under --debug.
describe('card data the first guard missed', () => {
  it('--data card_security=737, dotted and double-spaced card numbers: exit 2, nothing sent', async () => {
    for (const argv of [
      ['call', '/v1/authorise', '--data', 'card_security=737'],
      ['call', '/v1/authorise', '--data', 'cardNumber=x'],
      ['call', '/v1/authorise', '--data', 'note=4242  4242  4242  4242'],
      ['call', '/v1/authorise', '--data', 'note=4242.4242.4242.4242'],
    ]) {
      const r = await runMain(argv, io());
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout + r.stderr).not.toMatch(/4242|737/);
    }
    expect(server.requests).toEqual([]);
  });

  it('--json \'{"security_code":"737"}\' is refused as card data, never read as a file name or echoed', async () => {
    const r = await runMain(['--yes', 'call', '/v1/authorise', '--json', '{"security_code":"737"}'], io());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--json security_code');
    expect(r.stderr).not.toContain('737');
    expect(r.stderr).not.toContain('cannot read');
    expect(server.requests).toEqual([]);
  });

  it('--json with other JSON text: "--json takes a file or -", the text not echoed, nothing sent', async () => {
    const r = await runMain(['--yes', 'call', '/v1/capture', '--json', '{"order_no":"SECRET-ORDER"}'], io());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--json takes a file/);
    expect(r.stderr).not.toContain('SECRET-ORDER');
    expect(server.requests).toEqual([]);
  });

  it('a --json file that cannot be read is named quoted and escaped', async () => {
    const r = await runMain(['--yes', 'call', '/v1/capture', '--json', 'missing\u001b]0;X\u0007.json'], io());
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('cannot read "missing\\x1b]0;X\\x07.json"');
    expect(server.requests).toEqual([]);
  });

  it('--debug shows the escapes in the gateway echo escaped', async () => {
    await server.close();
    server = await startRecordingServer(() => ({
      contentType: 'application/xml',
      body: '<respon><note>\u001b]0;pwned\u0007</note></respon>',
    }));
    const r = await runMain(
      ['--yes', 'call', '/v1/whatever', '--debug', '--data', 'note=\u001b]0;X\u0007'],
      io(),
    );
    expect(r.stderr).toContain('\\x1b]0;pwned\\x07');
    expect(r.stdout + r.stderr).not.toMatch(/\u001b|\u0007/);
  });
});
