import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import {
  parseGatewayTime as parseGatewayDate,
  formatGatewayTime as toGatewayDate,
} from '../../../src/gateway/time.js';
import { formatIsoUtc, formatLocal, parseDateArg } from '../../../src/query/dates.js';

const start = { bound: 'start', utc: true, flag: '--from' } as const;
const end = { bound: 'end', utc: true, flag: '--to' } as const;

describe('parseDateArg in UTC', () => {
  it('reads the three documented forms', () => {
    expect(toGatewayDate(parseDateArg('2026-11-21', start))).toBe('20261121000000');
    expect(toGatewayDate(parseDateArg('2026-11-21 09:05:07', start))).toBe('20261121090507');
    expect(toGatewayDate(parseDateArg('20261121090507', start))).toBe('20261121090507');
  });

  it('makes a bare date the whole day: first second for --from, last second for --to', () => {
    expect(toGatewayDate(parseDateArg('2026-11-21', end))).toBe('20261121235959');
    expect(toGatewayDate(parseDateArg('20261121', end))).toBe('20261121235959');
    expect(toGatewayDate(parseDateArg('2026-11-21 10:30', end))).toBe('20261121103000');
  });

  it('honours an explicit zone whatever --utc says', () => {
    const local = { bound: 'start', utc: false, flag: '--from' } as const;
    expect(toGatewayDate(parseDateArg('2026-11-21T10:00:00+01:00', local))).toBe('20261121090000');
    expect(toGatewayDate(parseDateArg('2026-11-21 10:00:00Z', local))).toBe('20261121100000');
    expect(toGatewayDate(parseDateArg('20261121100000-0530', local))).toBe('20261121153000');
  });

  it.each([
    ['21/11/2026', 'is not a date'],
    ['2026-02-30', 'not a calendar date'],
    ['2026-13-01', 'not a calendar date'],
    ['2026-11-21 24:00:00', 'outside 00:00:00'],
    ['2026-11-21 10:60', 'outside 00:00:00'],
    ['20261121 1000', 'is not a date'],
    ['yesterday', 'is not a date'],
    ['', 'is not a date'],
    ['1999-12-31', 'outside the years'],
    ['2026-11-21T10:00:00+15:00', 'offset outside'],
  ])('refuses %j with a UsageError naming the accepted formats', (text, why) => {
    let err: unknown;
    try {
      parseDateArg(text, start);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain(why);
    expect((err as UsageError).hint).toContain('YYYY-MM-DD');
    expect((err as UsageError).hint).toContain('YYYYMMDDhhmmss');
  });
});

describe('parseDateArg in local time', () => {
  const saved = process.env.TZ;
  beforeEach(() => {
    // Node reads TZ when a Date is first used after it changes.
    process.env.TZ = 'America/New_York';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it('reads zone-less text as local time by default', () => {
    const local = { bound: 'start', utc: false, flag: '--from' } as const;
    // New York is UTC-5 in November.
    expect(toGatewayDate(parseDateArg('2026-11-21 10:00:00', local))).toBe('20261121150000');
    expect(toGatewayDate(parseDateArg('2026-11-21', { ...local, bound: 'end' }))).toBe('20261122045959');
  });

  it('refuses a local time skipped by daylight saving', () => {
    const local = { bound: 'start', utc: false, flag: '--from' } as const;
    expect(() => parseDateArg('2026-03-08 02:30:00', local)).toThrow(/daylight-saving/);
  });

  it('formats gateway dates in local time with the offset, and in ISO UTC', () => {
    const d = parseGatewayDate('20261121150000')!;
    expect(formatLocal(d)).toBe('2026-11-21 10:00:00 -05:00');
    expect(formatIsoUtc(d)).toBe('2026-11-21T15:00:00Z');
  });
});

describe('parseGatewayDate', () => {
  it('reads YYYYMMDDhhmmss as UTC', () => {
    expect(parseGatewayDate('20261121090507')?.toISOString()).toBe('2026-11-21T09:05:07.000Z');
  });
  it.each(['', '2026112109050', '20260230000000', '20261121250000', 'abcdefghijklmn', undefined])(
    'gives undefined for %j',
    (text) => {
      expect(parseGatewayDate(text)).toBeUndefined();
    },
  );
  it('round-trips with toGatewayDate', () => {
    expect(toGatewayDate(parseGatewayDate('20000101000000')!)).toBe('20000101000000');
    expect(toGatewayDate(parseGatewayDate('20991231235959')!)).toBe('20991231235959');
  });
});
