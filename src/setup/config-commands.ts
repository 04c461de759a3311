// The `payops config` commands: turn arguments into store changes and views; no printing here
// beyond what config-view.ts renders.

import { readStoredConfig } from '../config/file.js';
import {
  assertConfigKey,
  CONFIG_KEYS,
  type ConfigKey,
  DEFAULT_CONCURRENCY,
  DEFAULT_SETTLE_MS,
  DEFAULT_TIMEOUT_MS,
  ENV_VARS,
  formatDuration,
  KEY_HELP,
  maskSecret,
  type ProfileValues,
  parseConfigValue,
  SANDBOX_BASE_URL,
} from '../config/keys.js';
import { configFile } from '../config/paths.js';
import { selectProfile } from '../config/resolve.js';
import { assertProfileName, type ConfigStore, openStore } from '../config/store.js';
import type { Context } from '../context.js';
import { ConfigError, UsageError } from '../errors.js';
import { type ProfileView, printConfigList, printValue } from './config-view.js';

function warnTightened(ctx: Context) {
  return (path: string) => ctx.log.warn(`warning: ${path} was readable by other users; its mode is now 0600`);
}

async function store(ctx: Context): Promise<ConfigStore> {
  return openStore(ctx.io.env, warnTightened(ctx));
}

/**
 * A base_url the signed requests would travel unencrypted over (plain http:// to another machine)
 * is refused when it is set, unless --allow-insecure-http: config set and config init alike.
 */
export async function assertSecureBaseUrl(value: string, allowHttp: boolean): Promise<void> {
  if (value === SANDBOX_BASE_URL || allowHttp) return;
  const url = new URL(value);
  if (url.protocol !== 'http:') return;
  const { isLoopbackHost } = await import('../gateway/transport.js');
  if (isLoopbackHost(url.hostname)) return;
  throw new UsageError(
    'plain http:// would send the signed requests unencrypted: use https:// (http:// only for a gateway on this machine)',
    { hint: 'pass --allow-insecure-http to store it anyway, if the network is trusted' },
  );
}

