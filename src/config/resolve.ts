// Configuration resolution: flag > environment > profile > default, in one pure function that also
// records where each value came from (shown by `payops config list` and in error hints).

import { ConfigError } from '../errors.js';
import type { GlobalOptions } from '../io.js';
import { SANDBOX_CREDENTIALS } from '../sandbox/accounts.js';
import {
  type ConfigKey,
  DEFAULT_CONCURRENCY,
  DEFAULT_PROFILE,
  DEFAULT_SETTLE_MS,
  DEFAULT_TIMEOUT_MS,
  ENV_VARS,
  MAX_SETTLE_MS,
  type ProfileValues,
  parseDuration,
  SANDBOX_BASE_URL,
  type StoredConfig,
} from './keys.js';

export type ConfigSource = 'flag' | 'env' | 'profile' | 'default' | 'sandbox';

export interface ResolvedConfig {
  profile: string;
  /** Empty until the sandbox has started when `sandbox` is true. */
  baseUrl: string;
  merchantId: string;
  accountId: string;
  signKey: string | undefined;
  timeoutMs: number;
  concurrency: number;
  /** Requests per second at most (--rate, profile key rate); undefined: no limit. */
  rate: number | undefined;
  /** How long after a lost request its rows may be concluded not applied (settle_time, ms). */
  settleMs: number;
  readOnly: boolean;
  /** payment_status code → label overrides of the profile. */
  statusLabels: Record<string, string>;
  /** confirm_typed_above of the profile (`USD:10000,EUR:8000`), when set. */
  confirmTypedAbove?: string;
  /** The profile's decimal_mark for CSV amounts; undefined: detected per file. */
  decimalMark?: '.' | ',';
  /** The profile's columns.<command> mappings (`transaction_id=Txn Ref,…`), by command. */
  columns?: Record<string, string>;
  /** The team's approvers file (approvers_file), as written in the profile (issue 28). */
  approversFile?: string;
  /** approval_required: `always`, `never`, or per-currency thresholds (`USD:1000,*:1000`); absent: never. */
  approvalRequired?: string;
  /** How many approvers other than the maker a plan needs (approvals; default 1). */
  approvals?: number;
  /** Whether the in-process sandbox serves this invocation, and why. */
  sandbox: boolean;
  sandboxReason?: 'flag' | 'base_url' | 'unconfigured';
  /** Whether the selected profile exists in the config file. */
  profileExists: boolean;
  /** Where each value came from. */
  sources: Record<ConfigKey | 'profile', ConfigSource>;
}

export type ConfigFlags = Pick<
  GlobalOptions,
  | 'profile'
  | 'sandbox'
  | 'baseUrl'
  | 'merchantId'
  | 'accountId'
  | 'signKey'
  | 'timeout'
  | 'concurrency'
  | 'rate'
>;

const present = (v: string | undefined): v is string => v !== undefined && v !== '';

/** The profile an invocation uses: --profile > PAYOPS_PROFILE > the file's current > "default". */
export function selectProfile(
  flags: Pick<ConfigFlags, 'profile'>,
  env: NodeJS.ProcessEnv,
  stored: StoredConfig,
): { name: string; source: ConfigSource } {
  if (present(flags.profile)) return { name: flags.profile, source: 'flag' };
  const fromEnv = env[ENV_VARS.profile];
  if (present(fromEnv)) return { name: fromEnv, source: 'env' };
  if (present(stored.current)) return { name: stored.current, source: 'profile' };
  return { name: DEFAULT_PROFILE, source: 'default' };
}

