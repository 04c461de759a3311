// Credentials without a base URL (issue 13, item 12): payops used to fall back to the built-in
// sandbox and report a refund "succeeded" with exit 0. Real-looking settings without a base_url are
// now a configuration error unless --sandbox is given; and every run the built-in sandbox served
// says so, even under --quiet. No settings at all still means the sandbox (the new-user path).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';

const KEY = 'live-sign-key-7c1d9e';
const LIVE = { PAYOPS_SIGN_KEY: KEY, PAYOPS_MERCHANT_ID: '4711' };
const SANDBOX_NOTE = /built-in sandbox: no real money moved/;

const runsIn = (home: string) => {
  const dir = join(home, 'state', 'runs');
  return existsSync(dir) ? readdirSync(dir).filter((n) => /^\d{8}-/.test(n)) : [];
};

describe('credentials without a base_url', () => {
  it('a refund is refused (exit 4): which setting is missing, where the others came from; nothing runs', async () => {
    const home = tempDir();
    const r = await runCli(['refund', '--file', 'samples/refunds.csv', '--yes'], { env: LIVE, home });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/no base_url/);
    expect(r.stderr).toMatch(/merchant_id from PAYOPS_MERCHANT_ID/);
    expect(r.stderr).toMatch(/sign_key from PAYOPS_SIGN_KEY/);
    expect(r.stderr).toMatch(/--sandbox/);
    expect(r.stderr + r.stdout).not.toContain(KEY);
    expect(r.stderr).not.toMatch(/succeeded/);
    expect(runsIn(home)).toEqual([]);
  });

  it('with --sandbox it runs against the built-in sandbox and says so, even under --quiet', async () => {
    const home = tempDir();
    const r = await runCli(
      [
        '--sandbox',
        '--quiet',
        'refund',
        '--file',
        'samples/refunds.csv',
        '--yes',
        '--out',
        join(home, 'r.csv'),
      ],
      { env: LIVE, home },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(SANDBOX_NOTE);
    expect(r.stderr.match(new RegExp(SANDBOX_NOTE, 'g'))).toHaveLength(1);
  });

  it('no settings at all: the built-in sandbox, as before, and the summary line names it', async () => {
    const home = tempDir();
    const r = await runCli(
      ['refund', '--file', 'samples/refunds.csv', '--yes', '--out', join(home, 'r.csv')],
      {
        home,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no gateway configured: using the built-in sandbox/);
    expect(r.stderr).toMatch(new RegExp(`refund run \\S+: 12 rows .*${SANDBOX_NOTE.source}`));
  });

  it('a payout and a payment against the built-in sandbox say so under --quiet too', async () => {
    const home = tempDir();
    const payout = await runCli(
      [
        '--sandbox',
        '--quiet',
        'payout',
        '--file',
        'samples/payouts.csv',
        '--yes',
        '--out',
        join(home, 'p.csv'),
      ],
      { home },
    );
    expect(payout.code, payout.stderr).toBe(0);
    expect(payout.stderr).toMatch(SANDBOX_NOTE);
    const pay = await runCli(
      [
        '--sandbox',
        '--yes',
        '--quiet',
        '--output',
        'json',
        'pay',
        'apm',
        '--request',
        'samples/apm-request.json',
      ],
      {
        home,
      },
    );
    expect(pay.stderr).toMatch(SANDBOX_NOTE);
  });
});