/** Display text of a stored value; the sign key only as set / not set. */
export function displayValue(key: ConfigKey, value: ProfileValues[ConfigKey] | undefined): string {
  if (key === 'sign_key') return maskSecret(value as string | undefined);
  if (value === undefined) return '';
  if (key === 'settle_time' && typeof value === 'number') return formatDuration(value);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export async function configSet(ctx: Context, keyArg: string, valueArg: string | undefined): Promise<number> {
  const key = assertConfigKey(keyArg);
  const s = await store(ctx);
  const profile = assertProfileName(selectProfile(ctx.globals, ctx.io.env, s.read()).name);
  let text = valueArg;
  if (key === 'sign_key') {
    if (text !== undefined) {
      ctx.log.warn(
        'warning: a sign key on the command line stays in your shell history; next time run `payops config set sign_key` without a value and type it at the prompt',
      );
    } else {
      text = await readSecret(ctx, `sign key for profile "${profile}"`);
    }
  } else if (text === undefined) {
    throw new UsageError(`config set ${key} needs a value`, { hint: `${key}: ${KEY_HELP[key]}` });
  }
  if (key === 'sign_key') ctx.addSecret(text);
  const value = parseConfigValue(key, text);
  // Refused now, as config init refuses it, rather than by the first command that sends (issue 27).
  if (key === 'base_url') await assertSecureBaseUrl(value as string, Boolean(ctx.globals.allowInsecureHttp));
  // A mapping is checked against the columns its command reads now, not on every later file.
  if (key.startsWith('columns.')) await assertColumnsMap(key, value as string);
  s.setValue(profile, key, value);
  ctx.log.info(
    key === 'sign_key'
      ? `sign_key set for profile "${profile}"`
      : `${key} = ${displayValue(key, value)} (profile "${profile}")`,
  );
  return 0;
}

/** columns.<command>: a mapping the command would refuse (a column it does not read, a header twice) is refused. */
async function assertColumnsMap(key: ConfigKey, text: string): Promise<void> {
  const command = key.slice('columns.'.length);
  const { parseColumnsMap } = await import('../tabular/column-match.js');
  let known: readonly string[] | undefined;
  if (command === 'query') known = ['order_no', 'transaction_id'];
  else if (command !== 'payout') {
    const { OPERATIONS } = await import('../bulk/operations.js');
    const { required, optional } = OPERATIONS[command as keyof typeof OPERATIONS].columns;
    known = [...required, ...optional];
  }
  const parsed = parseColumnsMap(text, known);
  if (typeof parsed === 'string') {
    throw new UsageError(`invalid ${key}: ${parsed}`, {
      hint: `COLUMN=HEADER pairs, comma-separated, e.g. payops config set ${key} 'transaction_id=Txn Ref,order_no=Invoice'`,
    });
  }
}

/** `payops config unset KEY`: the key leaves the current profile (a mapping no longer wanted, say). */
export async function configUnset(ctx: Context, keyArg: string): Promise<number> {
  const key = assertConfigKey(keyArg);
  const s = await store(ctx);
  const profile = assertProfileName(selectProfile(ctx.globals, ctx.io.env, s.read()).name);
  const had = s.read().profiles?.[profile]?.[key] !== undefined;
  s.unsetValue(profile, key);
  ctx.log.info(had ? `${key} unset (profile "${profile}")` : `${key} was not set in profile "${profile}"`);
  return 0;
}

const DEFAULTS: Partial<Record<ConfigKey, string>> = {
  timeout: String(DEFAULT_TIMEOUT_MS),
  concurrency: String(DEFAULT_CONCURRENCY),
  settle_time: `${DEFAULT_SETTLE_MS / 1000}s`,
  read_only: 'false',
};

export async function configGet(ctx: Context, keyArg: string): Promise<number> {
  const key = assertConfigKey(keyArg);
  const stored = readStoredConfig(ctx.io.env, warnTightened(ctx));
  const { name: profile } = selectProfile(ctx.globals, ctx.io.env, stored);
  const value = effectiveValue(ctx, key, stored.profiles?.[profile] ?? {});
  if (key === 'sign_key') {
    printValue(ctx.io, maskSecret(value.value as string | undefined));
    return 0;
  }
  const fallback = DEFAULTS[key];
  if (value.value === undefined && fallback !== undefined) {
    printValue(ctx.io, fallback);
    ctx.log.verbose('(default)');
    return 0;
  }
  if (value.value === undefined) {
    ctx.log.warn(`${key} is not set (profile "${profile}")`);
    return 1;
  }
  printValue(ctx.io, displayValue(key, value.value));
  if (value.source !== 'profile') ctx.log.verbose(`(from ${value.source})`);
  return 0;
}

/** Flag and environment win over the profile, as in resolveConfig. */
function effectiveValue(
  ctx: Context,
  key: ConfigKey,
  values: ProfileValues,
): { value: ProfileValues[ConfigKey] | undefined; source: string } {
  const g = ctx.globals;
  const flags: Partial<Record<ConfigKey, unknown>> = {
    base_url: g.baseUrl,
    merchant_id: g.merchantId,
    account_id: g.accountId,
    sign_key: g.signKey,
    timeout: g.timeout,
    concurrency: g.concurrency,
    rate: g.rate,
  };
  const flag = flags[key];
  if (flag !== undefined && flag !== '') return { value: flag as ProfileValues[ConfigKey], source: 'flag' };
  const envName = (ENV_VARS as Record<string, string>)[key];
  const env = envName ? ctx.io.env[envName] : undefined;
  if (env) return { value: env, source: `environment (${envName})` };
  return { value: values[key], source: 'profile' };
}

export async function configList(ctx: Context): Promise<number> {
  const stored = readStoredConfig(ctx.io.env, warnTightened(ctx));
  const current = selectProfile(ctx.globals, ctx.io.env, stored).name;
  const profiles: ProfileView[] = Object.entries(stored.profiles ?? {}).map(([name, values]) => ({
    name,
    current: name === current,
    values: CONFIG_KEYS.filter((k) => k === 'sign_key' || values[k] !== undefined).map((k) => [
      k,
      displayValue(k, values[k]),
    ]),
  }));
  printConfigList(
    ctx.io,
    { path: configFile(ctx.io.env), profiles },
    ctx.globals.output === 'json' ? 'json' : 'text',
  );
  if (profiles.length === 0) {
    // Only with no settings at all: credentials in the environment without a base URL are an error.
    const configured = [ENV_VARS.base_url, ENV_VARS.merchant_id, ENV_VARS.account_id, ENV_VARS.sign_key].some(
      (name) => ctx.io.env[name],
    );
    ctx.log.info(
      configured
        ? 'no profiles yet: run `payops config init`, or set PAYOPS_BASE_URL beside the settings below'
        : 'no profiles yet: run `payops config init` (commands use the built-in sandbox meanwhile)',
    );
  }
  for (const name of [ENV_VARS.base_url, ENV_VARS.merchant_id, ENV_VARS.account_id, ENV_VARS.sign_key]) {
    if (ctx.io.env[name]) ctx.log.info(`note: ${name} is set in the environment and overrides the profile`);
  }
  return 0;
}

export async function configUse(ctx: Context, profileArg: string): Promise<number> {
  const profile = assertProfileName(profileArg);
  const s = await store(ctx);
  const known = Object.keys(s.read().profiles ?? {});
  if (!known.includes(profile)) {
    throw new ConfigError(`there is no profile "${profile}"`, {
      hint: known.length
        ? `profiles: ${known.join(', ')} — or create it with \`payops config init --profile ${profile}\``
        : `create it with \`payops config init --profile ${profile}\``,
    });
  }
  s.setCurrent(profile);
  ctx.log.info(`now using profile "${profile}"`);
  if (ctx.io.env.PAYOPS_PROFILE)
    ctx.log.warn(`note: PAYOPS_PROFILE=${ctx.io.env.PAYOPS_PROFILE} still overrides it`);
  return 0;
}

export async function runConfigInit(ctx: Context): Promise<number> {
  return (await import('./config-init.js')).configInit(ctx, await store(ctx));
}

/** A secret from a hidden prompt on a terminal, or the first line of stdin otherwise. */
async function readSecret(ctx: Context, what: string): Promise<string> {
  if (ctx.io.stdin.isTTY) {
    const { ask } = await import('../output/prompt.js');
    return ask(ctx.io, ({ password }, streams) => password({ message: what, mask: '*' }, streams), 'saved');
  }
  const line = await firstLine(ctx.io.stdin);
  if (!line) {
    throw new UsageError(`no ${what} on stdin`, {
      hint: 'pipe it in (`payops config set sign_key < keyfile`) or run the command in a terminal to be asked',
    });
  }
  return line;
}

async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const nl = text.indexOf('\n');
    if (nl >= 0) return text.slice(0, nl).replace(/\r$/, '').trim();
    if (text.length > 4096) break;
  }
  return text.trim();
}