export function resolveConfig(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv,
  stored: StoredConfig,
): ResolvedConfig {
  const sources = {} as ResolvedConfig['sources'];
  const selected = selectProfile(flags, env, stored);
  const profile = selected.name;
  sources.profile = selected.source;

  const values: ProfileValues = stored.profiles?.[profile] ?? {};
  const profileExists = stored.profiles?.[profile] !== undefined;

  function pick<T>(key: ConfigKey, flag: T | undefined, envName: string | undefined, fallback: T): T {
    if (flag !== undefined && flag !== '') {
      sources[key] = 'flag';
      return flag;
    }
    const fromEnv = envName ? env[envName] : undefined;
    if (present(fromEnv)) {
      sources[key] = 'env';
      return fromEnv as T;
    }
    const stored = values[key];
    if (stored !== undefined && stored !== '') {
      sources[key] = 'profile';
      return stored as T;
    }
    sources[key] = 'default';
    return fallback;
  }

  const baseUrl = pick<string>('base_url', flags.baseUrl, ENV_VARS.base_url, '');
  const merchantId = pick<string>('merchant_id', flags.merchantId, ENV_VARS.merchant_id, '');
  const accountId = pick<string>('account_id', flags.accountId, ENV_VARS.account_id, '');
  const signKey = pick<string | undefined>('sign_key', flags.signKey, ENV_VARS.sign_key, undefined);
  const timeoutMs = pick<number>('timeout', flags.timeout, undefined, DEFAULT_TIMEOUT_MS);
  const concurrency = pick<number>('concurrency', flags.concurrency, undefined, DEFAULT_CONCURRENCY);
  const rate = pick<number | undefined>('rate', flags.rate, undefined, undefined);
  if (rate !== undefined && (!Number.isInteger(rate) || rate < 1)) {
    throw new ConfigError(`profile "${profile}" has an invalid rate: expected a whole number ≥ 1`, {
      hint: `payops config set rate VALUE --profile ${profile}`,
    });
  }
  const settleMs = settleFrom(
    pick<number | string>('settle_time', undefined, ENV_VARS.settle_time, DEFAULT_SETTLE_MS),
  );
  const readOnly = pick<boolean>('read_only', undefined, undefined, false);
  const statusLabels = pick<Record<string, string>>('status_labels', undefined, undefined, {});
  const confirmTypedAbove = pick<string>('confirm_typed_above', undefined, undefined, '');
  const decimalMark = pick<'.' | ',' | undefined>('decimal_mark', undefined, undefined, undefined);
  const approversFile = pick<string | undefined>('approvers_file', undefined, undefined, undefined);
  const approvalRequired = pick<string | undefined>('approval_required', undefined, undefined, undefined);
  const approvals = pick<number | undefined>('approvals', undefined, undefined, undefined);
  // Fail closed: a hand-edited 0 would let a plan nobody approved run (config set refuses it).
  if (approvals !== undefined && (!Number.isInteger(approvals) || approvals < 1 || approvals > 9)) {
    throw new ConfigError(
      `profile "${profile}" has an invalid approvals: expected a whole number from 1 to 9, not ${JSON.stringify(approvals)}`,
      { hint: `payops config set approvals 1 --profile ${profile}` },
    );
  }
  const columns: Record<string, string> = {};
  for (const op of ['refund', 'capture', 'cancel', 'review', 'payout', 'query'] as const) {
    const text = pick<string | undefined>(`columns.${op}`, undefined, undefined, undefined);
    if (text !== undefined) columns[op] = text;
  }

  checkStored(profile, {
    timeout: timeoutMs,
    concurrency,
    settle_time: settleMs,
    read_only: readOnly,
    status_labels: statusLabels,
  });

  let sandboxReason: ResolvedConfig['sandboxReason'];
  if (flags.sandbox) sandboxReason = 'flag';
  else if (baseUrl === SANDBOX_BASE_URL) sandboxReason = 'base_url';
  else if (baseUrl === '') {
    assertNoCredentialsWithoutGateway(profile, sources, { merchantId, accountId, signKey });
    assertNothingConfigured(profile, flags, env, stored);
    sandboxReason = 'unconfigured';
  }

  return {
    profile,
    baseUrl: sandboxReason ? '' : baseUrl.replace(/\/+$/, ''),
    merchantId,
    accountId,
    signKey,
    timeoutMs,
    concurrency,
    rate,
    settleMs,
    readOnly,
    statusLabels,
    ...(confirmTypedAbove ? { confirmTypedAbove } : {}),
    ...(decimalMark === '.' || decimalMark === ',' ? { decimalMark } : {}),
    ...(Object.keys(columns).length > 0 ? { columns } : {}),
    ...(approversFile ? { approversFile } : {}),
    ...(approvalRequired ? { approvalRequired } : {}),
    ...(approvals !== undefined ? { approvals } : {}),
    sandbox: sandboxReason !== undefined,
    ...(sandboxReason ? { sandboxReason } : {}),
    profileExists,
    sources,
  };
}

/** The sandbox's public demo values: set alone, they still mean "try it on the sandbox". */
function isDemoValue(key: 'merchant_id' | 'account_id' | 'sign_key', value: string): boolean {
  if (key === 'merchant_id') return value === SANDBOX_CREDENTIALS.merchantId;
  // The demo merchant's accounts are 800001001, 800001002, …
  if (key === 'account_id') return value.startsWith(SANDBOX_CREDENTIALS.merchantId);
  return value === SANDBOX_CREDENTIALS.signKey;
}

/**
 * No base_url, but a merchant id, account id or sign key of a real account: the user meant a real
 * gateway and forgot its address. Falling back to the built-in sandbox would report refunds that
 * never happened as succeeded (exit 0), so it is a configuration error unless --sandbox says
 * otherwise. Only where each value came from is shown, never the values.
 */
