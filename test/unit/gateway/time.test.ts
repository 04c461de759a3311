import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatGatewayTime, parseGatewayTime } from '../../../src/gateway/time.js';

describe('gateway times (YYYYMMDDhhmmss, UTC)', () => {
  it('formats in UTC, to the second', () => {
    expect(formatGatewayTime(Date.parse('2026-11-22T01:02:03.999Z'))).toBe('20261122010203');
    expect(formatGatewayTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('20260102030405');
  });

  it('parses as UTC and refuses what is not a real time', () => {
    expect(parseGatewayTime('20261122010000')?.getTime()).toBe(Date.parse('2026-11-22T01:00:00Z'));
    for (const bad of ['2026-11-22', '20261322010000', '20260230010000', '20261122240000', '', undefined]) {
      expect(parseGatewayTime(bad)).toBeUndefined();
    }
  });

  it('round-trips every second of 1970–2999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2999, 11, 31, 23, 59, 59) / 1000 }), (s) => {
        expect(parseGatewayTime(formatGatewayTime(s * 1000))?.getTime()).toBe(s * 1000);
      }),
    );
  });
});
