// A user and password in base_url are never sent (the gateway is reached by its origin and
// authenticated by the sign key): they are refused, and never printed by `payops status`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigValue } from '../../../src/config/keys.js';
import { UsageError } from '../../../src/errors.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';

const ENV = {
  PAYOPS_MERCHANT_ID: '800001',
  PAYOPS_ACCOUNT_ID: '800001001',
  PAYOPS_SIGN_KEY: 'sandbox-sign-key',
};

describe('base_url with a user and password', () => {
  it('config set refuses it', () => {
    expect(() => parseConfigValue('base_url', 'https://user:s3cretpw@gw.example.com')).toThrow(UsageError);
  });

  it('payops status never prints the password, in text or JSON', async () => {
    for (const args of [[], ['--output', 'json']]) {
      const io = fakeIo({ env: { ...ENV, PAYOPS_BASE_URL: 'http://user:s3cretpw@127.0.0.1:1' } });
      const r = await runMain(['status', ...args], io);
      expect(r.stdout + r.stderr).not.toContain('s3cretpw');
      expect(r.stdout + r.stderr).toContain('127.0.0.1');
    }
  });

  it('a dry run never prints it in the plan', async () => {
    const io = fakeIo({ env: { ...ENV, PAYOPS_BASE_URL: 'http://user:s3cretpw@127.0.0.1:1' } });
    const file = join(io.cwd, 'r.csv');
    writeFileSync(
      file,
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason\nT1,O1,USD,12.00,12.00,x\n',
    );
    const r = await runMain(['refund', '--file', file, '--dry-run'], io);
    expect(r.stdout + r.stderr).not.toContain('s3cretpw');
  });
});
