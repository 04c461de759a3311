// A person's Ed25519 key for signing plans (docs/approvals.md): made by `payops keys create`, kept
// in the config folder (PAYOPS_HOME) as keys/personal.json, mode 0600, its private half optionally
// encrypted with a passphrase (PKCS#8 PEM, aes-256-cbc). Never the gateway's sign key. The private
// key and the passphrase are never printed, logged or put in a message.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_DIR_MODE, CONFIG_FILE_MODE, tightenFileMode } from '../config/file.js';
import { writeJsonAtomic } from '../config/json-file.js';
import { configDir } from '../config/paths.js';
import { ConfigError, UsageError } from '../errors.js';
import type { Invocation } from '../io.js';
import { ask, canAsk } from '../output/prompt.js';
import { quote } from '../quote.js';
import { formatKeyLine, nameProblem } from './approvers.js';
import { type KeyRef, keyFingerprint, rawPublicKey } from './plan-doc.js';

export const KEY_FORMAT = 'payops-key/1';
export const PASSPHRASE_ENV = 'PAYOPS_KEY_PASSPHRASE';

interface StoredKey {
  format: typeof KEY_FORMAT;
  name: string;
  fingerprint: string;
  publicKey: string;
  encrypted: boolean;
  /** PKCS#8 PEM; encrypted with aes-256-cbc when `encrypted`. */
  privateKey: string;
}

export interface PersonalKey {
  ref: KeyRef;
  privateKey: KeyObject;
}

export function keyFilePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'keys', 'personal.json');
}

const NO_KEY_HINT = 'make one with `payops keys create --name "Your Name"`';

