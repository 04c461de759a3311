// /v1/authorise (card and APM) and /v1/checkout: XML `respon` shapes, test cards (design.md §1.5),
// state machine entries, the issuer page, and the HTML form of the redirect checkout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_AUTO_CAPTURE_ACCOUNT, type SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, parseRespon, signed, signer, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());

let n = 0;
const nextOrderNo = () => `PAY-${Date.now()}-${++n}`;
const nextYear = String(new Date().getUTCFullYear() + 2);

function cardBody(card: string, extra: Json = {}): Json {
  return {
    order_no: nextOrderNo(),
    currency: 'USD',
    amount: '25.00',
    card,
    expiration_month: '12',
    expiration_year: nextYear,
    security_code: '123',
    first_name: 'Ada',
    last_name: 'Lovelace',
    shopper_email: 'ada@example.com',
    website: 'https://shop.example',
    delivery_country: 'GB',
    note: 'gift & <wrap>',
    ...extra,
  };
}

async function pay(card: string, extra: Json = {}) {
  const body = signed(cardBody(card, extra));
  const a = await client.post('/v1/authorise', body);
  return { answer: a, xml: parseRespon(a.text), body };
}

async function statusOf(txn: string): Promise<string> {
  const q = await client.search('/v1/retrievalTrans', { transaction_id: txn });
  return (q.json.orders_list as Array<Record<string, string>>)[0]!.payment_status!;
}

const CARD_RESULT_FIELDS = [
  'merchant_id',
  'account_id',
  'order_no',
  'amount',
  'currency',
  'transaction_id',
  'card',
  'order_status',
  'result_info',
  'contract_name',
  'recurring_id',
  'recurring_deduction_period',
  'recurring_deduction_time',
  'note',
  'token_id',
  'connector',
  'threeds_result',
  'risk_action',
  'risk_score',
  'risk_reasons',
  'encryption_data',
];

