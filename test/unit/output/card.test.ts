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

  // Tryout (issue 15): a refund line with its reason wrapped one character onto a second line at
  // 80 columns. On a terminal a value is cut with … to the width (the full text is in --output json).
  it('cuts a value to the terminal width, never a label', () => {
    const long = [
      {
        fields: [
          ['T0000000001-01', `USD 100.00  ok  2026-11-24 05:19:30 +00:00  “customer request, sent late”`],
        ] as Array<[string, string]>,
      },
    ];
    const text = renderCard('Order ORD-1001', long, { color: false, width: 80 });
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    expect(text).toContain('  T0000000001-01  USD 100.00');
    expect(text).toMatch(/“customer request…\n$/);
    expect(renderCard('Order ORD-1001', long, { color: false })).toContain('“customer request, sent late”');
  });
});