function assertNoCredentialsWithoutGateway(
  profile: string,
  sources: ResolvedConfig['sources'],
  values: { merchantId: string; accountId: string; signKey: string | undefined },
): void {
  const set = (
    [
      ['merchant_id', values.merchantId],
      ['account_id', values.accountId],
      ['sign_key', values.signKey ?? ''],
    ] as const
  ).filter(([key, value]) => present(value) && !isDemoValue(key, value));
  if (set.length === 0) return;
  const from = (key: ConfigKey) => {
    const source = sources[key];
    if (source === 'env') return ENV_VARS[key as keyof typeof ENV_VARS];
    if (source === 'flag') return `--${key.replace('_', '-')}`;
    return `profile "${profile}"`;
  };
  const where = set.map(([key]) => `${key} from ${from(key)}`).join(', ');
  throw new ConfigError(
    `no base_url is configured, but credentials are (${where}): payops will not send a real account's work to the built-in sandbox`,
    {
      hint: setBaseUrlHint(profile),
    },
  );
}

/** The hint of every "no base_url" refusal: the profile's own command, runnable as printed. */
export function setBaseUrlHint(profile: string): string {
  return `set the gateway's address: \`payops --profile ${profile} config set base_url URL\` (or export ${ENV_VARS.base_url}=URL); add --sandbox to try the command against the built-in sandbox (made-up data, nothing real is sent)`;
}

/**
 * No base_url, and something is configured (a profile file, a PAYOPS_* setting, a credential flag):
 * the built-in sandbox would answer with its made-up sample orders as if they were real (issue 24:
 * a read-only support profile read a sample order to a customer). Only a machine where nothing at
 * all is configured — a first try — gets the sandbox without asking for it.
 */
function assertNothingConfigured(
  profile: string,
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv,
  stored: StoredConfig,
): void {
  const why: string[] = [];
  if (Object.keys(stored.profiles ?? {}).length > 0 || present(stored.current)) {
    why.push(stored.profiles?.[profile] ? `profile "${profile}" has none` : 'a config file exists');
  }
  for (const [key, name] of Object.entries(ENV_VARS)) {
    // PAYOPS_PROFILE names a profile, which either exists (a config file) or is refused by load.ts.
    if (key !== 'home' && key !== 'profile' && present(env[name])) why.push(`${name} is set`);
  }
  for (const [flag, value] of [
    ['--merchant-id', flags.merchantId],
    ['--account-id', flags.accountId],
    ['--sign-key', flags.signKey],
  ] as const) {
    if (present(value)) why.push(`${flag} is given`);
  }
  if (why.length === 0) return;
  throw new ConfigError(
    `profile "${profile}" has no base_url (${why.join(', ')}): payops will not answer from the built-in sandbox's made-up data instead`,
    { hint: setBaseUrlHint(profile) },
  );
}

/** PAYOPS_SETTLE_TIME is a duration (`30s`); the profile holds milliseconds. */
function settleFrom(v: number | string): number {
  if (typeof v === 'number') return v;
  const ms = parseDuration(v);
  if (ms === undefined || ms > MAX_SETTLE_MS) {
    throw new ConfigError(
      `${ENV_VARS.settle_time} must be a duration such as 30s, 2m or 500ms (at most 1h), not "${v}"`,
    );
  }
  return ms;
}

/** A hand-edited config file may hold values of the wrong type: say which, and how to fix it. */
function checkStored(
  profile: string,
  v: Required<Pick<ProfileValues, 'timeout' | 'concurrency' | 'settle_time' | 'read_only' | 'status_labels'>>,
) {
  const fail = (key: string, expected: string) =>
    new ConfigError(`profile "${profile}" has an invalid ${key}: expected ${expected}`, {
      hint: `payops config set ${key} VALUE --profile ${profile}`,
    });
  if (!Number.isInteger(v.timeout) || v.timeout < 1) throw fail('timeout', 'a whole number of ms');
  if (!Number.isInteger(v.concurrency) || v.concurrency < 1) throw fail('concurrency', 'a whole number ≥ 1');
  if (!Number.isInteger(v.settle_time) || v.settle_time < 0) {
    throw fail('settle_time', 'a duration such as 30s (stored as milliseconds)');
  }
  if (typeof v.read_only !== 'boolean') throw fail('read_only', 'true or false');
  if (typeof v.status_labels !== 'object' || v.status_labels === null || Array.isArray(v.status_labels)) {
    throw fail('status_labels', 'a JSON object');
  }
}

/** Refuse a money-moving command under a read-only profile (exit 4). */
export function assertMayMoveMoney(
  config: Pick<ResolvedConfig, 'readOnly' | 'profile'>,
  what = 'this command',
): void {
  if (config.readOnly) {
    throw new ConfigError(`profile "${config.profile}" is read-only: ${what} moves money and was refused`, {
      // Names the profile, and not how to lift the restriction: a read-only profile is how a team
      // keeps a support agent's machine from moving money (issue 24).
      hint: `profile "${config.profile}" is for looking up payments only; ask whoever runs payments to do this`,
    });
  }
}
