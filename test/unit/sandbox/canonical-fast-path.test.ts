// The sandbox signs every response and verifies every request, so it relies on the fast path of
// `canonical` (src/gateway/signer.ts) being exactly the reference definition.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical, canonicalBySort, compareUtf8 } from '../../../src/gateway/signer.js';

const key = fc.string({
  unit: fc.constantFrom('a', 'b', '_', '.', '[', ']', 'é', '\uffff', '😀'),
  maxLength: 4,
});
const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('tree'), { maxLength: 13 }),
    fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
  ),
}));

describe('canonical fast path', () => {
  it('equals the sort-everything definition on random bodies', () => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 6 }), (body) => {
        expect(canonical(body)).toBe(canonicalBySort(body));
      }),
      { numRuns: 2000 },
    );
  });

  it('orders array indices as decimal strings', () => {
    for (const n of [9, 10, 11, 12, 50, 101, 250]) {
      const body = { a: Array.from({ length: n }, (_, i) => String(i)) };
      expect(canonical(body)).toBe(canonicalBySort(body));
    }
    expect(canonical({ a: Array.from({ length: 12 }, (_, i) => i) })).toMatch(
      /^a\[0\]=0&a\[10\]=10&a\[11\]=11&a\[1\]=1&a\[2\]=2/,
    );
  });

  it('falls back when a key holding an object prefixes a sibling key', () => {
    const body = { a: { x: '1' }, a_b: '2', 'a!': '3' };
    expect(canonical(body)).toBe('a!=3&a.x=1&a_b=2');
  });

  it('compares like UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
    );
  });
});