describe('direct card payment', () => {
  it('approves 4242… into 2000 with every respon element, masked card, a valid signature', async () => {
    const { answer, xml, body } = await pay('4242424242424242');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/xml/);
    expect(answer.text).not.toContain('4242424242424242');
    expect(answer.text).not.toContain('<security_code>');
    expect(Object.keys(xml)).toEqual(CARD_RESULT_FIELDS);
    expect(xml).toMatchObject({
      merchant_id: '800001',
      account_id: '800001001',
      order_no: body.order_no,
      amount: '25.00',
      currency: 'USD',
      card: '424242******4242',
      order_status: '1',
      result_info: '0000:Approved',
      note: 'gift & <wrap>',
      connector: 'sandbox',
      risk_action: 'ACCEPT',
    });
    expect(xml.risk_reasons).toEqual({ name: expect.any(String), status: 'ACCEPT' });
    // design.md §1.1: a repeating element is signed as a list, even with one element.
    const { risk_reasons: one, ...rest } = xml;
    expect(signer.verify({ ...rest, risk_reasons: [one] }, xml.encryption_data as string)).toBe(true);
    expect(xml.transaction_id).toMatch(/^T\d{10}$/);
    expect(xml.risk_score).toMatch(/^\d+$/);
    // …and not as an object (`risk_reasons.name`).
    expect(signer.verify(xml, xml.encryption_data as string)).toBe(false);
    expect(await statusOf(xml.transaction_id as string)).toBe('2000');
  });

  it.each([
    ['4000000000000002', '0', /^E3001:declined/, '6000'],
    ['4000000000009995', '0', /^E3002:insufficient funds/, '6000'],
    ['4000000000003220', '2', /^E3003:3-D Secure required/, '1000'],
    ['4000000000009235', '2', /^0000:/, '2100'],
  ])('test card %s → order_status %s, %s, payment_status %s', async (card, orderStatus, info, status) => {
    const { xml } = await pay(card);
    expect(xml.order_status).toBe(orderStatus);
    expect(xml.result_info).toMatch(info);
    expect(await statusOf(xml.transaction_id as string)).toBe(status);
    if (status === '2100') expect(xml.risk_action).toBe('REVIEW');
    if (status === '1000') expect(xml.threeds_result).toBe('challenge required');
  });

  it('E3004 for a past expiry, E3005 for a non-Luhn number; no order is created', async () => {
    const expired = await pay('4242424242424242', { expiration_year: '2020' });
    expect(expired.xml.order_status).toBe('0');
    expect(expired.xml.result_info).toMatch(/^E3004:expired card/);
    expect(expired.xml.transaction_id).toBe('');
    const invalid = await pay('4242424242424241');
    expect(invalid.xml.result_info).toMatch(/^E3005:invalid card number/);
    expect(invalid.xml.card).toBe('424242******4241');
    const q = await client.search('/v1/retrievalTrans', { order_no: expired.body.order_no as string });
    expect((q.json.orders_list as Array<Record<string, string>>)[0]!.query_result).toBe('0');
  });

  it('E2005 for a duplicate order_no', async () => {
    const first = await pay('4242424242424242');
    const again = await pay('4242424242424242', { order_no: first.body.order_no });
    expect(again.xml.order_status).toBe('0');
    expect(again.xml.result_info).toMatch(/^E2005:duplicate order_no/);
  });

  it.each([
    [{ amount: '25.001' }, 'amount'],
    [{ amount: 25 }, 'amount'],
    [{ currency: 'DOLLARS' }, 'currency'],
    [{ security_code: undefined }, 'security_code'],
    [{ expiration_month: '13' }, 'expiration_month'],
    [{ billing_country: 'USA' }, 'billing_country'],
    [{ birth_date: '1990-01-31' }, 'birth_date'],
    [{ checkout_time: '1700000000' }, 'checkout_time'],
    [
      { cart_items: [{ basic_item_data: { price: { currency: 'usd' } } }] },
      'cart_items[0].basic_item_data.price.currency',
    ],
    [{ order_no: undefined }, 'order_no'],
  ])('E1005 names the field for %j', async (change, field) => {
    const { xml } = await pay('4242424242424242', change);
    expect(xml.order_status).toBe('0');
    expect(xml.result_info).toMatch(
      new RegExp(`^E1005:malformed request: ${field.replace(/[[\].]/g, '\\$&')} `),
    );
  });

  it('accepts well-formed optional fields (birth_date NN-NN-YYYY, cart_items, subscription)', async () => {
    const { xml } = await pay('4242424242424242', {
      birth_date: '31-01-1990',
      checkout_time: 1700000000,
      cart_items: [{ basic_item_data: { name: 'Mug', price: { amount_usd: 12.5, currency: 'USD' } } }],
      subscription: { contract_name: 'Monthly', interval: 'day', interval_count: '30', billing_cycle: 12 },
      open3d: 'do3DS',
    });
    expect(xml.result_info).toBe('0000:Approved');
    expect(xml.contract_name).toBe('Monthly');
    expect(xml.recurring_id).toMatch(/^RC\d+$/);
    expect(xml.threeds_result).toBe('authenticated');
  });

  it('E1001 for a bad signature, E1002 for an unknown account (XML result)', async () => {
    const body = signed(cardBody('4242424242424242'));
    const bad = await client.post('/v1/authorise', { ...body, amount: '26.00' });
    expect(parseRespon(bad.text).result_info).toBe('E1001:invalid signature');
    const unknown = { ...cardBody('4242424242424242'), merchant_id: '800001', account_id: '1' };
    const u = await client.post('/v1/authorise', { ...unknown, encryption_data: signer.sign(unknown) });
    expect(parseRespon(u.text).result_info).toMatch(/^E1002:/);
  });

  it('auto-capture account 800001002 approves straight into 3000', async () => {
    const body = {
      ...cardBody('4242424242424242'),
      merchant_id: '800001',
      account_id: SANDBOX_AUTO_CAPTURE_ACCOUNT,
    };
    const a = await client.post('/v1/authorise', { ...body, encryption_data: signer.sign(body) });
    const xml = parseRespon(a.text);
    expect(xml.order_status).toBe('1');
    const q = {
      merchant_id: '800001',
      account_id: SANDBOX_AUTO_CAPTURE_ACCOUNT,
      transaction_id: xml.transaction_id as string,
    };
    const r = await client.form('/v1/retrievalTrans', { ...q, encryption_data: signer.sign(q) });
    expect((r.json.orders_list as Array<Record<string, string>>)[0]!.payment_status).toBe('3000');
  });

  it('card fields together with payment_method → 400 {code: E1005}', async () => {
    const a = await client.post(
      '/v1/authorise',
      signed({ ...cardBody('4242424242424242'), payment_method: 'PIX' }),
    );
    expect(a.status).toBe(400);
    expect(a.json.code).toBe('E1005');
    expect(typeof a.json.message).toBe('string');
  });
});

describe('APM payment', () => {
  function apmBody(extra: Json = {}): Json {
    return {
      order_no: nextOrderNo(),
      currency: 'BRL',
      amount: '150.00',
      payment_method: 'PIX',
      return_url: 'https://shop.example/return',
      person: { document_number: '123', address_country: 'BR', phone_country_code: 'BR' },
      ...extra,
    };
  }

  it('answers XML with issuer_url; the issuer page completes the order 1000 → 3000', async () => {
    const body = signed(apmBody());
    const a = await client.post('/v1/authorise', body);
    expect(a.status).toBe(200);
    const xml = parseRespon(a.text);
    expect(Object.keys(xml)).toEqual([
      'merchant_id',
      'account_id',
      'order_no',
      'amount',
      'currency',
      'issuer_url',
    ]);
    expect(xml).toMatchObject({ order_no: body.order_no, amount: '150.00', currency: 'BRL' });
    const issuer = xml.issuer_url as string;
    expect(issuer.startsWith(`${sandbox.url}/_sandbox/issuer/T`)).toBe(true);
    const txn = issuer.split('/').pop()!;
    expect(await statusOf(txn)).toBe('1000');
    const page = await fetch(issuer);
    expect(await page.text()).toContain('/complete');
    const done = await fetch(`${issuer}/complete`, { method: 'POST' });
    expect(done.status).toBe(200);
    expect(await statusOf(txn)).toBe('3000');
    const again = await fetch(`${issuer}/complete`, { method: 'POST' });
    expect(again.status).toBe(409);
  });

  it('400 for invalid input, 404 for an unknown account', async () => {
    const bad = await client.post(
      '/v1/authorise',
      signed(apmBody({ person: { address_country: 'Brazil' } })),
    );
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ code: 'E1005', message: expect.stringContaining('person.address_country') });
    const body = { ...apmBody(), merchant_id: '800001', account_id: '42' };
    const unknown = await client.post('/v1/authorise', { ...body, encryption_data: signer.sign(body) });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('E1002');
    const sig = await client.post('/v1/authorise', { ...signed(apmBody()), amount: '1.00' });
    expect(sig.status).toBe(400);
    expect(sig.json.code).toBe('E1001');
  });
});

