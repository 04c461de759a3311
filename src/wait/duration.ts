// `--wait [DURATION]` of pay apm|checkout|card and payout: how long payops waits for a final state.
// Parsed before anything is read or sent, so a bad value costs nothing (exit 2).
import { parseDuration } from '../config/keys.js';
import { UsageError } from '../errors.js';
import { quote } from '../quote.js';

/** `--wait` alone: long enough for a shopper to finish on an issuer's page, short enough for a script. */
export const DEFAULT_WAIT_MS = 10 * 60_000;
/** A wait longer than a day is a job for `payops listen` and a handler, not a process left waiting. */
export const MAX_WAIT_MS = 24 * 3_600_000;

/**
 * The flag's value as milliseconds: undefined when not given, the default for `--wait` alone. A
 * value that is not a duration is refused, with the likely cause when it looks like a file name
 * (`payops payout --wait payouts.csv`: commander took the file as the flag's value).
 */
export function parseWaitFlag(value: string | true | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === true) return DEFAULT_WAIT_MS;
  const ms = parseDuration(value);
  if (ms !== undefined && ms > 0 && ms <= MAX_WAIT_MS) return ms;
  const looksLikeFile = /[./\\]/.test(value) && !/^\d+(\.\d+)?\s*(ms|s|m|h)?$/i.test(value.trim());
  throw new UsageError(`--wait: ${quote(value)} is not a duration; nothing was sent`, {
    hint: looksLikeFile
      ? `a word right after --wait is read as its duration: put the file before --wait, or give one (--wait 10m ${value})`
      : `a duration from 1s to 24h such as 90s, 5m or 1h (--wait alone waits ${DEFAULT_WAIT_MS / 60_000}m)`,
  });
}

/** 90000 → "1m30s", 600000 → "10m": the deadline as the user would type it. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', rest ? `${rest}s` : ''].join('') || '0s';
}
