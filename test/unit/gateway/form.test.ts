// The form encoder of the look-ups writes exactly what URLSearchParams writes (the gateway's form
// endpoints are signed over the values, so a different escape would be a different request).
import { describe, expect, it } from 'vitest';
import { encodeForm, formComponent } from '../../../src/gateway/client.js';

const reference = (value: string) => new URLSearchParams([['k', value]]).toString().slice(2);

describe('form encoding', () => {
  it('escapes every UTF-16 code unit as URLSearchParams does, lone surrogates included', () => {
    const differ: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const s = `a${String.fromCharCode(c)}b`;
      if (formComponent(s) !== reference(s)) differ.push(c.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it('escapes mixed text as URLSearchParams does', () => {
    const samples = [
      '',
      ' ',
      'T1000000001,T1000000002,T1000000003',
      "a+b c&d=e?f#g/h%i!j'k(l)m*n~o-p_q.r",
      'räson ✓ 😀 \u{1F600}\uD83D',
      '\uDE00x\uD83D\uDE00\uD83D',
      '\r\n\t\u0000',
    ];
    for (const s of samples) expect(formComponent(s), JSON.stringify(s)).toBe(reference(s));
  });

  it('writes a body as URLSearchParams would, skipping undefined and writing null as empty', () => {
    const body = {
      transaction_id: 'T1,T2',
      merchant_id: '800001',
      note: null,
      gone: undefined,
      n: 5,
      'a b': 'x y',
      encryption_data: 'ab12',
    };
    const params = new URLSearchParams();
    params.append('transaction_id', 'T1,T2');
    params.append('merchant_id', '800001');
    params.append('note', '');
    params.append('n', '5');
    params.append('a b', 'x y');
    params.append('encryption_data', 'ab12');
    expect(encodeForm(body)).toBe(params.toString());
    expect(encodeForm({})).toBe('');
  });
});