describe('redirect checkout', () => {
  it('answers an auto-submitting form with request, camelCase, legacy and gateway-side inputs, escaped', async () => {
    const body = signed({
      order_no: nextOrderNo(),
      currency: 'EUR',
      amount: '42.00',
      first_name: 'Zoë',
      last_name: '"><script>alert(1)</script>',
      notify_url: 'https://shop.example/notify?a=1&b=2',
      open3d: 'do3DS',
      items: 'Mug#,#M1#,#21.00#,#2',
      shopper_email: 'z@example.com',
      cart_items: [{ basic_item_data: { name: 'Mug' } }],
    });
    const a = await client.post('/v1/checkout', body);
    expect(a.status).toBe(200);
    expect(a.contentType).toMatch(/text\/html/);
    expect(a.text).toContain('onload="document.forms[0].submit()"');
    expect(a.text).toMatch(new RegExp(`<form method="POST" action="${sandbox.url}/v1/checkout">`));
    expect(a.text).not.toContain('<script>alert');
    const inputs = new Map<string, string>();
    for (const m of a.text.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
      inputs.set(m[1]!, m[2]!);
    for (const name of [
      'order_no',
      'orderNo',
      'orderAmount',
      'orderCurrency',
      'merNo',
      'firstName',
      'lastName',
      'signInfo',
      'notifyUrl',
      'returnUrl',
      'cancelUrl',
      'isOpen3D',
      'goodsInfo',
      'allParams',
      'shopperEmail',
      'gbc_id',
      'connector_code',
      'account_name',
      'pm_id',
      'apm_type',
      'descriptor',
      'orderprefix',
      'rrtimezone',
      'ordernumlength',
      'default_lang',
      'source_request_ip',
      'source_notify_url',
      'to_pass_page',
    ]) {
      expect(inputs.has(name), name).toBe(true);
    }
    expect(inputs.get('orderNo')).toBe(body.order_no);
    expect(inputs.get('orderAmount')).toBe('42.00');
    expect(inputs.get('merNo')).toBe('800001');
    expect(inputs.get('signInfo')).toBe(body.encryption_data);
    expect(inputs.get('notifyUrl')).toBe('https://shop.example/notify?a=1&amp;b=2');
    expect(inputs.get('lastName')).toBe('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(inputs.get('isOpen3D')).toBe('do3DS');
    expect(inputs.get('goodsInfo')).toBe('Mug#,#M1#,#21.00#,#2');
    const txn = inputs.get('transaction_id')!;
    expect(await statusOf(txn)).toBe('1000');

    // The form posts back form-encoded: the hosted page links to the issuer page.
    const form = new URLSearchParams();
    for (const [k, v] of inputs) form.set(k, v.replace(/&amp;/g, '&'));
    const hosted = await client.raw('/v1/checkout', {
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(hosted.status).toBe(200);
    expect(hosted.text).toContain(`/_sandbox/issuer/${txn}/complete`);
  });

  it('rejects card fields and invalid input with 400 JSON; duplicate order_no E2005', async () => {
    const card = await client.post(
      '/v1/checkout',
      signed({ order_no: nextOrderNo(), currency: 'EUR', amount: '1.00', card: '4242424242424242' }),
    );
    expect(card.status).toBe(400);
    expect(card.json.code).toBe('E1005');
    const missing = await client.post('/v1/checkout', signed({ order_no: nextOrderNo(), currency: 'EUR' }));
    expect(missing.json).toEqual({ code: 'E1005', message: 'E1005:malformed request: amount is required' });
    const orderNo = nextOrderNo();
    await client.post('/v1/checkout', signed({ order_no: orderNo, currency: 'EUR', amount: '1.00' }));
    const dup = await client.post(
      '/v1/checkout',
      signed({ order_no: orderNo, currency: 'EUR', amount: '1.00' }),
    );
    expect(dup.json.code).toBe('E2005');
  });
});
