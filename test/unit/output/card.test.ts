import { describe, expect, it } from 'vitest';
import { renderCard } from '../../../src/output/card.js';

describe('renderCard', () => {
  const sections = [
    {
      fields: [
        ['Status', '3000 captured'],
        ['Amount', 'USD 10.00'],
        ['Note', undefined],
      ] as Array<[string, string | undefined]>,
    },
    { heading: 'Refunds', fields: [['T1-01', 'USD 2.00\nsecond line']] as Array<[string, string]> },
  ];

  it('aligns labels across sections and skips absent fields', () => {
    expect(renderCard('Order ORD-1', sections, { color: false })).toBe(
      [
        'Order ORD-1',
        '  Status  3000 captured',
        '  Amount  USD 10.00',
        '',
        'Refunds',
        '  T1-01   USD 2.00',
        '          second line',
        '',
      ].join('\n'),
    );
  });

  it('uses bold and dim only with colour', () => {
    expect(renderCard('T', sections, { color: false })).not.toMatch(/\u001b/);
    const coloured = renderCard('T', sections, { color: true });
    expect(coloured).toContain('\u001b[1mT\u001b[0m');
    expect(coloured).toContain('\u001b[2mStatus\u001b[0m');
  });

  it('shows control characters in data instead of running them', () => {
    const text = renderCard('x', [{ fields: [['a', '\u001b]0;pwned\u0007']] }], { color: false });
    expect(text).not.toMatch(/[\u001b\u0007]/);
  });
});
