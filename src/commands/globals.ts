// The options every command accepts (design.md §2), declared like a command's own options. The
// check at the end fails the type check when these declarations and GlobalOptions, which the rest
// of payops reads, drift apart.

import { MAX_CONCURRENCY, MAX_RATE } from '../config/keys.js';
import type { GlobalOptions } from '../io.js';
import { concurrency, rate, timeout } from './app.js';
import type { OptionSpecs, OptionsOf } from './define.js';

export const GLOBAL_OPTIONS = {
  profile: {
    type: 'string',
    value: 'name',
    description: 'configuration profile to use (env PAYOPS_PROFILE)',
  },
  sandbox: {
    type: 'boolean',
    description: 'start an in-process sandbox gateway and run the command against it',
  },
  output: {
    type: 'string',
    value: 'format',
    description: 'result format (default: table on a terminal, csv otherwise)',
    choices: ['table', 'csv', 'json'],
  },
  out: {
    type: 'string',
    value: 'file',
    description: 'write results to FILE (CSV; JSON when it ends in .json, a workbook in .xlsx)',
  },
  yes: {
    type: 'boolean',
    short: 'y',
    description: 'do not ask for confirmation (required without a terminal)',
  },
  'dry-run': { type: 'boolean', description: 'validate and print the plan; send nothing' },
  concurrency: {
    type: 'number',
    value: 'n',
    description: `requests in flight at once, 1–${MAX_CONCURRENCY} (default 4)`,
    parse: concurrency,
  },
  timeout: {
    type: 'number',
    value: 'ms',
    description: 'per-request timeout in milliseconds, or a duration such as 30s (default 30000)',
    parse: timeout,
  },
  rate: {
    type: 'number',
    value: 'n',
    description: `at most N requests per second (1–${MAX_RATE}), retries included (profile key rate; default: no limit)`,
    parse: rate,
  },
  'base-url': { type: 'string', value: 'url', description: 'gateway base URL (env PAYOPS_BASE_URL)' },
  'merchant-id': { type: 'string', value: 'id', description: 'merchant id (env PAYOPS_MERCHANT_ID)' },
  'account-id': { type: 'string', value: 'id', description: 'account id (env PAYOPS_ACCOUNT_ID)' },
  'sign-key': {
    type: 'string',
    value: 'key',
    description: 'sign key (prefer PAYOPS_SIGN_KEY or the profile: flags end up in shell history)',
  },
  'allow-insecure-http': {
    type: 'boolean',
    description: 'allow plain http:// to a host other than loopback',
  },
  verbose: {
    type: 'boolean',
    short: 'v',
    description: 'log each request (method, path, status, duration) to stderr',
  },
  debug: {
    type: 'boolean',
    description: 'also log request and response bodies (card data masked, secrets removed)',
  },
  wide: {
    type: 'boolean',
    description: 'tables show every value in full (otherwise long text is cut with … to fit)',
  },
  quiet: { type: 'boolean', short: 'q', description: 'print nothing on stderr but errors' },
  'no-color': {
    type: 'boolean',
    description: 'no colour (also NO_COLOR); colour is only ever used on a terminal',
  },
  'no-pager': {
    type: 'boolean',
    description: 'never page long output on a terminal (default: $PAYOPS_PAGER, $PAGER or less -FRX)',
  },
} as const satisfies OptionSpecs;

type Same<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
/** Fails to type-check unless the declarations above give exactly GlobalOptions. */
export type GlobalOptionsMatch<T extends true = Same<OptionsOf<typeof GLOBAL_OPTIONS>, GlobalOptions>> = T;
