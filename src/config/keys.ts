// The configuration keys, declared once: name, environment variable, and how a value is checked.
import { UsageError } from '../errors.js';
import { currencyInfo } from '../money/currency.js';

export const CONFIG_KEYS = [
  'base_url',
  'merchant_id',
  'account_id',
  'sign_key',
  'timeout',
  'concurrency',
  'rate',
  'settle_time',
  'read_only',
  'status_labels',
  'confirm_typed_above',
  'decimal_mark',
  'columns.refund',
  'columns.capture',
  'columns.cancel',
  'columns.review',
  'columns.payout',
  'columns.query',
  'approvers_file',
  'approval_required',
  'approvals',
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** A profile as stored in the config file. */
export interface ProfileValues {
  base_url?: string;
  merchant_id?: string;
  account_id?: string;
  sign_key?: string;
  timeout?: number;
  concurrency?: number;
  /** Requests per second at most (none when absent). */
  rate?: number;
  /** Milliseconds (given as a duration: 30s, 2m, 500ms). */
  settle_time?: number;
  read_only?: boolean;
  status_labels?: Record<string, string>;
  /** `USD:10000,EUR:8000,*:5000`: above these totals, a run's confirmation is the number of rows, typed. */
  confirm_typed_above?: string;
  /** The decimal mark of the amounts in this profile's CSV files: "." or ",". */
  decimal_mark?: '.' | ',';
  /** `transaction_id=Txn Ref,order_no=Invoice`: a command's columns under other headers (as --columns). */
  'columns.refund'?: string;
  'columns.capture'?: string;
  'columns.cancel'?: string;
  'columns.review'?: string;
  /** Payout files' fields under other headers (`payment_amount=Amount,beneficiary.bank_details.iban=IBAN`). */
  'columns.payout'?: string;
  /** The order_no / transaction_id columns of `query --file` and `refunds search --file`. */
  'columns.query'?: string;
  /** Path of the team's approvers file: one `payops keys show` line per person (issue 28). */
  approvers_file?: string;
  /** `always`, `never`, or `USD:1000,EUR:1000,*:1000`: money-moving runs above it need an approved plan. */
  approval_required?: string;
  /** Distinct approvers (other than the maker) a plan needs: 1–9, default 1. */
  approvals?: number;
}

/** The whole config file. */
export interface StoredConfig {
  current?: string;
  profiles?: Record<string, ProfileValues>;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 64;
export const MAX_TIMEOUT_MS = 600_000;
/** --rate's ceiling: requests per second. */
export const MAX_RATE = 10_000;
/**
 * How long after a lost request payops waits before concluding, from the gateway's records, that it
 * was not applied and sending it again: a gateway may commit a request after a 500 or a timeout.
 */
export const DEFAULT_SETTLE_MS = 30_000;
export const MAX_SETTLE_MS = 3_600_000;
/** `base_url` value meaning "the built-in sandbox". */
export const SANDBOX_BASE_URL = 'sandbox';

export const ENV_VARS = {
  profile: 'PAYOPS_PROFILE',
  base_url: 'PAYOPS_BASE_URL',
  merchant_id: 'PAYOPS_MERCHANT_ID',
  account_id: 'PAYOPS_ACCOUNT_ID',
  sign_key: 'PAYOPS_SIGN_KEY',
  settle_time: 'PAYOPS_SETTLE_TIME',
  home: 'PAYOPS_HOME',
} as const;

export const KEY_HELP: Record<ConfigKey, string> = {
  base_url: 'gateway address, https://… (or "sandbox" for the built-in sandbox)',
  merchant_id: 'merchant id given by the gateway',
  account_id: 'account id given by the gateway',
  sign_key: 'key that signs requests (never printed)',
  timeout: `per-request timeout: ms, or a duration such as 30s (default ${DEFAULT_TIMEOUT_MS} ms)`,
  concurrency: `requests in flight at once, 1–${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY})`,
  rate: `requests per second at most, all requests of a command counted, 1–${MAX_RATE} (default: no limit)`,
  settle_time: `wait after a lost request before concluding it was not applied: 30s, 2m, 500ms (default ${DEFAULT_SETTLE_MS / 1000}s)`,
  read_only: 'true: money-moving commands refuse to run (support profiles)',
  status_labels: 'JSON object of payment_status code → label overrides',
  confirm_typed_above:
    'CURRENCY:AMOUNT[,…] (e.g. USD:10000,EUR:8000,*:5000; * is any other currency): above it, confirm a run by typing its number of rows',
  decimal_mark: 'decimal mark of amounts in CSV files: "." or "," (default: detected per file)',
  'columns.refund': "COLUMN=HEADER[,…]: refund files' columns under other headers, as --columns",
  'columns.capture': "COLUMN=HEADER[,…]: capture files' columns under other headers, as --columns",
  'columns.cancel': "COLUMN=HEADER[,…]: cancel files' columns under other headers, as --columns",
  'columns.review': "COLUMN=HEADER[,…]: review files' columns under other headers, as --columns",
  'columns.payout': "FIELD=HEADER[,…]: payout files' fields under other headers, as --columns",
  'columns.query': 'COLUMN=HEADER[,…]: the order_no/transaction_id columns of query --file, as --columns',
  approvers_file: "path of the team's approvers file (one `payops keys show` line per person)",
  approval_required:
    'always, never, or CURRENCY:AMOUNT[,…] (*: any other currency): runs above it need an approved plan (docs/approvals.md)',
  approvals: 'how many approvers other than the maker a plan needs, 1–9 (default 1)',
};

export function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
}

export function assertConfigKey(key: string): ConfigKey {
  const normal = key.replace(/-/g, '_').toLowerCase();
  if (!isConfigKey(normal)) {
    throw new UsageError(`unknown configuration key "${key}"`, { hint: `keys: ${CONFIG_KEYS.join(', ')}` });
  }
  return normal;
}

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Check and convert a value given as text (command line, prompt) into its stored form. */
export function parseConfigValue(key: ConfigKey, text: string): ProfileValues[ConfigKey] {
  const value = text.trim();
  const bad = (expected: string) =>
    new UsageError(`invalid ${key} "${key === 'sign_key' ? '…' : value}": expected ${expected}`);
  switch (key) {
    case 'base_url': {
      if (value === SANDBOX_BASE_URL) return value;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw bad('an address like https://gateway.example.com (or "sandbox")');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('an https:// address');
      if (url.search || url.hash) throw bad('an address without ?query or #fragment');
      // Never sent (the gateway is reached by its origin, requests are signed) and a secret in print.
      if (url.username || url.password)
        throw bad('an address without user:password@ (the sign key authenticates)');
      return value.replace(/\/+$/, '');
    }
    case 'merchant_id':
    case 'account_id':
      if (!ID_PATTERN.test(value)) throw bad('letters, digits, ".", "_" or "-" (1–64 characters)');
      return value;
    case 'sign_key':
      if (value.length < 8 || /\s/.test(value)) throw bad('at least 8 characters without spaces');
      return value;
    case 'timeout': {
      const ms = parseTimeout(value);
      if (ms === undefined) throw bad(TIMEOUT_EXPECTED);
      return ms;
    }
    case 'concurrency':
      return parseIntIn(value, 1, MAX_CONCURRENCY, bad);
    case 'rate':
      return parseIntIn(value, 1, MAX_RATE, bad);
    case 'settle_time': {
      const ms = parseDuration(value);
      if (ms === undefined || ms > MAX_SETTLE_MS)
        throw bad('a duration such as 30s, 2m or 500ms (at most 1h)');
      return ms;
    }
    case 'read_only': {
      const v = value.toLowerCase();
      if (['true', 'yes', '1', 'on'].includes(v)) return true;
      if (['false', 'no', '0', 'off'].includes(v)) return false;
      throw bad('true or false');
    }
    case 'status_labels': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw bad('a JSON object such as {"3000":"settled"}');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('a JSON object');
      for (const [code, label] of Object.entries(parsed)) {
        if (!/^\d{4}$/.test(code) || typeof label !== 'string') {
          throw bad('a JSON object of 4-digit codes to text labels, such as {"3000":"settled"}');
        }
      }
      return parsed as Record<string, string>;
    }
    case 'confirm_typed_above': {
      const parts = value.split(',').map((p) => p.trim());
      const normal = parts.map((p) => {
        // `*` is the limit of every currency not named (issue 27).
        const m = /^([A-Za-z]{3}|\*)\s*:\s*(\d+(?:\.\d+)?)$/.exec(p);
        if (!m)
          throw bad(
            'CURRENCY:AMOUNT, comma-separated, such as USD:10000,EUR:8000 (*:AMOUNT: any other currency)',
          );
        return `${m[1]!.toUpperCase()}:${m[2]}`;
      });
      return normal.join(',');
    }
    case 'columns.refund':
    case 'columns.capture':
    case 'columns.cancel':
    case 'columns.review':
    case 'columns.payout':
    case 'columns.query': {
      const pairs = value.split(',').filter((p) => p.trim() !== '');
      // A payout's columns are field paths (beneficiary.bank_details.iban).
      if (pairs.length === 0 || pairs.some((p) => !/^\s*[A-Za-z_][A-Za-z_.]*\s*=\s*\S/.test(p))) {
        throw bad('COLUMN=HEADER pairs, comma-separated, such as transaction_id=Txn Ref,order_no=Invoice');
      }
      return value;
    }
    case 'approvers_file':
      if (value === '' || /[\0\n\r]/.test(value)) throw bad('a file path');
      return value;
    case 'approval_required': {
      const v = value.toLowerCase();
      if (v === 'always' || v === 'never') return v;
      const parts = value.split(',').map((p) => p.trim());
      const seen = new Set<string>();
      const normal = parts.map((p) => {
        const m = /^([A-Za-z]{3}|\*)\s*:\s*(\d+(?:\.\d+)?)$/.exec(p);
        if (!m) throw bad('always, never, or CURRENCY:AMOUNT pairs such as USD:1000,EUR:1000,*:1000');
        const code = m[1]!.toUpperCase();
        // As a run reads it (approval/policy.ts): an ISO 4217 code or *, each once.
        if (code !== '*' && currencyInfo(code) === undefined)
          throw bad(`an ISO 4217 currency code, not ${code}`);
        if (seen.has(code)) throw bad(`${code} once`);
        seen.add(code);
        return `${code}:${m[2]}`;
      });
      return normal.join(',');
    }
    case 'approvals':
      return parseIntIn(value, 1, 9, bad);
    case 'decimal_mark': {
      const v = value.toLowerCase();
      if (v === '.' || v === 'dot' || v === 'point') return '.';
      if (v === ',' || v === 'comma') return ',';
      throw bad('"." or ","');
    }
  }
}

