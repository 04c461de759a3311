// The config file as payops writes it since it stopped using the `conf` package: the same text
// (tab-indented JSON, no final newline) at the same path, so files written before read the same and
// look the same after a change; replaced whole (no temporary file left), mode 0600.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeJsonAtomic } from '../../../src/config/json-file.js';
import { openStore } from '../../../src/config/store.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the config file writer', () => {
  it.skipIf(process.platform === 'win32')(
    'writes through a config.json that is a link (a dotfiles repo), as conf did',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'payops-json-'));
      mkdirSync(join(dir, 'home'));
      mkdirSync(join(dir, 'dot'));
      const target = join(dir, 'dot', 'payops.json');
      writeFileSync(target, '{"current":"default"}', { mode: 0o600 });
      const link = join(dir, 'home', 'config.json');
      symlinkSync('../dot/payops.json', link);
      writeJsonAtomic(link, { current: 'default', merchant_id: '42' }, 0o600);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ current: 'default', merchant_id: '42' });
      expect(mode(target)).toBe(0o600);
      expect(readdirSync(join(dir, 'home'))).toEqual(['config.json']);
      expect(readdirSync(join(dir, 'dot'))).toEqual(['payops.json']);
    },
  );

  it('writes the text conf wrote: tab-indented JSON, no final newline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payops-json-'));
    const path = join(dir, 'config.json');
    writeJsonAtomic(path, { current: 'default', profiles: { default: { base_url: 'http://x' } } }, 0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      '{\n\t"current": "default",\n\t"profiles": {\n\t\t"default": {\n\t\t\t"base_url": "http://x"\n\t\t}\n\t}\n}',
    );
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.skipIf(process.platform === 'win32')('replaces a loose file with one of mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payops-json-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, '{}');
    chmodSync(path, 0o644);
    writeJsonAtomic(path, { a: 1 }, 0o600);
    expect(mode(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ a: 1 });
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('keeps the keys of a file it did not write (one written by conf, say) when changing one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'payops-json-'));
    const path = join(home, 'config.json');
    writeFileSync(
      path,
      JSON.stringify(
        { __internal__: { migrations: {} }, current: 'ops', profiles: { ops: { x: 1 } } },
        null,
        '\t',
      ),
      { mode: 0o600 },
    );
    const store = await openStore({ PAYOPS_HOME: home });
    store.setValue('ops', 'base_url', 'http://127.0.0.1:1');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      __internal__: { migrations: {} },
      current: 'ops',
      profiles: { ops: { x: 1, base_url: 'http://127.0.0.1:1' } },
    });
  });
});
