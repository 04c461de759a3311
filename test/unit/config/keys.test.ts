import { describe, expect, it } from 'vitest';
import { assertConfigKey, maskSecret, parseConfigValue } from '../../../src/config/keys.js';
import { UsageError } from '../../../src/errors.js';

describe('config keys', () => {
  it('validates and converts values', () => {
    expect(parseConfigValue('base_url', 'https://gw.example.com/')).toBe('https://gw.example.com');
    expect(parseConfigValue('base_url', 'sandbox')).toBe('sandbox');
    expect(parseConfigValue('timeout', '2500')).toBe(2500);
    // A bare number stays milliseconds; with its unit, a duration as settle_time takes one.
    expect(parseConfigValue('timeout', '30s')).toBe(30_000);
    expect(parseConfigValue('timeout', '1.5s')).toBe(1500);
    expect(parseConfigValue('timeout', '2m')).toBe(120_000);
    expect(parseConfigValue('timeout', '750ms')).toBe(750);
    expect(parseConfigValue('concurrency', '8')).toBe(8);
    expect(parseConfigValue('read_only', 'yes')).toBe(true);
    expect(parseConfigValue('read_only', 'false')).toBe(false);
    expect(parseConfigValue('status_labels', '{"3000":"settled"}')).toEqual({ '3000': 'settled' });
    for (const [key, value] of [
      ['base_url', 'gw.example.com'],
      ['base_url', 'ftp://x'],
      ['timeout', '0'],
      ['timeout', '1.5'],
      ['timeout', '11m'],
      ['timeout', '1h'],
      ['timeout', '30 sec'],
      ['timeout', '0s'],
      ['concurrency', '1000'],
      ['read_only', 'maybe'],
      ['status_labels', '[1]'],
      ['status_labels', '{"abc":"x"}'],
      ['merchant_id', 'has space'],
      ['sign_key', 'short'],
    ] as const) {
      expect(() => parseConfigValue(key, value), `${key}=${value}`).toThrow(UsageError);
    }
  });

  it('never echoes a rejected sign key', () => {
    expect(() => parseConfigValue('sign_key', 'abc def ghi')).toThrow(/^(?!.*abc def ghi)/);
  });

  it('accepts dashes for underscores in key names and rejects unknown keys', () => {
    expect(assertConfigKey('sign-key')).toBe('sign_key');
    expect(() => assertConfigKey('colour')).toThrow(UsageError);
  });

  it('masks the sign key as set / not set', () => {
    expect(maskSecret('abcdefgh')).toBe('set');
    expect(maskSecret(undefined)).toBe('not set');
  });

  it('reads settle_time as a duration into milliseconds, at most 1h', () => {
    expect(parseConfigValue('settle_time', '30s')).toBe(30_000);
    expect(parseConfigValue('settle_time', '2m')).toBe(120_000);
    expect(parseConfigValue('settle_time', '500ms')).toBe(500);
    expect(parseConfigValue('settle_time', '45')).toBe(45_000);
    expect(() => parseConfigValue('settle_time', 'soon')).toThrow(/duration/);
    expect(() => parseConfigValue('settle_time', '2h')).toThrow(/at most 1h/);
  });
});

describe('confirm_typed_above', () => {
  it('takes CURRENCY:AMOUNT, comma-separated, normalised', () => {
    expect(parseConfigValue('confirm_typed_above', 'usd:10000, EUR:8000.50')).toBe('USD:10000,EUR:8000.50');
    for (const bad of ['10000', 'USD', 'USD:ten', 'USD:10000;EUR:1', 'USD:-5']) {
      expect(() => parseConfigValue('confirm_typed_above', bad)).toThrow(/CURRENCY:AMOUNT/);
    }
  });
});
