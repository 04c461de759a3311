import { describe, expect, it } from 'vitest';
import { ibanValid } from '../../../src/sandbox/payout.js';
import { csvCell, escapeXml, offsetTime, respon } from '../../../src/sandbox/render.js';

describe('render', () => {
  it('escapes XML and builds respon with one level of children', () => {
    expect(escapeXml(`a&b<c>"d'`)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;');
    expect(respon({ a: '1<2', r: { name: 'n', status: 's' } })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<respon><a>1&lt;2</a><r><name>n</name><status>s</status></r></respon>\n',
    );
  });

  it('formats payout times with a numeric UTC offset', () => {
    const t = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(offsetTime(t)).toBe('2026-01-02T03:04:05+0000');
  });

  it('quotes CSV cells only when needed', () => {
    expect(csvCell('ORD-1')).toBe('ORD-1');
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
  });

  it('checks IBAN digits', () => {
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(ibanValid('nonsense')).toBe(false);
  });
});
