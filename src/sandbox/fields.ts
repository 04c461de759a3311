// Field checks of the sandbox (design.md §1.7): types and formats of the spec, money as integer
// minor units. Checks return a problem text naming the field, or undefined when the value is fine;
// the caller turns a problem into E1005 (or E4001 for payout beneficiary details).
import { ERROR_CODES, type ErrorCode } from '../gateway/types.js';

/** A request rejected as a whole: `code:text` plus the HTTP status to answer with. */
export class Rejection extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, detail?: string, status = 200) {
    super(codedMessage(code, detail));
    this.code = code;
    this.status = status;
  }
}

/** `E2003:operation not allowed in the order's state: 3000 captured`. */
export function codedMessage(code: ErrorCode, detail?: string): string {
  return detail ? `${code}:${ERROR_CODES[code]}: ${detail}` : `${code}:${ERROR_CODES[code]}`;
}

export function malformed(field: string, why: string): Rejection {
  return new Rejection('E1005', `${field} ${why}`);
}

/** ISO 4217 minor digits by code, built once per sandbox from the `currency-codes` package. */
export type CurrencyDigits = ReadonlyMap<string, number>;

export async function loadCurrencyDigits(): Promise<CurrencyDigits> {
  const cc = (await import('currency-codes')).default;
  const map = new Map<string, number>();
  for (const c of cc.data) if (typeof c.digits === 'number') map.set(c.code, c.digits);
  return map;
}

const DECIMAL = /^(\d{1,18})(?:\.(\d{1,4}))?$/;

/** Parse a decimal amount string into minor units; undefined when malformed for the currency. */
export function parseAmount(text: string, digits: number): bigint | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const frac = m[2] ?? '';
  if (frac.length > digits) return undefined;
  return BigInt(m[1]! + frac.padEnd(digits, '0'));
}

export function formatAmount(minor: bigint, digits: number): string {
  if (digits === 0) return minor.toString();
  const s = minor.toString().padStart(digits + 1, '0');
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

export function amountProblem(text: unknown, digits: number): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  if (parseAmount(text, digits) === undefined) {
    return digits === 0
      ? 'must be a whole number (the currency has no minor unit)'
      : `must be a decimal with at most ${digits} fraction digits`;
  }
  return undefined;
}

/** A decimal string whose currency is unknown (item_total, source_amount, …): at most 4 fraction digits. */
export function decimalProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  return DECIMAL.test(text) ? undefined : 'must be a decimal number such as 12.50';
}

export function currencyProblem(text: unknown, currencies: CurrencyDigits): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  return currencies.has(text) ? undefined : 'must be an ISO 4217 currency code such as USD';
}

export function countryProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  return /^[A-Z]{2}$/.test(text) ? undefined : 'must be a two-letter country code such as US';
}

function realDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** YYYY-MM-DD */
export function isoDateProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return m && realDate(+m[1]!, +m[2]!, +m[3]!) ? undefined : 'must be a date YYYY-MM-DD';
}

/**
 * The payment request's birth_date: the spec gives only its shape — two-digit groups, then a
 * four-digit year, separated by hyphens — not which group is the day, so only the shape is checked
 * (as the client does: src/pay/schema.ts `dmy`).
 */
export function dmyDateProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  return /^\d{2}-\d{2}-\d{4}$/.test(text)
    ? undefined
    : 'must be two-digit groups then a four-digit year, separated by hyphens (NN-NN-YYYY)';
}

/** YYYYMMDDhhmmss, UTC; returns epoch ms or undefined. */
export function parseCompactTime(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (!realDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

export function uuidProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be a string';
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)
    ? undefined
    : 'must be a UUID such as 123e4567-e89b-12d3-a456-426614174000';
}

export function stringProblem(value: unknown): string | undefined {
  return typeof value === 'string' ? undefined : 'must be a string';
}

export function requiredString(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return 'is required';
  return typeof value === 'string' ? undefined : 'must be a string';
}

/** Field kinds of the spec's tables, checked whenever a field is present. */
export type FieldKind =
  | 'string'
  | 'decimal'
  | 'currency'
  | 'country'
  | 'isoDate'
  | 'dmyDate'
  | 'integer'
  | 'number'
  /** An array of strings (payout person_documents[].labels). */
  | 'strings'
  /** Present in the request but checked by its handler, not here (the payout's beneficiary). */
  | 'handled';

export function kindProblem(kind: FieldKind, value: unknown, currencies: CurrencyDigits): string | undefined {
  switch (kind) {
    case 'string':
      return stringProblem(value);
    case 'decimal':
      return decimalProblem(value);
    case 'currency':
      return currencyProblem(value, currencies);
    case 'country':
      return countryProblem(value);
    case 'isoDate':
      return isoDateProblem(value);
    case 'dmyDate':
      return dmyDateProblem(value);
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'must be an integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? undefined
        : 'must be an array of strings';
    case 'handled':
      return undefined;
  }
}

/**
 * Check `body` against a schema, strictly, as a real gateway would: leaves are field kinds, nested
 * objects are sub-schemas, `[schema]` an array of such objects. A field the schema does not name is
 * refused at any depth, and so is `null` (a field is either sent with its type or left out).
 * Returns the first problem as `path text` (the path like `person.birth_date`, `cart_items[0].x`).
 */
export type Schema = { readonly [field: string]: FieldKind | Schema | readonly [Schema] };

export function schemaProblem(
  body: Record<string, unknown>,
  schema: Schema,
  currencies: CurrencyDigits,
  prefix = '',
): string | undefined {
  for (const field of Object.keys(body)) {
    const value = body[field];
    const path = prefix + field;
    if (!Object.hasOwn(schema, field)) return `${path} is not a field of this request`;
    if (value === undefined) continue;
    if (value === null) return `${path} must not be null: send a value or leave the field out`;
    const rule = schema[field]!;
    if (typeof rule === 'string') {
      const p = kindProblem(rule, value, currencies);
      if (p) return `${path} ${p}`;
    } else if (Array.isArray(rule)) {
      if (!Array.isArray(value)) return `${path} must be an array`;
      for (let i = 0; i < value.length; i++) {
        const el = value[i];
        if (typeof el !== 'object' || el === null || Array.isArray(el))
          return `${path}[${i}] must be an object`;
        const p = schemaProblem(
          el as Record<string, unknown>,
          rule[0] as Schema,
          currencies,
          `${path}[${i}].`,
        );
        if (p) return p;
      }
    } else {
      if (typeof value !== 'object' || Array.isArray(value)) return `${path} must be an object`;
      const p = schemaProblem(value as Record<string, unknown>, rule as Schema, currencies, `${path}.`);
      if (p) return p;
    }
  }
  return undefined;
}
