import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStoredConfig } from '../../../src/config/file.js';
import { configFile, stateDir } from '../../../src/config/paths.js';
import { openStore } from '../../../src/config/store.js';
import { ConfigError } from '../../../src/errors.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('config file', () => {
  it('is written with mode 0600 in a 0700 folder under PAYOPS_HOME', async () => {
    const home = join(mkdtempSync(join(tmpdir(), 'payops-cfg-')), 'nested');
    const env = { PAYOPS_HOME: home };
    const store = await openStore(env);
    store.setValue('default', 'sign_key', 'abcdefgh12');
    expect(store.path).toBe(join(home, 'config.json'));
    expect(mode(store.path)).toBe(0o600);
    expect(mode(home)).toBe(0o700);
    expect(readStoredConfig(env)).toMatchObject({
      current: 'default',
      profiles: { default: { sign_key: 'abcdefgh12' } },
    });
  });

  it('tightens an existing file readable by others when loading', () => {
    const home = mkdtempSync(join(tmpdir(), 'payops-cfg-'));
    const env = { PAYOPS_HOME: home };
    writeFileSync(configFile(env), '{"profiles":{}}');
    chmodSync(configFile(env), 0o644);
    const tightened: string[] = [];
    readStoredConfig(env, (p) => tightened.push(p));
    expect(mode(configFile(env))).toBe(0o600);
    expect(tightened).toEqual([configFile(env)]);
  });

  it('reports a broken file as a ConfigError naming it', () => {
    const home = mkdtempSync(join(tmpdir(), 'payops-cfg-'));
    writeFileSync(join(home, 'config.json'), '{not json');
    expect(() => readStoredConfig({ PAYOPS_HOME: home })).toThrow(ConfigError);
  });

  it('puts state under PAYOPS_HOME, or the XDG state folder', () => {
    expect(stateDir({ PAYOPS_HOME: '/x' })).toBe(join('/x', 'state'));
    expect(stateDir({ HOME: '/home/u' })).toBe(join('/home/u', '.local', 'state', 'payops'));
    expect(stateDir({ HOME: '/home/u', XDG_STATE_HOME: '/s' })).toBe(join('/s', 'payops'));
  });
});
