// The reference signature of design.md §1.1, reimplemented in a few lines on purpose: the ceiling
// and the peers must not borrow payops' own (optimised) signer, so a bug or a speed-up there cannot
// move the reference. Checked against the design's test vectors by `selfCheck` before every bench.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** `path=value` pairs of a body (top-level encryption_data dropped), sorted by path, joined by `&`. */
export function canonical(body) {
  const pairs = [];
  const walk = (path, v) => {
    if (v === undefined) return;
    if (v === null) pairs.push([path, '']);
    else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(`${path}[${i}]`, item);
    } else if (typeof v === 'object') {
      for (const [k, c] of Object.entries(v)) walk(`${path}.${k}`, c);
    } else pairs.push([path, typeof v === 'string' ? v : JSON.stringify(v)]);
  };
  for (const [k, v] of Object.entries(body)) if (k !== 'encryption_data') walk(k, v);
  // Byte order of UTF-8 equals UTF-16 code-unit order for the ASCII paths of the gateway's fields.
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return pairs.map(([p, v]) => `${p}=${v}`).join('&');
}

export function sign(body, key) {
  return createHmac('sha256', key).update(canonical(body)).digest('hex');
}

export function verify(body, key) {
  const got = Buffer.from(String(body.encryption_data ?? '').toLowerCase(), 'utf8');
  const want = Buffer.from(sign(body, key), 'utf8');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The three vectors of design.md §1.1; throws when the reference drifts from the design. */
export function selfCheck() {
  const key = 'sandbox-sign-key';
  const vectors = [
    [
      {
        merchant_id: '800001',
        account_id: '800001001',
        capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '10.00' }],
      },
      '650f414b96d3ac145071f9be90f689b41e26bad1b185e023604bff9846868e86',
    ],
    [
      { merchant_id: '800001', account_id: '800001001', order_no: 'ORD-1,ORD-2' },
      'f2cd329021058f5b56f133801b4589cafb9ebb67f3fa207e921d30018ddda20a',
    ],
    [
      {
        merchant_id: '800001',
        account_id: '800001001',
        amount: '12.50',
        checkout_time: 1700000000,
        note: '',
        cart_items: [{ basic_item_data: { name: 'Mug', price: { amount_usd: 12.5, currency: 'USD' } } }],
      },
      '4f30b2949023db11218a2ae0febcd531f7a4f1374a4744a947a264f80fe6d26c',
    ],
  ];
  for (const [body, want] of vectors) {
    const got = sign(body, key);
    if (got !== want) throw new Error(`bench signer drifted from design.md §1.1: ${got} != ${want}`);
  }
}
