// Writing the config file for the config commands (atomically, file mode 0600: json-file.ts).
import { mkdirSync } from 'node:fs';
import { ConfigError, UsageError } from '../errors.js';
import { CONFIG_DIR_MODE, CONFIG_FILE_MODE, readStoredConfig } from './file.js';
import { writeJsonAtomic } from './json-file.js';
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
  // A failure to write propagates as it is, as it did when `conf` wrote the file.
  const write = (next: StoredConfig) => writeJsonAtomic(path, next, CONFIG_FILE_MODE);
  // Read again before each change: another payops may have written it meanwhile.
  const read = (): StoredConfig => ({ ...readStoredConfig(env) });

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
