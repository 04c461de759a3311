import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTable } from '../../../src/output/table.js';
import { cutToWidth, displayWidth } from '../../../src/output/width.js';
import { containsCardNumber } from '../../../src/redact.js';

const rows = [
  { transaction_id: 'T1', amount: '10.00', outcome: 'succeeded' },
  { transaction_id: 'T2', amount: '5.50', outcome: 'failed' },
];

describe('renderTable', () => {
  it('renders header and rows without colour codes', () => {
    const text = renderTable(['transaction_id', 'amount', 'outcome'], rows, { color: false });
    expect(text).not.toMatch(/\u001b/);
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toMatch(/│ transaction_id │ amount │ outcome\s+│/);
    expect(lines[3]).toMatch(/│ T1\s+│ 10.00\s+│ succeeded │/);
    expect(text).toContain('T2');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('rules off the header but not each body row', () => {
    const many = Array.from({ length: 5 }, (_, i) => ({ id: `T${i}`, amount: '1.00' }));
    const lines = renderTable(['id', 'amount'], many, { color: false }).trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 1 + 1 + 5 + 1);
    expect(lines[2]).toMatch(/^├─+┼─+┤$/);
    expect(lines.filter((l) => l.startsWith('├'))).toHaveLength(1);
  });

  it('may colour the header when asked', () => {
    // @colors/colors decides itself whether to emit codes; all we promise is none when color is off.
    const text = renderTable(['a'], [{ a: '1' }], { color: true });
    expect(text).toContain('1');
  });

  it('fits the given width by cutting free text with …, not by wrapping it', () => {
    // Changed on purpose (issue 15): a reason wrapped over nine lines is now one line, cut.
    const long = [{ id: 'T1', reason: 'x '.repeat(60) }];
    const text = renderTable(['id', 'reason'], long, { color: false, width: 40 });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(text).toContain('…');
  });

  it('shows control characters instead of sending them to the terminal', () => {
    const text = renderTable(['a'], [{ a: 'evil\u001b[31mred\u0007' }], { color: false });
    expect(text).not.toMatch(/[\u001b\u0007]/);
    expect(text).toContain('evil\\x1b[31mred\\x07');
  });

  it('renders missing cells as empty and an empty body', () => {
    expect(renderTable(['a', 'b'], [{ a: '1' }], { color: false })).toContain('1');
    const empty = renderTable(['a', 'b'], [], { color: false });
    expect(empty.trimEnd().split('\n')).toHaveLength(3);
  });

  it('keeps ids and amounts whole and shows one record per block when they do not fit', () => {
    const ids = [{ id: '20261123-175049-cd1f', transaction_id: 'TXN-000000000001', amount: 'USD 1,234.50' }];
    const text = renderTable(['id', 'transaction_id', 'amount'], ids, { color: false, width: 30 });
    expect(text).toBe(
      'id              20261123-175049-cd1f\ntransaction_id  TXN-000000000001\namount          USD 1,234.50\n',
    );
  });

  it("fits a bulk run's results to 80 columns without the box, one line per row", () => {
    // Boxed, these seven columns need 89 columns even with the detail cut: they were shown as
    // eight-line blocks per row at 80 columns.
    const columns = [
      'transaction_id',
      'order_no',
      'currency',
      'refund_amount',
      'refund_reference_id',
      'outcome',
      'outcome_detail',
    ];
    const results = Array.from({ length: 12 }, (_, i) => ({
      transaction_id: `T00000000${String(i + 10)}`,
      order_no: `ORD-10${String(i + 10)}`,
      currency: 'JPY',
      refund_amount: '12000',
      refund_reference_id: `T00000000${String(i + 10)}-01`,
      outcome: i === 3 ? 'failed' : 'succeeded',
      outcome_detail: i === 3 ? 'E2004:refund exceeds the refundable balance' : '0000:Refund accepted',
    }));
    const lines = renderTable(columns, results, { color: false, width: 80 }).trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(lines.some((l) => l.includes('│'))).toBe(false);
    // The header over two lines, its rule, then one line per row with every id whole.
    expect(lines).toHaveLength(2 + 1 + 12);
    for (const r of results) {
      const line = lines.find((l) => l.includes(r.transaction_id))!;
      expect(line).toContain(r.refund_reference_id);
      expect(line).toContain(r.order_no);
    }
    expect(lines.find((l) => l.includes('failed'))).toMatch(/ E2004:\S*…$/);
    // At 60 columns not even that fits: one record per block.
    const narrow = renderTable(columns, results, { color: false, width: 60 });
    expect(narrow).toContain('\n\ntransaction_id       T0000000011\n');
  });

  it('cuts nothing with wide, and nothing without a width', () => {
    const long = [{ id: 'T1', reason: 'word '.repeat(40).trim() }];
    for (const opts of [{ width: 40, wide: true }, {}]) {
      const text = renderTable(['id', 'reason'], long, { color: false, ...opts });
      expect(text).toContain('word '.repeat(40).trim());
      expect(text).not.toContain('…');
    }
  });

  it('counts wide characters and emoji as two columns', () => {
    expect(displayWidth('注文')).toBe(4);
    expect(displayWidth('ok 👍')).toBe(5);
    expect(displayWidth('é')).toBe(1);
    expect(cutToWidth('注文注文', 5)).toBe('注文…');
    const text = renderTable(['id', 'note'], [{ id: 'T1', note: '返金 '.repeat(30) }], {
      color: false,
      width: 40,
    });
    for (const line of text.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(40);
  });

  it('for any rows and width: no line wider than the width, every id, amount and status whole on one line', () => {
    // An id that is no card number: one that is would be masked in every output (issue 24).
    const id = fc.stringMatching(/^[A-Z]{3}-[0-9]{4,16}$/).filter((v) => !containsCardNumber(v));
    const text = fc.array(fc.constantFrom('a', 'refund', 'partially refunded', '返金', '👍', ' ', 'é', 'x'), {
      maxLength: 30,
    });
    const row = fc.record({
      id,
      amount: fc.integer({ min: 0, max: 10 ** 9 }).map((n) => `USD ${(n / 100).toFixed(2)}`),
      reason: text.map((t) => t.join(' ')),
      status: fc.constantFrom('succeeded', 'partially refunded', 'failed'),
    });
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 20, max: 200 }),
        (rows, width) => {
          const out = renderTable(['id', 'amount', 'reason', 'status'], rows, { color: false, width });
          const lines = out.trimEnd().split('\n');
          for (const r of rows) {
            // An id longer than the terminal can only be whole on a line of its own (blocks).
            expect(lines.some((l) => l.includes(r.id))).toBe(true);
            expect(lines.some((l) => l.includes(r.amount))).toBe(true);
            // Statuses are never cut either (issue 27): "partially refunded", not "partially…".
            expect(lines.some((l) => l.includes(r.status))).toBe(true);
          }
          for (const line of lines) {
            const holdsLongValue = rows.some(
              (r) =>
                (line.includes(r.id) || line.includes(r.amount) || line.includes(r.status)) &&
                displayWidth(line) > width,
            );
            // Only a block line whose id, amount or status alone is wider than the terminal may exceed it.
            if (!holdsLongValue) expect(displayWidth(line)).toBeLessThanOrEqual(width);
            else expect(line.startsWith('│')).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('renderTable headers', () => {
  it('breaks a header after _ before cutting anything', () => {
    const rows = [{ transaction_id: 'T1', refund_amount: '9.99', refund_reason: 'the parcel never came' }];
    const text = renderTable(['transaction_id', 'refund_amount', 'refund_reason'], rows, {
      color: false,
      width: 50,
    });
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^│ transaction_ │ refund_ │ refund_reason\s+│$/);
    expect(lines[2]).toMatch(/^│ id\s+│ amount\s+│\s+│$/);
    expect(text).toContain('the parcel never came');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(50);
  });
});

describe('renderTable: what is never cut (issue 27)', () => {
  const orders = [
    {
      order_no: 'ORD-1005',
      transaction_id: 'T0000000005',
      status: '4000 fully refunded',
      amount: 'USD 75.25',
      'date (local)': '2026-11-28 20:54',
      '3DS': 'no',
      fraud: 'ACCEPT',
    },
  ];
  const head = Object.keys(orders[0]!);

  it('drops the columns it may drop, names them, and cuts no status or date', () => {
    const text = renderTable(head, orders, { color: false, width: 80, drop: ['fraud', '3DS'] });
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(text).not.toContain('…');
    expect(text).toContain('4000 fully refunded');
    expect(text).toContain('2026-11-28 20:54');
    expect(text).toContain('not shown at this width: fraud');
    // Without columns to drop, one record per block: still nothing cut.
    const blocks = renderTable(head, orders, { color: false, width: 80 });
    expect(blocks).toContain('status          4000 fully refunded\n');
    expect(blocks).not.toContain('…');
  });

  it('shows a note column whole under its row, wrapped at spaces, in the box and without it', () => {
    const reason = 'E2002:currency or amount does not match the order: the order is 12000 JPY';
    const rows = [
      { id: 'T0000000031', amount: '424', outcome: 'failed', detail: reason },
      { id: 'T0000000032', amount: '4500', outcome: 'succeeded', detail: '' },
    ];
    for (const width of [40, 80, 130]) {
      const text = renderTable(['id', 'amount', 'outcome', 'detail'], rows, {
        color: false,
        width,
        note: 'detail',
      });
      const lines = text.trimEnd().split('\n');
      for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
      expect(text).not.toContain('…');
      const flat = lines.map((l) => l.replace(/[│]/g, '').trim()).join(' ');
      expect(flat).toContain(reason);
      // Under its row: the line after the failed row starts the reason.
      const at = lines.findIndex((l) => l.includes('T0000000031'));
      expect(lines[at + 1]).toContain('E2002:currency');
    }
  });
});

describe('renderTable notes, for any rows and width (issue 27)', () => {
  it('no line wider than the width, and every note whole', () => {
    const word = fc.constantFrom(
      'E2002:currency',
      'or',
      'amount',
      'does',
      'not',
      'match',
      'the',
      'order',
      '返金',
      'JPY',
    );
    const row = fc.record({
      id: fc.stringMatching(/^T[0-9]{4,12}$/),
      outcome: fc.constantFrom('failed', 'succeeded', 'unknown'),
      detail: fc.array(word, { maxLength: 30 }).map((w) => w.join(' ')),
    });
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 30, max: 200 }),
        (rows, width) => {
          const text = renderTable(['id', 'outcome', 'detail'], rows, {
            color: false,
            width,
            note: 'detail',
          });
          const lines = text.trimEnd().split('\n');
          for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
          const flat = lines
            .map((l) => l.replace(/[│]/g, ' '))
            .join(' ')
            .replace(/\s+/g, ' ');
          for (const r of rows) expect(flat).toContain(r.detail);
        },
      ),
      { numRuns: 200 },
    );
  });
});
