// The config file as payops writes it since it stopped using the `conf` package: the same text
// (tab-indented JSON, no final newline) at the same path, so files written before read the same and
// look the same after a change; replaced whole (no temporary file left), mode 0600.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeJsonAtomic } from '../../../src/config/json-file.js';
import { openStore } from '../../../src/config/store.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the config file writer', () => {
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
