import { describe, expect, it } from 'vitest';
import type { StoredConfig } from '../../../src/config/keys.js';
import { assertMayMoveMoney, resolveConfig, selectProfile } from '../../../src/config/resolve.js';
import { ConfigError } from '../../../src/errors.js';

const stored: StoredConfig = {
  current: 'live',
  profiles: {
    live: {
      base_url: 'https://live.example.com/',
      merchant_id: 'M-PROFILE',
      account_id: 'A-PROFILE',
      sign_key: 'profile-key-123',
      timeout: 5000,
      concurrency: 8,
      status_labels: { '3000': 'settled' },
    },
    support: { base_url: 'https://live.example.com', merchant_id: 'M2', account_id: 'A2', read_only: true },
  },
};

describe('resolveConfig', () => {
  it('takes profile values, records their source, and fills defaults', () => {
    const c = resolveConfig({}, {}, stored);
    expect(c).toMatchObject({
      profile: 'live',
      baseUrl: 'https://live.example.com',
      merchantId: 'M-PROFILE',
      signKey: 'profile-key-123',
      timeoutMs: 5000,
      concurrency: 8,
      readOnly: false,
      statusLabels: { '3000': 'settled' },
      sandbox: false,
    });
    expect(c.sources).toMatchObject({ profile: 'profile', base_url: 'profile', read_only: 'default' });
  });

  it('lets the environment win over the profile, and flags over both', () => {
    const env = {
      PAYOPS_MERCHANT_ID: 'M-ENV',
      PAYOPS_SIGN_KEY: 'env-key-1234',
      PAYOPS_BASE_URL: 'https://env.example.com',
    };
    const c = resolveConfig({ merchantId: 'M-FLAG', timeout: 100 }, env, stored);
    expect(c.merchantId).toBe('M-FLAG');
    expect(c.sources.merchant_id).toBe('flag');
    expect(c.signKey).toBe('env-key-1234');
    expect(c.sources.sign_key).toBe('env');
    expect(c.baseUrl).toBe('https://env.example.com');
    expect(c.accountId).toBe('A-PROFILE');
    expect(c.timeoutMs).toBe(100);
    expect(c.sources.timeout).toBe('flag');
  });

  it('treats empty environment values as absent', () => {
    const c = resolveConfig({}, { PAYOPS_SIGN_KEY: '', PAYOPS_PROFILE: '' }, stored);
    expect(c.signKey).toBe('profile-key-123');
    expect(c.profile).toBe('live');
  });

  it('selects the profile by flag > PAYOPS_PROFILE > current > "default"', () => {
    expect(selectProfile({ profile: 'x' }, { PAYOPS_PROFILE: 'y' }, stored)).toEqual({
      name: 'x',
      source: 'flag',
    });
    expect(selectProfile({}, { PAYOPS_PROFILE: 'support' }, stored)).toEqual({
      name: 'support',
      source: 'env',
    });
    expect(selectProfile({}, {}, stored)).toEqual({ name: 'live', source: 'profile' });
    expect(selectProfile({}, {}, {})).toEqual({ name: 'default', source: 'default' });
    const c = resolveConfig({}, { PAYOPS_PROFILE: 'support' }, stored);
    expect(c.readOnly).toBe(true);
    expect(c.merchantId).toBe('M2');
  });

  it('uses the sandbox with --sandbox, base_url "sandbox", or when no gateway is configured', () => {
    expect(resolveConfig({ sandbox: true }, {}, stored)).toMatchObject({
      sandbox: true,
      sandboxReason: 'flag',
      baseUrl: '',
    });
    expect(resolveConfig({ baseUrl: 'sandbox' }, {}, stored)).toMatchObject({
      sandbox: true,
      sandboxReason: 'base_url',
    });
    expect(resolveConfig({}, {}, {})).toMatchObject({
      sandbox: true,
      sandboxReason: 'unconfigured',
      profileExists: false,
    });
    expect(resolveConfig({}, {}, stored).sandbox).toBe(false);
  });

  describe('credentials without a base_url (issue 13, item 12)', () => {
    it('are a configuration error (exit 4) naming the missing setting and where the others came from', () => {
      const env = { PAYOPS_SIGN_KEY: 'live-key-9f8e7d', PAYOPS_MERCHANT_ID: '4711' };
      let err: unknown;
      try {
        resolveConfig({}, env, {});
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(4);
      expect((err as ConfigError).message).toMatch(/no base_url/);
      expect((err as ConfigError).message).toMatch(/merchant_id from PAYOPS_MERCHANT_ID/);
      expect((err as ConfigError).message).toMatch(/sign_key from PAYOPS_SIGN_KEY/);
      expect((err as ConfigError).message).not.toContain('live-key-9f8e7d');
      expect((err as ConfigError).hint).toMatch(/PAYOPS_BASE_URL.*--sandbox/s);
    });

    it('from a profile or a flag too', () => {
      const profile: StoredConfig = { profiles: { default: { account_id: 'A-77' } } };
      expect(() => resolveConfig({}, {}, profile)).toThrow(/account_id from profile "default"/);
      expect(() => resolveConfig({ merchantId: '4711' }, {}, {})).toThrow(/merchant_id from --merchant-id/);
    });

    it('--sandbox, base_url "sandbox", or nothing at all: the built-in sandbox; the demo values alone are a setting (issue 24)', () => {
      const env = { PAYOPS_SIGN_KEY: 'live-key-9f8e7d', PAYOPS_MERCHANT_ID: '4711' };
      expect(resolveConfig({ sandbox: true }, env, {})).toMatchObject({
        sandbox: true,
        sandboxReason: 'flag',
      });
      expect(resolveConfig({ baseUrl: 'sandbox' }, env, {})).toMatchObject({ sandboxReason: 'base_url' });
      const demo = {
        PAYOPS_MERCHANT_ID: '800001',
        PAYOPS_ACCOUNT_ID: '800001001',
        PAYOPS_SIGN_KEY: 'sandbox-sign-key',
      };
      expect(() => resolveConfig({}, demo, {})).toThrow(/profile "default" has no base_url/);
      expect(resolveConfig({ sandbox: true }, demo, {})).toMatchObject({ sandboxReason: 'flag' });
      expect(resolveConfig({}, {}, {})).toMatchObject({ sandboxReason: 'unconfigured' });
    });
  });

  it('rejects hand-edited values of the wrong type with a hint', () => {
    const bad: StoredConfig = { profiles: { default: { timeout: 'soon' as unknown as number } } };
    expect(() => resolveConfig({}, {}, bad)).toThrow(ConfigError);
  });
});

describe('assertMayMoveMoney', () => {
  it('refuses under a read-only profile with exit 4', () => {
    expect(() => assertMayMoveMoney({ readOnly: false, profile: 'live' })).not.toThrow();
    try {
      assertMayMoveMoney({ readOnly: true, profile: 'support' }, 'refund');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(4);
      expect((err as ConfigError).message).toContain('support');
    }
  });
});

describe('settle_time', () => {
  const none: StoredConfig = {};
  const gw = { base_url: 'https://gw.example.com' };
  it('defaults to 30 s, takes the profile (ms), and PAYOPS_SETTLE_TIME (a duration) over it', () => {
    expect(resolveConfig({}, {}, none).settleMs).toBe(30_000);
    expect(resolveConfig({}, {}, { profiles: { default: { ...gw, settle_time: 90_000 } } }).settleMs).toBe(
      90_000,
    );
    const env = { PAYOPS_SETTLE_TIME: '5s' };
    expect(resolveConfig({}, env, { profiles: { default: { ...gw, settle_time: 90_000 } } }).settleMs).toBe(
      5_000,
    );
    expect(resolveConfig({ sandbox: true }, { PAYOPS_SETTLE_TIME: '0' }, none).settleMs).toBe(0);
  });
  it('refuses an unreadable or over-long PAYOPS_SETTLE_TIME, naming it', () => {
    expect(() => resolveConfig({}, { PAYOPS_SETTLE_TIME: 'abc' }, none)).toThrow(/PAYOPS_SETTLE_TIME/);
    expect(() => resolveConfig({}, { PAYOPS_SETTLE_TIME: '99h' }, none)).toThrow(/at most 1h/);
  });
});
