// Reading the config file for a command that only needs its values: plain fs and JSON (the config
// commands write it through store.ts and json-file.ts).
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import type { StoredConfig } from './keys.js';
import { configFile } from './paths.js';

export const CONFIG_FILE_MODE = 0o600;
export const CONFIG_DIR_MODE = 0o700;

/**
 * Tighten a config file readable by others to 0600 (it holds the sign key). Returns true when it did.
 * Not on Windows, where POSIX modes do not apply.
 */
export function tightenFileMode(path: string): boolean {
  if (process.platform === 'win32') return false;
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return false;
  }
  if ((mode & 0o077) === 0) return false;
  chmodSync(path, CONFIG_FILE_MODE);
  return true;
}

export function readStoredConfig(env: NodeJS.ProcessEnv, onTightened?: (path: string) => void): StoredConfig {
  const path = configFile(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read the config file ${path}: ${(err as Error).message}`, {
      hint: 'check its permissions, or point PAYOPS_HOME at another folder',
    });
  }
  if (tightenFileMode(path)) onTightened?.(path);
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ConfigError(`the config file ${path} is not valid JSON`, {
      hint: 'fix or delete it, then run `payops config init`',
    });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`the config file ${path} does not hold a JSON object`, {
      hint: 'fix or delete it, then run `payops config init`',
    });
  }
  return parsed as StoredConfig;
}