/** The stored key file, or undefined when there is none. */
function readStored(env: NodeJS.ProcessEnv): StoredKey | undefined {
  const path = keyFilePath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read your key ${quote(path)}: ${(err as Error).message}`);
  }
  tightenFileMode(path);
  let v: Partial<StoredKey>;
  try {
    v = JSON.parse(text) as Partial<StoredKey>;
  } catch {
    v = {};
  }
  if (
    v.format !== KEY_FORMAT ||
    typeof v.name !== 'string' ||
    typeof v.fingerprint !== 'string' ||
    typeof v.publicKey !== 'string' ||
    typeof v.privateKey !== 'string' ||
    typeof v.encrypted !== 'boolean'
  ) {
    throw new ConfigError(`your key file ${quote(path)} is damaged`, {
      hint: 'restore it from a backup, or make a new key with `payops keys create --force` (and replace your line in the approvers file)',
    });
  }
  return v as StoredKey;
}

/** Your public key (`payops keys show`); no passphrase needed. */
export function readPublicKey(env: NodeJS.ProcessEnv): KeyRef {
  const stored = readStored(env);
  if (!stored) throw new ConfigError(`you have no key in ${quote(keyFilePath(env))}`, { hint: NO_KEY_HINT });
  return { name: stored.name, fingerprint: stored.fingerprint, publicKey: stored.publicKey };
}

async function askPassphrase(ctx: Invocation, twice: boolean): Promise<string> {
  return ask(
    ctx.io,
    async ({ password }, streams) => {
      const first = await password({ message: 'passphrase for your key:', mask: '*' }, streams);
      if (!twice) return first;
      const again = await password({ message: 'the same passphrase again:', mask: '*' }, streams);
      if (again !== first) throw new UsageError('the two passphrases differ; no key was made');
      return first;
    },
    'saved',
  );
}

/** The passphrase a new key is encrypted with, or undefined for none. */
async function newPassphrase(ctx: Invocation, asked: boolean): Promise<string | undefined> {
  const fromEnv = ctx.io.env[PASSPHRASE_ENV];
  // Masked in every error report and log line, should any ever quote it.
  ctx.addSecret(fromEnv);
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (!asked) return undefined;
  if (!canAsk(ctx.io)) {
    throw new UsageError('--passphrase asks for the passphrase at a terminal, and there is none', {
      hint: `set ${PASSPHRASE_ENV} instead`,
    });
  }
  const pass = await askPassphrase(ctx, true);
  if (pass === '') throw new UsageError('the passphrase is empty; no key was made');
  ctx.addSecret(pass);
  return pass;
}

export interface CreateKeyOptions {
  name: string;
  passphrase?: boolean;
  force?: boolean;
}

/** Makes and stores a new key pair; returns its public half and whether it is encrypted. */
export async function createKey(
  ctx: Invocation,
  opts: CreateKeyOptions,
): Promise<{ ref: KeyRef; encrypted: boolean; path: string; replaced: boolean }> {
  const problem = nameProblem(opts.name);
  if (problem)
    throw new UsageError(`--name: ${problem}`, {
      hint: 'your name as your team knows it, e.g. --name "Ana Silva"',
    });
  const { env } = ctx.io;
  const path = keyFilePath(env);
  const existing = readStoredOrDamaged(env);
  if (existing && !opts.force) {
    throw new UsageError(
      `you have a key already in ${quote(path)}${existing === 'damaged' ? ' (damaged)' : ` (${existing.fingerprint})`}`,
      {
        hint: '--force replaces it: plans you signed with it can no longer be checked against a new line, so replace your line in the approvers file too',
      },
    );
  }
  const passphrase = await newPassphrase(ctx, Boolean(opts.passphrase));
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  const ref: KeyRef = {
    name: opts.name,
    fingerprint: keyFingerprint(raw),
    publicKey: raw.toString('base64url'),
  };
  const pem = (
    passphrase === undefined
      ? privateKey.export({ type: 'pkcs8', format: 'pem' })
      : privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase })
  ).toString();
  const stored: StoredKey = {
    format: KEY_FORMAT,
    ...ref,
    encrypted: passphrase !== undefined,
    privateKey: pem,
  };
  try {
    mkdirSync(join(configDir(env), 'keys'), { recursive: true, mode: CONFIG_DIR_MODE });
    writeJsonAtomic(path, stored, CONFIG_FILE_MODE);
  } catch (err) {
    throw new ConfigError(`cannot write your key to ${quote(path)}: ${(err as Error).message}`, {
      hint: 'point PAYOPS_HOME at a folder you can write to',
    });
  }
  return { ref, encrypted: stored.encrypted, path, replaced: existing !== undefined };
}

function readStoredOrDamaged(env: NodeJS.ProcessEnv): StoredKey | 'damaged' | undefined {
  try {
    return readStored(env);
  } catch {
    return 'damaged';
  }
}

/**
 * Your key to sign with: its passphrase from PAYOPS_KEY_PASSPHRASE, else asked at a terminal.
 * Refused when there is none, or the passphrase does not open it.
 */
export async function loadSigningKey(ctx: Invocation): Promise<PersonalKey> {
  const { env } = ctx.io;
  const stored = readStored(env);
  if (!stored) {
    throw new ConfigError(`you have no key to sign with (${quote(keyFilePath(env))})`, { hint: NO_KEY_HINT });
  }
  let passphrase: string | undefined;
  if (stored.encrypted) {
    const fromEnv = env[PASSPHRASE_ENV];
    if (fromEnv !== undefined && fromEnv !== '') passphrase = fromEnv;
    else if (canAsk(ctx.io)) passphrase = await askPassphrase(ctx, false);
    else {
      throw new UsageError('your key is protected by a passphrase, and there is no terminal to ask it at', {
        hint: `set ${PASSPHRASE_ENV}`,
      });
    }
  }
  ctx.addSecret(passphrase);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(
      passphrase === undefined
        ? { key: stored.privateKey, format: 'pem' }
        : { key: stored.privateKey, format: 'pem', passphrase },
    );
  } catch {
    // The library's message is not shown: nothing of the key or the passphrase leaves here.
    throw new UsageError(
      stored.encrypted
        ? 'the passphrase does not open your key'
        : `your key file ${quote(keyFilePath(env))} is damaged`,
    );
  }
  const ref: KeyRef = { name: stored.name, fingerprint: stored.fingerprint, publicKey: stored.publicKey };
  const raw = rawPublicKey(createPublicKey(privateKey));
  if (
    privateKey.asymmetricKeyType !== 'ed25519' ||
    raw.toString('base64url') !== ref.publicKey ||
    keyFingerprint(raw) !== ref.fingerprint
  ) {
    throw new ConfigError(
      `your key file ${quote(keyFilePath(env))} is damaged: its private key is not its public key`,
    );
  }
  return { ref, privateKey };
}

/** `payops keys create`. */
export async function runKeysCreate(ctx: Invocation, opts: CreateKeyOptions): Promise<number> {
  const made = await createKey(ctx, opts);
  ctx.io.stdout.write(`${formatKeyLine(made.ref)}\n`);
  ctx.log.info(
    `${made.replaced ? 'replaced your key' : 'made your key'} in ${made.path} (mode 0600${made.encrypted ? ', protected by your passphrase' : ', no passphrase'})`,
  );
  ctx.log.info("next: add the line above to your team's approvers file (docs/approvals.md)");
  return 0;
}

/** `payops keys show`: the one line for the approvers file. */
export async function runKeysShow(ctx: Invocation): Promise<number> {
  ctx.io.stdout.write(`${formatKeyLine(readPublicKey(ctx.io.env))}\n`);
  return 0;
}
