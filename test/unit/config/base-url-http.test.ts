// Issue 27: `config set base_url http://gateway.example.com` was stored and failed at the first
// command; it is refused when set, as `config init` refuses it (plain http:// only to this machine,
// or with --allow-insecure-http). In-process through main(argv, io).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';

describe('config set base_url over plain http', () => {
  it('refuses another host, stores nothing (exit 2)', async () => {
    const io = fakeIo();
    const r = await runMain(['config', 'set', 'base_url', 'http://gateway.example.com'], io);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('plain http:// would send the signed requests unencrypted: use https://');
    expect(r.stderr).toContain('--allow-insecure-http');
    expect(existsSync(join(io.home, 'config.json'))).toBe(false);
  });

  it('takes https, http to this machine, and http with --allow-insecure-http', async () => {
    for (const args of [
      ['config', 'set', 'base_url', 'https://gateway.example.com'],
      ['config', 'set', 'base_url', 'http://127.0.0.1:8080'],
      ['config', 'set', 'base_url', 'http://localhost:8080'],
      ['--allow-insecure-http', 'config', 'set', 'base_url', 'http://gateway.example.com'],
    ]) {
      const io = fakeIo();
      const r = await runMain(args, io);
      expect(r.code, r.stderr).toBe(0);
      const stored = JSON.parse(readFileSync(join(io.home, 'config.json'), 'utf8'));
      expect(stored.profiles.default.base_url).toBe(args.at(-1));
    }
  });
});
