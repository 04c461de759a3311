import { describe, expect, it } from 'vitest';
import { renderTable } from '../../../src/output/table.js';

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
    // A header wrapped onto several lines is ruled off below its last line.
    const ids = many.map((r) => ({ transaction_id: r.id, amount: r.amount }));
    const narrow = renderTable(['transaction_id', 'amount'], ids, { color: false, width: 19 }).split('\n');
    const rule = narrow.findIndex((l) => l.startsWith('├'));
    expect(narrow[rule + 1]).toMatch(/T0/);
  });

  it('may colour the header when asked', () => {
    // @colors/colors decides itself whether to emit codes; all we promise is none when color is off.
    const text = renderTable(['a'], [{ a: '1' }], { color: true });
    expect(text).toContain('1');
  });

  it('fits the given width by wrapping the widest column', () => {
    const long = [{ id: 'T1', reason: 'x'.repeat(120) }];
    const text = renderTable(['id', 'reason'], long, { color: false, width: 40 });
    for (const line of text.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(40);
    expect(text.replace(/[^x]/g, '').length).toBe(120);
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
});