/** `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds → milliseconds; undefined if unreadable. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = (m[2] ?? 's').toLowerCase();
  const scale = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  const ms = Math.round(Number(m[1]) * scale);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** What a timeout may be, said once for the flag and the profile key. */
export const TIMEOUT_EXPECTED = 'milliseconds (30000) or a duration such as 30s or 2m (at most 10m)';

/**
 * A timeout: a bare whole number is milliseconds (as it always was), or a duration with its unit
 * (`30s`, `2m`, `500ms`) — the form --settle-time takes, so `--timeout 30s` is not refused beside
 * `--settle-time 30s`. Undefined when unreadable, zero or over MAX_TIMEOUT_MS.
 */
export function parseTimeout(text: string): number | undefined {
  const t = text.trim();
  const ms = /^\d+$/.test(t) ? Number(t) : /[a-z]$/i.test(t) ? parseDuration(t) : undefined;
  return ms !== undefined && Number.isSafeInteger(ms) && ms >= 1 && ms <= MAX_TIMEOUT_MS ? ms : undefined;
}

/** Milliseconds as the shortest exact duration: 30000 → 30s, 90000 → 90s, 500 → 500ms. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function parseIntIn(value: string, min: number, max: number, bad: (e: string) => Error): number {
  if (!/^\d+$/.test(value)) throw bad(`a whole number from ${min} to ${max}`);
  const n = Number(value);
  if (n < min || n > max) throw bad(`a whole number from ${min} to ${max}`);
  return n;
}

/** The sign key shown to a person: never the key itself. */
export function maskSecret(value: string | undefined): string {
  if (!value) return 'not set';
  return 'set';
}
