// Human words for codes (design.md §1.3), with the profile's overrides of payment_status labels.

import { PAYMENT_STATUS_LABELS } from '../gateway/types.js';
import { formatMoney, parseAmount } from '../money/amount.js';

export type StatusLabels = Readonly<Record<string, string>>;

/** The label of a payment_status code: the profile's word, else design.md §1.3's, else "unknown". */
export function statusLabel(code: string | undefined, overrides: StatusLabels = {}): string {
  if (code === undefined || code === '') return 'unknown';
  return overrides[code] ?? PAYMENT_STATUS_LABELS[code] ?? 'unknown';
}

/** `3000 captured`. */
export function statusText(code: string | undefined, overrides: StatusLabels = {}): string {
  return `${code || '?'} ${statusLabel(code, overrides)}`;
}

/** `USD 1,234.50` for a valid amount; the gateway's text as it came otherwise (never guessed). */
export function moneyText(amount: string | undefined, currency: string | undefined): string {
  const parsed = parseAmount(amount ?? '', currency ?? '');
  if (parsed.ok) return formatMoney(parsed.minor, currency!);
  return `${currency ?? ''} ${amount ?? ''}`.trim();
}

/** `1`/`0` flags as yes/no; anything else as it came. */
export function yesNo(flag: string | undefined): string {
  if (flag === '1' || flag?.toLowerCase() === 'true' || flag?.toLowerCase() === 'y') return 'yes';
  if (flag === '0' || flag?.toLowerCase() === 'false' || flag?.toLowerCase() === 'n') return 'no';
  return flag || '—';
}

/** Per-order `*_status`, `query_result`: `1` success, `0` failure. */
export function successText(flag: string | undefined): string {
  if (flag === '1') return 'ok';
  if (flag === '0') return 'failed';
  return flag || '—';
}
