import { describe, expect, it } from 'vitest';
import { columnsOf, flatten } from '../../../src/query/flatten.js';

describe('flatten', () => {
  it('writes nested objects with dots and arrays with indexes', () => {
    expect(
      flatten({
        a: '1',
        d: { city: 'X', n: null },
        f: [
          { k: 'v', s: 'ACCEPT' },
          { k: 'w', s: 'REJECT' },
        ],
        b: true,
        e: {},
        z: [],
      }),
    ).toEqual({
      a: '1',
      'd.city': 'X',
      'd.n': '',
      'f[0].k': 'v',
      'f[0].s': 'ACCEPT',
      'f[1].k': 'w',
      'f[1].s': 'REJECT',
      b: 'true',
    });
  });
});

describe('columnsOf', () => {
  it('keeps fields in first-seen order and puts later array elements with their field', () => {
    const rows = [
      flatten({ found: true, a: '1', f: [{ k: 'v' }], s: { x: '1' } }),
      flatten({ found: true, a: '2', f: [{ k: 'v' }, { k: 'w' }], s: { x: '2' }, extra: 'e' }),
      flatten({ found: false, a: '3' }),
    ];
    expect(columnsOf(rows)).toEqual(['found', 'a', 'f[0].k', 'f[1].k', 's.x', 'extra']);
  });

  it('orders indexes numerically', () => {
    const many = flatten({ f: Array.from({ length: 11 }, (_, i) => String(i)) });
    const cols = columnsOf([many]);
    expect(cols.slice(-2)).toEqual(['f[9]', 'f[10]']);
  });
});
