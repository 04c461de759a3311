import { describe, expect, it } from 'vitest';
import { reasonEchoes, reasonKey, sameReason } from '../../../src/bulk/reason.js';

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
});
