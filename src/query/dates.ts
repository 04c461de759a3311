// Dates typed by a person (--from/--to) ⇄ the gateway's `YYYYMMDDhhmmss`, which is UTC (design.md §1.6).
//
// Decision: what a person types is read in their LOCAL time zone (the same zone payops shows dates in),
// unless `--utc` is given or the text carries its own zone (`Z`, `+01:00`). A date without a time is
// the whole day: 00:00:00 for --from, 23:59:59 for --to (the gateway's range is inclusive).
import { UsageError } from '../errors.js';
import { quote } from '../quote.js';

export const ACCEPTED_DATE_FORMATS =
  'YYYY-MM-DD, YYYY-MM-DD hh:mm[:ss], YYYYMMDD or YYYYMMDDhhmmss, optionally ending in Z or ±hh:mm';

export interface DateArgOptions {
  /** Which end of a range: a bare date means its first second for `start` and its last for `end`. */
  bound: 'start' | 'end';
  /** Read zone-less text as UTC instead of local time. */
  utc: boolean;
  /** Flag name for messages (`--from`). */
  flag: string;
}

const DASHED = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Parse a --from/--to value; throws UsageError (exit 2) naming the accepted formats. */
export function parseDateArg(text: string, opts: DateArgOptions): Date {
  const s = text.trim();
  const m = DASHED.exec(s) ?? COMPACT.exec(s);
  const bad = (why: string) =>
    new UsageError(`${opts.flag} ${quote(text)} ${why}`, {
      hint: `accepted formats: ${ACCEPTED_DATE_FORMATS}`,
    });
  if (m === null) throw bad('is not a date payops understands');

  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hasTime = m[4] !== undefined;
  const end = opts.bound === 'end' && !hasTime;
  const hour = hasTime ? Number(m[4]) : end ? 23 : 0;
  const minute = hasTime ? Number(m[5]) : end ? 59 : 0;
  const second = m[6] !== undefined ? Number(m[6]) : end ? 59 : 0;

  if (hour > 23 || minute > 59 || second > 59) throw bad('has a time outside 00:00:00–23:59:59');
  // Calendar check on the numbers themselves, before any zone shifts them.
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (
    month < 1 ||
    month > 12 ||
    probe.getUTCFullYear() !== year ||
    probe.getUTCMonth() !== month - 1 ||
    probe.getUTCDate() !== day
  ) {
    throw bad('is not a calendar date');
  }
  if (year < 2000 || year > 2099) throw bad('is outside the years 2000–2099');

  const zone = m[7];
  if (zone !== undefined) {
    const offsetMinutes = zoneOffsetMinutes(zone);
    if (offsetMinutes === undefined) throw bad('has an offset outside ±14:00');
    return new Date(probe.getTime() - offsetMinutes * 60_000);
  }
  if (opts.utc) return probe;
  const local = new Date(year, month - 1, day, hour, minute, second);
  // A local time skipped by a daylight-saving change moves forward; say so rather than guess silently.
  if (local.getHours() !== hour || local.getMinutes() !== minute) {
    throw bad('does not exist in the local time zone (daylight-saving change); use --utc or an offset');
  }
  return local;
}

function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  if (minutes > 14 * 60 || Number(m[3]) > 59) return undefined;
  return m[1] === '-' ? -minutes : minutes;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 in UTC without milliseconds: `2026-11-21T09:05:00Z`. */
export function formatIsoUtc(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Local wall-clock time with its offset: `2026-11-21 10:05:00 +01:00`. */
export function formatLocal(d: Date): string {
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** Local time for a table cell, to the minute: `2026-11-21 10:05`. */
export function formatLocalShort(d: Date): string {
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
