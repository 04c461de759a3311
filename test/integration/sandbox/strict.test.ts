// The strict sandbox: what a real gateway refuses, it refuses — a field of another payment shape
// (the spec's applicability column), an unknown field at any depth, a null, a wrong content type.
// Each refusal names the field by its path (E1005). Requests built by hand from gateway-api.md.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, parseRespon, signed, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());

let n = 0;
const base = (extra: Json = {}): Json => ({
  order_no: `STRICT-${Date.now()}-${++n}`,
  currency: 'EUR',
  amount: '10.00',
  ...extra,
});
const card = (extra: Json = {}): Json =>
  base({
    card: '4242424242424242',
    expiration_month: '12',
    expiration_year: '2035',
    security_code: '123',
    ...extra,
  });
const apm = (extra: Json = {}): Json => base({ payment_method: 'PIX', ...extra });

async function apmRefusal(extra: Json): Promise<string> {
  const a = await client.post('/v1/authorise', signed(apm(extra)));
  expect(a.status).toBe(400);
  expect(a.json.code).toBe('E1005');
  return String(a.json.message);
}

async function checkoutRefusal(extra: Json): Promise<string> {
  const a = await client.post('/v1/checkout', signed(base(extra)));
  expect(a.status).toBe(400);
  expect(a.json.code).toBe('E1005');
  return String(a.json.message);
}

async function cardRefusal(extra: Json): Promise<string> {
  const a = await client.post('/v1/authorise', signed(card(extra)));
  expect(a.status).toBe(200);
  const info = String(parseRespon(a.text).result_info);
  expect(info).toMatch(/^E1005:/);
  return info;
}

