import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';

const SECRET = 'zq-very-secret-sign-key-9';

describe('payops config', () => {
  it('round-trips set / get / list / use under PAYOPS_HOME without ever printing the sign key', async () => {
    const home = tempDir();
    const outputs: string[] = [];
    const run = async (args: string[], input?: string) => {
      const r = await runCli(args, { home, ...(input === undefined ? {} : { input }) });
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    expect((await run(['config', 'set', 'base_url', 'https://gw.example.com/'])).code).toBe(0);
    expect((await run(['config', 'set', 'merchant_id', '800001'])).code).toBe(0);
    expect((await run(['config', 'set', 'account_id', '800001001'])).code).toBe(0);
    // The key from stdin (one line), as a script would pipe it in: not on the command line.
    const set = await run(['config', 'set', 'sign_key'], `${SECRET}\n`);
    expect(set.code).toBe(0);

    const file = join(home, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.sign_key).toBe(SECRET);

    expect((await run(['config', 'get', 'base_url'])).stdout).toBe('https://gw.example.com\n');
    expect((await run(['config', 'get', 'sign_key'])).stdout).toBe('set\n');

    // A second profile, made current by `use`.
    expect((await run(['--profile', 'support', 'config', 'set', 'read_only', 'true'])).code).toBe(0);
    expect((await run(['config', 'use', 'support'])).code).toBe(0);
    const list = await run(['config', 'list']);
    expect(list.stdout).toMatch(/\* support \(current\)/);
    expect(list.stdout).toMatch(/sign_key\s+set/);
    const json = JSON.parse((await run(['--output', 'json', 'config', 'list'])).stdout);
    expect(json.current).toBe('support');
    expect(json.profiles.default).toMatchObject({ merchant_id: '800001', sign_key: 'set' });
    expect(json.profiles.support).toMatchObject({ read_only: 'true', sign_key: 'not set' });

    // Unknown profile and bad values: clear errors, right exit codes.
    const nope = await run(['config', 'use', 'nope']);
    expect(nope.code).toBe(4);
    expect(nope.stderr).toContain('no profile "nope"');
    const bad = await run(['config', 'set', 'timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('a duration such as 30s or 2m');

    expect(outputs.join('\n')).not.toContain(SECRET);
  });

  it('warns when the sign key is given on the command line, and still never prints it', async () => {
    const r = await runCli(['config', 'set', 'sign_key', SECRET]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('shell history');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('refuses interactive init without a terminal and points to config set', async () => {
    const r = await runCli(['config', 'init']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('config set');
  });

  it('tightens a config file readable by others', async () => {
    const home = tempDir();
    await runCli(['config', 'set', 'merchant_id', 'M1'], { home });
    const { chmodSync } = await import('node:fs');
    chmodSync(join(home, 'config.json'), 0o644);
    const r = await runCli(['config', 'get', 'merchant_id'], { home });
    expect(r.stdout).toBe('M1\n');
    expect(r.stderr).toContain('0600');
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses money-moving calls under a read-only profile (exit 4)', async () => {
    const home = tempDir();
    for (const [k, v] of [
      ['base_url', 'https://gw.example.com'],
      ['merchant_id', 'M1'],
      ['account_id', 'A1'],
      ['sign_key', 'abcdefgh123'],
      ['read_only', 'true'],
    ] as const) {
      await runCli(['config', 'set', k, v], { home });
    }
    const r = await runCli(['call', '/v1/refund', '--data', 'a=1'], { home });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('read-only');
  });
});
