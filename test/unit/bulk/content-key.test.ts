import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContentKey } from '../../../src/bulk/plan/content-key.js';
import { reasonKey } from '../../../src/bulk/plan/reason.js';
import type { BulkRow } from '../../../src/bulk/types.js';

const row = (tx: string, refund: bigint, reason = 'r'): BulkRow => ({
  line: 2,
  transaction_id: tx,
  order_no: `O-${tx}`,
  currency: 'USD',
  amountMinor: 1000n,
  refundMinor: refund,
  refund_reason: reason,
});

function key(rows: BulkRow[]): string {
  const k = new ContentKey();
  for (const r of rows) k.add(r);
  return k.digest();
}

/** The same FNV-1a 64 with BigInt, as its definition reads. */
function fnvReference(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

describe('ContentKey', () => {
  it('is the same for the same rows in any order, and differs for other rows', () => {
    const rows = [row('T1', 100n), row('T2', 200n), row('T3', 300n)];
    expect(key(rows)).toBe(key([rows[2]!, rows[0]!, rows[1]!]));
    expect(key(rows)).not.toBe(key([row('T1', 100n), row('T2', 200n), row('T3', 301n)]));
    expect(key(rows)).not.toBe(key([row('T1', 100n), row('T2', 200n), row('T3', 300n, 'other')]));
    expect(key(rows)).not.toBe(key(rows.slice(0, 2)));
    expect(key([{ ...rows[0]!, currency: 'usd' }])).toBe(key([rows[0]!]));
  });

  it('adds each row as FNV-1a 64 of its text, modulo 2^64 (checked against a BigInt reference)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.bigInt({ min: 0n, max: 10n ** 12n })), {
          maxLength: 20,
        }),
        (items) => {
          const rows = items.map(([tx, minor]) => row(tx, minor));
          let sum = 0n;
          for (const r of rows) {
            const text = `${r.transaction_id}\u0000${r.order_no}\u0000USD\u0000${r.amountMinor}\u0000${r.refundMinor}\u0000${r.refund_reason}\u0000`;
            sum = (sum + fnvReference(text)) & 0xffffffffffffffffn;
          }
          expect(key(rows)).toBe(`${rows.length}-${sum.toString(16).padStart(16, '0')}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hashes the row text field by field exactly as written out, whatever the fields hold', () => {
    // The key is recorded in run headers: it must equal the text definition for every row shape
    // (amounts beyond 2^53, currencies in any case, absent refund fields, non-ASCII text).
    const textOf = (r: BulkRow) =>
      `${r.transaction_id}\u0000${r.order_no}\u0000${r.currency.toUpperCase()}\u0000${r.amountMinor}\u0000${r.refundMinor ?? ''}\u0000${reasonKey(r.refund_reason)}\u0000${r.review_flag ?? ''}`;
    const minor = fc.oneof(
      fc.bigInt({ min: 0n, max: 10n ** 20n }),
      fc.constantFrom(0n, 9007199254740991n, 9007199254740992n, -5n),
    );
    const anyRow = fc.record(
      {
        line: fc.constant(2),
        transaction_id: fc.string({ maxLength: 14 }),
        order_no: fc.string({ maxLength: 14, unit: 'grapheme' }),
        currency: fc.oneof(
          fc.constantFrom('USD', 'usd', 'uSd', 'jpy', 'ß€x', 'ǆa'),
          fc.string({ maxLength: 4 }),
        ),
        amountMinor: minor,
        refundMinor: minor,
        refund_reason: fc.string({ maxLength: 10, unit: 'binary' }),
        review_flag: fc.constantFrom('0', '1'),
      },
      { requiredKeys: ['line', 'transaction_id', 'order_no', 'currency', 'amountMinor'] },
    );
    fc.assert(
      fc.property(fc.array(anyRow, { maxLength: 8 }), (rows) => {
        let sum = 0n;
        for (const r of rows) sum = (sum + fnvReference(textOf(r))) & 0xffffffffffffffffn;
        expect(key(rows)).toBe(`${rows.length}-${sum.toString(16).padStart(16, '0')}`);
      }),
      { numRuns: 500 },
    );
  });

  it('adds a row from its packed bytes as from its fields (amount digits, currency case, no refund)', () => {
    const cases: Array<[BulkRow, string]> = [
      [row('T1', 5n), 'T1|O-T1|USD|10.00|0.05|r|'],
      [{ ...row('T2', 1000n), currency: 'usd', amountMinor: 5n }, 'T2|O-T2|usd|0.05|10.00|r|'],
      [
        { line: 3, transaction_id: 'T3', order_no: 'O3', currency: 'JPY', amountMinor: 1200n },
        'T3|O3|JPY|1200|||',
      ],
      [
        {
          line: 4,
          transaction_id: 'T4',
          order_no: 'O4',
          currency: 'EUR',
          amountMinor: 500n,
          review_flag: '1',
        },
        'T4|O4|EUR|5.00|||1',
      ],
    ];
    for (const [r, packed] of cases) {
      const bytes = Buffer.from(`xx${packed.replace(/\|/g, '\u0000')}\u0000own`, 'latin1');
      const byBytes = new ContentKey();
      expect(byBytes.addPacked(bytes, 2, bytes.length - 4)).toBe(true);
      expect(byBytes.digest(), packed).toBe(key([r]));
    }
    // An amount of zero (no valid row's) and a byte that is not ASCII are left to add(row).
    const zero = Buffer.from('T\u0000O\u0000USD\u00000.00\u0000\u0000\u0000', 'latin1');
    expect(new ContentKey().addPacked(zero, 0, zero.length)).toBe(false);
    const k = new ContentKey();
    expect(k.addPacked(Buffer.from('Tü\u0000O\u0000USD\u00001.00\u0000\u0000\u0000', 'utf8'), 0, 13)).toBe(
      false,
    );
    expect(k.digest()).toBe(new ContentKey().digest());
  });

  it('takes a reason by meaning: re-typed, re-spaced, NFD and full-width reasons are the same rows (issue 23)', () => {
    const rows = (reason: string) => [row('T1', 100n, reason), row('T2', 200n, 'other')];
    const base = key(rows('goodwill gesture'));
    for (const typed of [
      'Goodwill gesture',
      'GOODWILL  GESTURE',
      ' goodwill gesture ',
      'goodwill\tgesture',
      'ｇｏｏｄｗｉｌｌ gesture',
      'good\u200bwill gesture',
    ]) {
      expect(key(rows(typed)), typed).toBe(base);
    }
    expect(key([row('T1', 100n, 'remboursé')])).toBe(key([row('T1', 100n, 'rembourse\u0301')]));
    expect(key(rows('goodwill'))).not.toBe(base);
  });

  it('adds a packed row as add(row) does for any ASCII reason, or leaves it to add(row)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12, unit: fc.constantFrom('a', 'B', ' ', '\t', 'z', 'Q', '1') }),
        (reason) => {
          const r = row('T1', 5n, reason);
          const packed = `T1|O-T1|USD|10.00|0.05|${reason}|`.replace(/\|/g, '\u0000');
          const bytes = Buffer.from(packed, 'latin1');
          const k = new ContentKey();
          if (k.addPacked(bytes, 0, bytes.length)) expect(k.digest(), JSON.stringify(reason)).toBe(key([r]));
          else expect(k.digest()).toBe(new ContentKey().digest());
          // A reason already in key form is always added from its bytes.
          if (reason === reasonKey(reason) && !/[\t]/.test(reason))
            expect(k.digest()).not.toBe(new ContentKey().digest());
        },
      ),
      { numRuns: 1000 },
    );
  });
});
