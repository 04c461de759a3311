// Writing the config file through `conf` (atomic writes, file mode 0600), for the config commands.
import { chmodSync, mkdirSync } from 'node:fs';
import { ConfigError, UsageError } from '../errors.js';
import { CONFIG_DIR_MODE, CONFIG_FILE_MODE, readStoredConfig } from './file.js';
import type { ConfigKey, ProfileValues, StoredConfig } from './keys.js';
import { configDir, configFile } from './paths.js';

export interface ConfigStore {
  readonly path: string;
  read(): StoredConfig;
  setValue(profile: string, key: ConfigKey, value: ProfileValues[ConfigKey]): void;
  unsetValue(profile: string, key: ConfigKey): void;
  setCurrent(profile: string): void;
}

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,40}$/;

export function assertProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, {
      hint: 'use letters, digits, "_" or "-" (at most 40 characters)',
    });
  }
  return name;
}

export async function openStore(
  env: NodeJS.ProcessEnv,
  onTightened?: (path: string) => void,
): Promise<ConfigStore> {
  const dir = configDir(env);
  const path = configFile(env);
  // Our own reader first: it tightens a loose file and turns bad JSON into a clear ConfigError.
  readStoredConfig(env, onTightened);
  try {
    mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE });
  } catch (err) {
    throw new ConfigError(`cannot create the config folder ${dir}: ${(err as Error).message}`, {
      hint: 'point PAYOPS_HOME at a folder you can write to',
    });
  }
  const { default: Conf } = await import('conf');
  const conf = new Conf<StoredConfig>({
    projectName: 'payops',
    cwd: dir,
    configName: 'config',
    configFileMode: CONFIG_FILE_MODE,
    // Profile names are keys of `profiles`; we never want conf to read dots in them as paths.
    accessPropertiesByDotNotation: false,
  });

  const write = (next: StoredConfig) => {
    conf.store = next;
    // An existing file keeps its mode across an atomic rename on some systems: make sure.
    if (process.platform !== 'win32') chmodSync(path, CONFIG_FILE_MODE);
  };
  const read = (): StoredConfig => ({ ...conf.store });

  return {
    path,
    read,
    setValue(profile, key, value) {
      const store = read();
      const profiles = { ...(store.profiles ?? {}) };
      profiles[profile] = { ...(profiles[profile] ?? {}), [key]: value };
      write({ ...store, profiles, current: store.current ?? profile });
    },
    unsetValue(profile, key) {
      const store = read();
      const existing = store.profiles?.[profile];
      if (!existing) return;
      const { [key]: _removed, ...rest } = existing;
      write({ ...store, profiles: { ...store.profiles, [profile]: rest } });
    },
    setCurrent(profile) {
      write({ ...read(), current: profile });
    },
  };
}
