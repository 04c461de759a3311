import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { flagFields } from '../../../src/pay/fields.js';
import { buildPaymentRequest, flagValues, generateOrderNo, parseExpiry } from '../../../src/pay/request.js';

function problemsOf(fn: () => unknown): Array<{ field?: string; message: string }> {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err.problems;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('flag generation', () => {
  it('derives every flag from the field name', () => {
    const card = flagFields('card');
    const byPath = new Map(card.map((f) => [f.path, f]));
    expect(byPath.get('shopper_email')?.flag).toBe('--shopper-email');
    expect(byPath.get('shopper_email')?.attribute).toBe('shopperEmail');
    expect(byPath.get('website')?.flag).toBe('--website');
    expect(byPath.has('card')).toBe(false);
    expect(byPath.has('security_code')).toBe(false);
    expect(byPath.has('payment_method')).toBe(false);
    expect(card.length).toBeGreaterThan(55);
    const apm = new Map(flagFields('apm').map((f) => [f.path, f]));
    expect(apm.get('person.document_number')?.flag).toBe('--person-document-number');
    expect(apm.get('payment_method')?.flag).toBe('--payment-method');
    expect(apm.has('open3d')).toBe(false);
    const flags = flagFields('card').map((f) => f.flag);
    expect(new Set(flags).size).toBe(flags.length);
  });

  it('maps commander attributes back to request paths', () => {
    const values = flagValues(flagFields('card'), {
      orderNo: 'O-1',
      checkoutTime: '1700000000',
      shopperEmail: 'a@b.c',
    });
    expect(values).toEqual({ order_no: 'O-1', checkout_time: 1700000000, shopper_email: 'a@b.c' });
  });
});

describe('buildPaymentRequest', () => {
  it('merges file and flags (flags win) and normalises amount and currency', () => {
    const fileText = JSON.stringify({
      order_no: 'FILE-1',
      amount: '10',
      currency: 'usd',
      cart_items: [{ basic_item_data: { name: 'Mug', price: { amount_usd: 12.5, currency: 'USD' } } }],
      subscription: { billing_cycle: 3, contract_amount: '9.99' },
    });
    const { body, generatedOrderNo } = buildPaymentRequest('card', {
      file: 'req.json',
      fileText,
      flags: { amount: '12.5', shopper_email: 'a@example.com' },
    });
    expect(generatedOrderNo).toBe(false);
    expect(body).toMatchObject({
      order_no: 'FILE-1',
      amount: '12.50',
      currency: 'USD',
      shopper_email: 'a@example.com',
    });
    expect((body.cart_items as unknown[]).length).toBe(1);
  });

  it('generates order_no when none is given', () => {
    const { body, generatedOrderNo } = buildPaymentRequest('card', {
      flags: { amount: '1', currency: 'JPY' },
    });
    expect(generatedOrderNo).toBe(true);
    expect(body.order_no).toMatch(/^PO-\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(body.amount).toBe('1');
  });

  it('reports every problem with its field', () => {
    const problems = problemsOf(() =>
      buildPaymentRequest('card', {
        flags: { amount: '1,234.56', currency: 'USD', billing_country: 'USA', birth_date: '1990-01-01' },
      }),
    );
    const fields = problems.map((p) => p.field).sort();
    expect(fields).toEqual(['amount', 'billing_country', 'birth_date']);
  });

  it('requires amount and currency, and payment_method for APM', () => {
    const problems = problemsOf(() => buildPaymentRequest('apm', { flags: {} }));
    expect(problems.map((p) => p.field).sort()).toEqual(['amount', 'currency', 'payment_method']);
  });

  it('refuses card data in a request file without echoing it', () => {
    const fileText = JSON.stringify({
      amount: '1',
      currency: 'USD',
      card: '4111111111111111',
      security_code: '987',
      note: '4111 1111 1111 1111',
    });
    let err: InputError | undefined;
    try {
      buildPaymentRequest('card', { file: 'r.json', fileText, flags: {} });
    } catch (e) {
      err = e as InputError;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err!.problems.map((p) => p.field).sort()).toEqual(['card', 'note', 'security_code']);
    expect(JSON.stringify(err!.problems)).not.toMatch(/4111|987/);
  });

  // Issue 13, item 9: a CNPJ passes Luhn; identifiers are not card numbers. A card number written
  // inside free text is still one.
  it('takes Luhn-valid identifiers in document fields, and refuses a card number inside a note', () => {
    const CNPJ = '41234567000100';
    const fileText = JSON.stringify({
      amount: '1',
      currency: 'BRL',
      payment_method: 'PIX',
      document: CNPJ,
      person: { document_number: CNPJ },
    });
    const { body } = buildPaymentRequest('apm', {
      file: 'r.json',
      fileText,
      flags: { 'person.phone_number': CNPJ },
    });
    expect(body.document).toBe(CNPJ);
    expect(body.person).toEqual({ document_number: CNPJ, phone_number: CNPJ });
    const problems = problemsOf(() =>
      buildPaymentRequest('card', {
        file: 'r.json',
        fileText: JSON.stringify({ amount: '1', currency: 'USD', custom: 'card 4242-4242-4242-4242 thanks' }),
        flags: {},
      }),
    );
    expect(problems).toEqual([expect.objectContaining({ field: 'custom' })]);
    expect(JSON.stringify(problems)).not.toContain('4242');
  });

  // Issue 13, item 11: "__proto__" in a JSON file is an own key after JSON.parse; copying it with
  // assignment would change the prototype of the body (and drop fields from what is signed).
  it('refuses __proto__, constructor and prototype keys in a request file, at any depth', () => {
    const fileText =
      '{"amount":"1","currency":"USD","__proto__":{"merchant_id":"999"},"person":{"constructor":{"prototype":{"x":1}}}}';
    const problems = problemsOf(() => buildPaymentRequest('card', { file: 'r.json', fileText, flags: {} }));
    expect(problems.map((p) => p.field)).toEqual(expect.arrayContaining(['__proto__']));
    expect(({} as Record<string, unknown>).merchant_id).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('never lets card fields into an APM request', () => {
    const fileText = JSON.stringify({
      amount: '1',
      currency: 'USD',
      payment_method: 'PIX',
      expiration_month: '12',
    });
    const problems = problemsOf(() => buildPaymentRequest('apm', { file: 'r.json', fileText, flags: {} }));
    expect(problems).toEqual([expect.objectContaining({ field: 'expiration_month' })]);
  });

  it('checks nested types and unknown fields', () => {
    const fileText = JSON.stringify({
      amount: '1',
      currency: 'USD',
      cart_items: [{ basic_item_data: { price: { amount_usd: '12.5' } } }],
      subscription: { billing_cycle: 1.5 },
      bogus: 'x',
    });
    const problems = problemsOf(() =>
      buildPaymentRequest('checkout', { file: 'r.json', fileText, flags: {} }),
    );
    expect(problems.map((p) => p.field).sort()).toEqual([
      'bogus',
      'cart_items[0].basic_item_data.price.amount_usd',
      'subscription.billing_cycle',
    ]);
  });

  it('refuses malformed JSON with the file name', () => {
    const problems = problemsOf(() =>
      buildPaymentRequest('card', { file: 'r.json', fileText: '{', flags: {} }),
    );
    expect(problems[0]).toMatchObject({ file: 'r.json' });
  });

  it('refuses amounts with more decimals than the currency has', () => {
    const problems = problemsOf(() =>
      buildPaymentRequest('card', { flags: { amount: '10.5', currency: 'JPY' } }),
    );
    expect(problems.map((p) => p.field)).toEqual(['amount']);
  });
});

describe('parseExpiry', () => {
  it('accepts MM/YYYY and MM/YY', () => {
    expect(parseExpiry('12/2030')).toEqual({ month: '12', year: '2030' });
    expect(parseExpiry('1/30')).toEqual({ month: '01', year: '2030' });
  });
  it('refuses other shapes', () => {
    expect(parseExpiry('13/2030')).toBeUndefined();
    expect(parseExpiry('2030-12')).toBeUndefined();
    expect(parseExpiry('12/203')).toBeUndefined();
  });
});

describe('generateOrderNo', () => {
  it('is time-stamped and unique', () => {
    const a = generateOrderNo(new Date('2026-11-22T01:02:03Z'));
    expect(a).toMatch(/^PO-20261122-010203-[0-9a-f]{6}$/);
    expect(generateOrderNo()).not.toBe(generateOrderNo());
  });
});
