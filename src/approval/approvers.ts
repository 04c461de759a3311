// The line `payops keys show` prints and the team's approvers file is made of (docs/approvals.md):
//
//   Ana Silva SHA256:<43 base64url> ed25519:<43 base64url>
//
// name (any text without control characters), the key's fingerprint, the raw Ed25519 public key.
// Parsed from the end, so a name may hold spaces. The fingerprint is checked against the key: a
// line whose two halves disagree is refused, never trusted by either half.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { configDir } from '../config/paths.js';
import { ConfigError } from '../errors.js';
import { quote } from '../quote.js';
import { type KeyRef, keyFingerprint, publicKeyObject, rawPublicKey } from './plan-doc.js';

export const KEY_PREFIX = 'ed25519:';
const MAX_NAME = 100;
const LINE = /^(.+?)\s+(SHA256:[A-Za-z0-9_-]{43})\s+ed25519:([A-Za-z0-9_-]{43})\s*$/;
// Control characters, bidi overrides and separators: a name is shown on screens and in plans.
const UNSAFE_NAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The one line `payops keys show` prints for a key. */
export function formatKeyLine(ref: KeyRef): string {
  return `${ref.name} ${ref.fingerprint} ${KEY_PREFIX}${ref.publicKey}`;
}

/** Why `name` cannot be a key's name, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'the name is empty';
  if (name !== name.trim()) return 'the name starts or ends with a space';
  if (UNSAFE_NAME.test(name)) return 'the name holds a control character';
  if (name.length > MAX_NAME) return `the name is longer than ${MAX_NAME} characters`;
  if (/\sSHA256:|\sed25519:/.test(` ${name}`)) return 'the name holds "SHA256:" or "ed25519:"';
  return undefined;
}

/** One `keys show` line as a key, or what is wrong with it. */
export function parseKeyLine(text: string): KeyRef | { problem: string } {
  const m = LINE.exec(text.trim());
  if (!m) {
    return {
      problem: 'expected "NAME SHA256:<fingerprint> ed25519:<public key>", as `payops keys show` prints it',
    };
  }
  const [, name, fingerprint, publicKey] = m as unknown as [string, string, string, string];
  const problem = nameProblem(name);
  if (problem) return { problem };
  const key = publicKeyObject(publicKey);
  if (!key) return { problem: 'the public key is not a valid Ed25519 key' };
  if (keyFingerprint(rawPublicKey(key)) !== fingerprint) {
    return {
      problem: `the fingerprint ${fingerprint} is not the public key's (${keyFingerprint(rawPublicKey(key))})`,
    };
  }
  return { name, fingerprint, publicKey };
}

/** An approvers file's text as keys: `#` comments and blank lines skipped; any bad line refused. */
export function parseApprovers(text: string, file: string): KeyRef[] {
  const keys: KeyRef[] = [];
  const seen = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}:${i + 1}`;
    const parsed = parseKeyLine(line);
    if ('problem' in parsed) {
      throw new ConfigError(`approvers file ${where}: ${parsed.problem}`, {
        hint: 'each line is one `payops keys show` line; # starts a comment',
      });
    }
    const earlier = seen.get(parsed.fingerprint);
    if (earlier !== undefined) {
      throw new ConfigError(
        `approvers file ${where}: the key ${parsed.fingerprint} is listed already on line ${earlier}`,
        { hint: 'list each person once' },
      );
    }
    seen.set(parsed.fingerprint, i + 1);
    keys.push(parsed);
  });
  return keys;
}

/** The approvers file at `path`, parsed; a missing or unreadable file refused (exit 4). */
export async function loadApprovers(path: string): Promise<KeyRef[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot read the approvers file ${quote(path)}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
      { hint: 'set its path with `payops config set approvers_file PATH` (docs/approvals.md)' },
    );
  }
  const keys = parseApprovers(text, path);
  if (keys.length === 0) {
    throw new ConfigError(`the approvers file ${quote(path)} lists no one`, {
      hint: 'add one `payops keys show` line per person who may make or approve plans',
    });
  }
  return keys;
}

/**
 * The approvers file the profile names (approvers_file); a relative path is taken from the config
 * folder (PAYOPS_HOME), so that it names one file whatever the current folder (a cron job's).
 */
export function approversPath(file: string | undefined, env: NodeJS.ProcessEnv, profile: string): string {
  if (file === undefined) {
    throw new ConfigError(`profile "${profile}" names no approvers file`, {
      hint: 'set it with `payops config set approvers_file /path/to/approvers.txt` (docs/approvals.md)',
    });
  }
  return isAbsolute(file) ? file : resolve(configDir(env), file);
}
