// The plan document's contract: one canonical text per meaning, and a signature that any one-byte
// change breaks.
import { describe, expect, it } from 'vitest';
import { canonicalJson, planDigest, signText, verifyText } from '../../../src/approval/plan-doc.js';
import { signedPlan, testKey, testPlan } from './fixtures.js';

const ana = testKey('Ana Silva');

describe('canonicalJson', () => {
  it('sorts keys at every level, keeps array order, drops undefined, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 'x' }], c: undefined }, e: null })).toBe(
      '{"a":{"d":[3,{"y":"x","z":1}]},"b":1,"e":null}',
    );
  });

  it('gives the same text for the same meaning in any key order', () => {
    const plan = testPlan(ana);
    const reversed = Object.fromEntries(Object.entries(plan).reverse());
    expect(canonicalJson(reversed)).toBe(canonicalJson(plan));
    expect(planDigest(reversed as typeof plan)).toBe(planDigest(plan));
  });
});

describe('signatures', () => {
  it('verifies the maker signature, and fails on every one-byte change of the signed text', () => {
    const file = signedPlan(ana);
    const text = canonicalJson(file.plan);
    const sig = file.signatures[0]!.signature;
    expect(verifyText(ana.ref, text, sig)).toBe(true);
    // Every position, the byte changed to another printable one.
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const changed = text.slice(0, i) + String.fromCharCode(c === 0x30 ? 0x31 : c ^ 1) + text.slice(i + 1);
      expect(verifyText(ana.ref, changed, sig)).toBe(false);
    }
  });

  it('fails for another key, a malformed signature or key, without throwing', () => {
    const other = testKey('Bo Chen');
    const sig = signText(ana.privateKey, 'x');
    expect(verifyText(other.ref, 'x', sig)).toBe(false);
    expect(verifyText(ana.ref, 'x', 'not-a-signature')).toBe(false);
    expect(verifyText({ ...ana.ref, publicKey: 'AAAA' }, 'x', sig)).toBe(false);
    expect(verifyText({ ...ana.ref, fingerprint: other.ref.fingerprint }, 'x', sig)).toBe(false);
  });
});
