// Issue 24, item 2: a profile without a base_url silently became the built-in sandbox — the docs'
// read-only recipe printed a made-up sample order, exit 0, for a support agent to read to a
// customer. The sandbox now serves only --sandbox, base_url "sandbox", or a machine where nothing
// at all is configured; anything else without a base_url is refused (exit 4) naming the profile.
import { describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';

const SAMPLE = /ORD-1001/;

async function inHome(home: string, argv: string[], env: Record<string, string> = {}) {
  return runMain(argv, fakeIo({ home, env }));
}

describe('no base_url: the built-in sandbox only when asked for, or when nothing is configured', () => {
  it('a named profile made read-only without a base_url is refused, naming it and the command to set one', async () => {
    const home = tempDir();
    expect((await inHome(home, ['--profile', 'support', 'config', 'set', 'read_only', 'true'])).code).toBe(0);
    const r = await inHome(home, ['--profile', 'support', 'query', '--order-no', 'ORD-1001']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).not.toMatch(SAMPLE);
    expect(r.stderr).toMatch(/profile "support" has no base_url/);
    expect(r.stderr).toContain('payops --profile support config set base_url URL');
    expect(r.stderr).not.toMatch(/using the built-in sandbox/);
  });

  it('the default profile without a base_url is refused too', async () => {
    const home = tempDir();
    expect((await inHome(home, ['config', 'set', 'timeout', '5000'])).code).toBe(0);
    const r = await inHome(home, ['query', '--order-no', 'ORD-1001']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('payops --profile default config set base_url URL');
    expect(r.stdout).not.toMatch(SAMPLE);
  });

  it('any PAYOPS_* setting without a base_url is refused, the demo values included', async () => {
    for (const env of <Array<Record<string, string>>>[
      { PAYOPS_SETTLE_TIME: '5s' },
      { PAYOPS_MERCHANT_ID: '800001' },
      { PAYOPS_SIGN_KEY: 'sandbox-sign-key' },
    ]) {
      const r = await inHome(tempDir(), ['query', '--order-no', 'ORD-1001'], env);
      expect(r.code, `${JSON.stringify(env)}: ${r.stderr}`).toBe(4);
      expect(r.stderr).toContain(`${Object.keys(env)[0]} is set`);
      expect(r.stdout).not.toMatch(SAMPLE);
    }
  });

  it('--sandbox still serves a configured profile, and nothing configured still means the sandbox', async () => {
    const home = tempDir();
    await inHome(home, ['--profile', 'support', 'config', 'set', 'read_only', 'true']);
    const flagged = await inHome(home, [
      '--sandbox',
      '--profile',
      'support',
      'query',
      '--order-no',
      'ORD-1001',
    ]);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(flagged.stdout).toMatch(SAMPLE);
    const fresh = await inHome(tempDir(), ['query', '--order-no', 'ORD-1001']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/no gateway configured: using the built-in sandbox/);
  });

  it('the read-only refusal names the profile and does not say how to lift it', async () => {
    const home = tempDir();
    await inHome(home, ['--profile', 'support', 'config', 'set', 'read_only', 'true']);
    const r = await inHome(home, [
      '--sandbox',
      '--profile',
      'support',
      'refund',
      '--order-no',
      'ORD-1001',
      '--amount',
      '1.00',
      '--refund-reason',
      'test',
      '--yes',
    ]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/profile "support" is read-only/);
    expect(r.stderr).toMatch(/hint: .*profile "support"/);
    expect(r.stderr).not.toMatch(/read_only false|config set read_only/);
  });
});
