import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reasonEchoes, reasonKey, sameReason } from '../../../src/bulk/plan/reason.js';

describe('reasons by meaning', () => {
  it.each([
    ['goodwill', 'Goodwill'],
    ['goodwill', '  GOODWILL '],
    ['goodwill gesture', 'goodwill\t \u00a0gesture'],
    ['good\u200bwill', 'goodwill'],
    ['Rückerstattung', 'Ru\u0308ckerstattung'],
    ['ｇｏｏｄｗｉｌｌ', 'goodwill'],
    ['Straße', 'STRASSE'],
    [undefined, ''],
  ])('%j and %j are one reason', (a, b) => {
    expect(sameReason(a, b)).toBe(true);
    expect(reasonKey(a)).toBe(reasonKey(b));
  });

  it.each([
    ['goodwill', 'goodwill gesture'],
    ['goodwill', 'good will'],
    ['Rückerstattung', 'RÃ¼ckerstattung'],
    ['damaged', ''],
  ])('%j and %j are two reasons', (a, b) => {
    expect(sameReason(a, b)).toBe(false);
  });

  it('an echo may be cut short or re-cased by the gateway, never longer or different', () => {
    const sent = 'Customer returned the damaged parcel';
    expect(reasonEchoes(sent, 'CUSTOMER RETURNED THE DAMAGED PARCEL')).toBe(true);
    expect(reasonEchoes(sent, sent.slice(0, 20))).toBe(true);
    expect(reasonEchoes(sent, `${sent.slice(0, 20)} `)).toBe(true);
    expect(reasonEchoes(sent, 'Customer returned the damaged parcel twice')).toBe(false);
    expect(reasonEchoes(sent, 'goodwill')).toBe(false);
  });

  it('gives an ASCII reason the key of the full rule (its quick path)', () => {
    // The full rule, as reasonKey's comment states it.
    const full = (r: string) =>
      r
        .normalize('NFKC')
        .replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '')
        .toUpperCase()
        .toLowerCase()
        .normalize('NFKC')
        .replace(/\s+/gu, ' ')
        .trim();
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 16,
          unit: fc.constantFrom('a', 'Z', ' ', '\t', '\n', '\u000b', '\u001f', '\u007f', '-', '9', 'k'),
        }),
        (r) => {
          expect(reasonKey(r), JSON.stringify(r)).toBe(full(r));
        },
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 12, unit: 'binary' }), (r) => {
        expect(reasonKey(r)).toBe(full(r));
      }),
    );
  });
});
