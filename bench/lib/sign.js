// The reference signature of design.md §1.1, reimplemented in a few lines on purpose: the ceiling
// and the peers must not borrow payops' own (optimised) signer, so a bug or a speed-up there cannot
// move the reference. Checked against the design's test vectors by `selfCheck` before every bench.
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `path=value` pairs of a body (top-level encryption_data dropped), sorted by path, joined by `&`.
 * Emits pairs already in order, object keys sorted level by level, so the ceiling does not pay for
 * a full sort of every path; falls back to the plain definition (`canonicalBySort`) in the one case
 * where level order is not path order (a key with children that is a prefix of a sibling key).
 */
export function canonical(body) {
  const out = [];
  return emit('', body, true, out) ? out.join('&') : canonicalBySort(body);
}

function emit(path, v, top, out) {
  if (v === undefined) return true;
  if (v === null) {
    out.push(`${path}=`);
    return true;
  }
  if (Array.isArray(v)) {
    for (const i of indexOrder(v.length)) if (!emit(`${path}[${i}]`, v[i], false, out)) return false;
    return true;
  }
  if (typeof v !== 'object') {
    out.push(`${path}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    return true;
  }
  const keys = Object.keys(v).sort();
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j];
    if (top && k === 'encryption_data') continue;
    const child = v[k];
    if (typeof child === 'object' && child !== null && keys[j + 1]?.startsWith(k)) return false;
    if (!emit(top ? k : `${path}.${k}`, child, false, out)) return false;
  }
  return true;
}

/** Array indices in the byte order of `i]`: 0, 10, …, 19, 1, 20, …, 2, … */
function indexOrder(n) {
  if (n <= 10) return Array.from({ length: n }, (_, i) => i);
  const order = [];
  const visit = (x) => {
    if (x >= n) return;
    if (x !== 0) for (let d = 0; d < 10; d++) visit(x * 10 + d);
    order.push(x);
  };
  for (let d = 0; d < 10; d++) visit(d);
  return order;
}

/** The definition of design.md §1.1, word for word: flatten everything, sort the paths. */
export function canonicalBySort(body) {
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
  // The ordered emission must equal the definition on the shapes the bench signs (60 orders: indices
  // past 10 and 50) and on a prefix-hazard body.
  const orders = Array.from({ length: 60 }, (_, i) => ({
    transaction_id: `T${i}`,
    order_no: `O${i}`,
    currency: 'USD',
    amount: '1.00',
    refund_amount: '1.00',
    refund_reason: 'r',
  }));
  for (const body of [
    { merchant_id: '1', account_id: '2', refund_orders: orders },
    { a: { x: '1' }, a_b: '2', ab: [{ c: '3' }] },
  ]) {
    if (canonical(body) !== canonicalBySort(body))
      throw new Error('bench canonical: ordered emission != sort');
  }
}