describe('one schema per payment shape', () => {
  it('an APM payment refuses the card-and-checkout-only fields, naming each', async () => {
    expect(await apmRefusal({ cart_items: [{ basic_item_data: { name: 'Mug' } }] })).toMatch(
      /cart_items is not a field of an APM payment \(card and checkout only\)/,
    );
    expect(await apmRefusal({ subscription: { contract_name: 'c' } })).toMatch(/subscription is not a field/);
    expect(await apmRefusal({ open3d: 'do3DS' })).toMatch(/open3d is not a field of an APM payment/);
    expect(await apmRefusal({ account_owner: [{ first_name: 'A' }] })).toMatch(
      /account_owner is not a field/,
    );
    expect(await apmRefusal({ accept: 'text/html' })).toMatch(/accept .*direct card payment only/);
  });

  it('a checkout refuses the card-only and APM-only fields, naming each', async () => {
    expect(await checkoutRefusal({ accept: 'text/html' })).toMatch(
      /accept is not a field of a checkout \(redirect\) payment \(direct card payment only\)/,
    );
    expect(await checkoutRefusal({ payment_method: 'PIX' })).toMatch(/payment_method .*\(APM only\)/);
    expect(await checkoutRefusal({ person: { email: 'a@example.com' } })).toMatch(/person .*\(APM only\)/);
    expect(await checkoutRefusal({ return_url: 'https://shop.example/r' })).toMatch(/return_url .*APM only/);
  });

  it('a card payment refuses the APM-only fields in its result_info', async () => {
    expect(await cardRefusal({ person: { email: 'a@example.com' } })).toMatch(
      /person is not a field of a direct card payment \(APM only\)/,
    );
    expect(await cardRefusal({ bank_code: '001' })).toMatch(/bank_code is not a field/);
  });

  it('unknown fields are refused at any depth, by path', async () => {
    expect(await apmRefusal({ colour: 'red' })).toMatch(/colour is not a field of this request/);
    expect(await apmRefusal({ person: { email: 'a@example.com', shoe_size: '9' } })).toMatch(
      /person\.shoe_size is not a field/,
    );
    expect(
      await apmRefusal({
        person: { documents: { labels: { bank_account: { bank: { code: '1', x: '2' } } } } },
      }),
    ).toMatch(/person\.documents\.labels\.bank_account\.bank\.x is not a field/);
    expect(
      await cardRefusal({
        cart_items: [{ basic_item_data: { name: 'Mug', price: { amount_usd: 1, tax: 2 } } }],
      }),
    ).toMatch(/cart_items\[0\]\.basic_item_data\.price\.tax is not a field/);
    expect(await checkoutRefusal({ subscription: { contract_name: 'c', discount: '1' } })).toMatch(
      /subscription\.discount is not a field/,
    );
  });

  it('null is refused (a field is sent with its type or left out), and types are checked by path', async () => {
    expect(await apmRefusal({ note: null })).toMatch(/note must not be null/);
    expect(await apmRefusal({ person: { birth_date: null } })).toMatch(/person\.birth_date must not be null/);
    expect(await apmRefusal({ person: { birth_date: 19850412 } })).toMatch(
      /person\.birth_date must be a string/,
    );
    expect(await cardRefusal({ checkout_time: '12' })).toMatch(/checkout_time must be an integer/);
  });

  it('each shape takes its own fields', async () => {
    const a = await client.post(
      '/v1/authorise',
      signed(
        apm({ bank_code: '001', return_url: 'https://shop.example/r', person: { email: 'a@example.com' } }),
      ),
    );
    expect(a.status, a.text).toBe(200);
    expect(parseRespon(a.text).issuer_url).toMatch(/_sandbox\/issuer\//);
    const c = await client.post(
      '/v1/checkout',
      signed(
        base({
          open3d: 'do3DS',
          cart_items: [{ basic_item_data: { name: 'Mug' } }],
          subscription: { interval: 'day' },
        }),
      ),
    );
    expect(c.status, c.text).toBe(200);
    const d = await client.post('/v1/authorise', signed(card({ accept: 'text/html', token_flag: 'NO' })));
    expect(parseRespon(d.text).result_info).toBe('0000:Approved');
  });
});

describe('other requests are strict too', () => {
  it('batch: an unknown envelope field refuses the request; an unknown element field fails that order', async () => {
    const [o] = await client.createOrders(2, '2000');
    const key = {
      transaction_id: o!.transaction_id,
      order_no: o!.order_no,
      currency: o!.currency,
      amount: o!.amount,
    };
    const env = await client.post('/v1/capture', signed({ capture_orders: [key], batch_note: 'x' }));
    expect(env.json.return_status).toBe('0');
    expect(env.json.return_message).toMatch(/^E1005:.*batch_note is not a field/);
    const el = await client.batch('/v1/capture', 'capture_orders', [{ ...key, note: 'x' }]);
    const results = el.json.capture_orders as Json[];
    expect(results[0]!.capture_status).toBe('0');
    expect(results[0]!.error_message).toMatch(/^E1005:.*capture_orders\[0\]\.note is not a field/);
  });

  it('search forms refuse a field the selection does not have', async () => {
    const a = await client.search('/v1/retrievalRefund', { status: '1' });
    expect(a.json.return_status).toBe('0');
    expect(a.json.return_message).toMatch(/^E1005:.*status is not a field/);
  });

  it('payouts refuse unknown fields at any depth, by path', async () => {
    const body = (extra: Json) => ({
      request_id: randomUUID(),
      beneficiary: {
        entity_type: 'COMPANY',
        bank_details: { account_name: 'A', iban: 'DE89370400440532013000', ...extra },
      },
      payer: { entity_type: 'COMPANY', address: { country_code: 'US' } },
      payment_amount: '10.00',
      payment_currency: 'EUR',
      payment_method: 'SWIFT',
    });
    const deep = await client.post('/v1/payout', signed(body({ sort_code: '1' })));
    expect(JSON.stringify(deep.json)).toMatch(/beneficiary\.bank_details\.sort_code is not a field/);
    const top = await client.post('/v1/payout', signed({ ...body({}), priority: 'high' }));
    expect(JSON.stringify(top.json)).toMatch(/E1005.*priority is not a field/);
    const payer = await client.post(
      '/v1/payout',
      signed({ ...body({}), payer: { entity_type: 'X', age: '3' } }),
    );
    expect(JSON.stringify(payer.json)).toMatch(/payer\.age is not a field/);
  });
});

describe('content types', () => {
  const json = JSON.stringify(signed(apm()));

  it('a JSON endpoint refuses another content type with 415', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
      const a = await client.raw('/v1/authorise', { body: json, headers: { 'content-type': type } });
      expect(a.status, type).toBe(415);
      expect(a.json.code).toBe('E1005');
      expect(a.json.message).toMatch(/\/v1\/authorise takes application\/json bodies/);
    }
  });

  it('a form endpoint refuses JSON: 415 under the JSON type, 400 as a JSON body under the form type', async () => {
    const fields = signed({ order_no: 'X' });
    const typed = await client.raw('/v1/retrievalRefund', {
      body: JSON.stringify(fields),
      headers: { 'content-type': 'application/json' },
    });
    expect(typed.status).toBe(415);
    expect(typed.json.message).toMatch(/takes application\/x-www-form-urlencoded/);
    const body = await client.raw('/v1/retrievalTrans', {
      body: JSON.stringify(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(body.status).toBe(400);
    expect(body.json.message).toMatch(/takes form-encoded fields, not JSON/);
  });

  it('checkout refuses a form-encoded payment request; only its own page form is served', async () => {
    const form = new URLSearchParams(signed(base()) as Record<string, string>).toString();
    const a = await client.raw('/v1/checkout', {
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(a.status).toBe(400);
    expect(a.json.code).toBe('E1005');
    // The same form naming an order it made (the browser's post of the page) is the hosted page.
    const made = await client.post('/v1/checkout', signed(base()));
    const txn = /name="transaction_id" value="([^"]+)"/.exec(made.text)![1]!;
    const page = await client.raw('/v1/checkout', {
      body: new URLSearchParams({ transaction_id: txn }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`/_sandbox/issuer/${txn}/complete`);
  });
});
