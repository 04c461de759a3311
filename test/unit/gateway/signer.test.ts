import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical, createSigner, signaturesEqual } from '../../../src/gateway/signer.js';

const KEY = 'sandbox-sign-key';

// The three test vectors of design.md §1.1, verbatim.
const vectors = [
  {
    body: {
      merchant_id: '800001',
      account_id: '800001001',
      capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '10.00' }],
    },
    canonical:
      'account_id=800001001&capture_orders[0].amount=10.00&capture_orders[0].currency=USD&capture_orders[0].order_no=O1&capture_orders[0].transaction_id=T1&merchant_id=800001',
    signature: '650f414b96d3ac145071f9be90f689b41e26bad1b185e023604bff9846868e86',
  },
  {
    body: { merchant_id: '800001', account_id: '800001001', order_no: 'ORD-1,ORD-2' },
    canonical: 'account_id=800001001&merchant_id=800001&order_no=ORD-1,ORD-2',
    signature: 'f2cd329021058f5b56f133801b4589cafb9ebb67f3fa207e921d30018ddda20a',
  },
  {
    body: {
      merchant_id: '800001',
      account_id: '800001001',
      amount: '12.50',
      checkout_time: 1700000000,
      note: '',
      cart_items: [{ basic_item_data: { name: 'Mug', price: { amount_usd: 12.5, currency: 'USD' } } }],
    },
    canonical:
      'account_id=800001001&amount=12.50&cart_items[0].basic_item_data.name=Mug&cart_items[0].basic_item_data.price.amount_usd=12.5&cart_items[0].basic_item_data.price.currency=USD&checkout_time=1700000000&merchant_id=800001&note=',
    signature: '4f30b2949023db11218a2ae0febcd531f7a4f1374a4744a947a264f80fe6d26c',
  },
];

describe('signer: design.md §1.1 test vectors', () => {
  const signer = createSigner(KEY);
  for (const [i, v] of vectors.entries()) {
    it(`vector ${i + 1}: canonical string`, () => {
      expect(canonical(v.body)).toBe(v.canonical);
    });
    it(`vector ${i + 1}: signature`, () => {
      expect(signer.sign(v.body)).toBe(v.signature);
    });
    it(`vector ${i + 1}: verifies, ignoring encryption_data and hex case`, () => {
      expect(signer.verify({ ...v.body, encryption_data: 'ignored' }, v.signature.toUpperCase())).toBe(true);
      expect(signer.verify(v.body, v.signature.replace(/.$/, '0'))).toBe(v.signature.endsWith('0'));
    });
  }

  it('keeps null as empty and drops empty objects and arrays', () => {
    expect(canonical({ a: null, b: {}, c: [], d: '' })).toBe('a=&d=');
  });

  it('rejects a signature from another key', () => {
    expect(createSigner('other').verify(vectors[0]!.body, vectors[0]!.signature)).toBe(false);
  });

  it('compares signatures of different length as unequal', () => {
    expect(signaturesEqual('abcd', 'abc')).toBe(false);
    expect(signaturesEqual('ABCD', 'abcd')).toBe(true);
  });

  it('never shows the key when inspected or serialised', () => {
    const s = createSigner('super-secret-key');
    expect(JSON.stringify({ s })).not.toContain('super-secret-key');
  });
});

// Bodies shaped like the gateway's: nested objects and arrays of string/number/bool leaves.
const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
const key = fc.stringMatching(/^[a-z_]{1,8}$/);
const body = fc.dictionary(
  key,
  fc.oneof(
    leaf,
    fc.dictionary(key, leaf, { minKeys: 1, maxKeys: 4 }),
    fc.array(fc.dictionary(key, leaf, { minKeys: 1, maxKeys: 3 }), { minLength: 1, maxLength: 3 }),
  ),
  { minKeys: 1, maxKeys: 6 },
);

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, seed));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!);
    rotated.reverse();
    return Object.fromEntries(rotated.map(([k, v]) => [k, shuffleKeys(v, seed)]));
  }
  return value;
}

describe('signer: properties', () => {
  const signer = createSigner(KEY);

  it('does not depend on key order', () => {
    fc.assert(
      fc.property(body, fc.nat(10), (b, seed) => {
        expect(signer.sign(shuffleKeys(b, seed) as Record<string, unknown>)).toBe(signer.sign(b));
      }),
    );
  });

  it('changes when any string leaf changes', () => {
    fc.assert(
      fc.property(body, fc.string({ minLength: 1 }), (b, suffix) => {
        const leaves: Array<{ holder: Record<string, unknown>; key: string }> = [];
        const collect = (o: Record<string, unknown>) => {
          for (const [k, v] of Object.entries(o)) {
            if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
              leaves.push({ holder: o, key: k });
            } else if (Array.isArray(v)) for (const x of v) collect(x as Record<string, unknown>);
            else if (v && typeof v === 'object') collect(v as Record<string, unknown>);
          }
        };
        const copy = structuredClone(b);
        collect(copy);
        fc.pre(leaves.length > 0);
        const before = signer.sign(copy);
        const target = leaves[suffix.length % leaves.length]!;
        target.holder[target.key] = `${String(target.holder[target.key])}${suffix}`;
        expect(signer.sign(copy)).not.toBe(before);
      }),
    );
  });
});
