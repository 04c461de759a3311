// A small description of request shapes (field → type and format) and one checker over it, so the
// payment and payout requests are validated from data: the same tables give the pay flags, the
// payout CSV columns and the per-field problems (path, what is wrong, what would be right).
import type { InputProblem } from '../errors.js';
import { parseAmount } from '../money/amount.js';
import { currencyInfo } from '../money/currency.js';
import { quote } from '../quote.js';

export type StringFormat =
  /** Plain decimal such as 12.50 (amount checks per currency happen separately). */
  | 'decimal'
  /** ISO 4217 code; normalised to upper case. */
  | 'currency'
  /** Two-letter country code; normalised to upper case. */
  | 'country'
  /** YYYY-MM-DD, a real calendar date. */
  | 'date'
  /**
   * Two-digit groups then a four-digit year, separated by hyphens (the payment request's birth_date):
   * the spec's shape only — it does not say which group is the day, so payops does not guess.
   */
  | 'dmy'
  | 'uuid'
  /** Exactly two digits (expiration_month). */
  | 'month'
  /** Exactly four digits (expiration_year). */
  | 'year';

export type FieldSpec =
  | { readonly type: 'string'; readonly format?: StringFormat }
  | { readonly type: 'number' }
  | { readonly type: 'integer' }
  | { readonly type: 'object'; readonly fields: Readonly<Record<string, FieldSpec>> }
  | { readonly type: 'array'; readonly items: FieldSpec };

export type ObjectSpec = Extract<FieldSpec, { type: 'object' }>;

export const str = (format?: StringFormat): FieldSpec =>
  format === undefined ? { type: 'string' } : { type: 'string', format };
export const num: FieldSpec = { type: 'number' };
export const int: FieldSpec = { type: 'integer' };
export const obj = (fields: Record<string, FieldSpec>): ObjectSpec => ({ type: 'object', fields });
export const arr = (items: FieldSpec): FieldSpec => ({ type: 'array', items });

/**
 * Keys that reach an object's prototype instead of the object: never a field, refused wherever a
 * request is read (here, and in `payops call`'s bodies, src/call/body.ts), so a "__proto__" in a JSON
 * file or a --data path can never change what is signed.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Top-level request fields payops fills itself; a file that carries them is refused with a clear reason. */
export const FILLED_BY_PAYOPS: readonly string[] = ['merchant_id', 'account_id', 'encryption_data'];

/** Where problems are reported: a file and line, when the value came from one. */
export interface ProblemSite {
  file?: string;
  line?: number;
}

const FORMAT_EXPECTED: Record<StringFormat, string> = {
  decimal: 'a plain decimal with a dot, such as 12.50',
  currency: 'a three-letter ISO 4217 currency code such as USD',
  country: 'a two-letter country code such as US',
  date: 'a date as YYYY-MM-DD',
  dmy: 'two-digit groups then a four-digit year, separated by hyphens (NN-NN-YYYY)',
  uuid: 'a UUID such as 3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7b21',
  month: 'two digits, 01 to 12',
  year: 'four digits, such as 2030',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/** Checks one string against a format; returns the normalised value or undefined when invalid. */
export function checkFormat(value: string, format: StringFormat): string | undefined {
  const v = value.trim();
  switch (format) {
    case 'decimal':
      return /^\d+(?:\.\d+)?$/.test(v) ? v : undefined;
    case 'currency':
      return currencyInfo(v) ? v.toUpperCase() : undefined;
    case 'country':
      return /^[A-Za-z]{2}$/.test(v) ? v.toUpperCase() : undefined;
    case 'date': {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
      return m && validDate(Number(m[1]), Number(m[2]), Number(m[3])) ? v : undefined;
    }
    case 'dmy':
      return /^\d{2}-\d{2}-\d{4}$/.test(v) ? v : undefined;
    case 'uuid':
      // Kept as written: the gateway compares request_ids as text, so changing the case would make
      // a different request_id.
      return UUID.test(v) ? v : undefined;
    case 'month':
      return /^(0[1-9]|1[0-2])$/.test(v) ? v : undefined;
    case 'year':
      return /^\d{4}$/.test(v) ? v : undefined;
  }
}

/** The money parser's diagnosis of a non-decimal (thousands separators, decimal commas, symbols …). */
function decimalProblem(value: string): string {
  const parsed = parseAmount(value, 'USD');
  if (parsed.ok) return `${quote(value)} is not valid`;
  return parsed.hint ? `${parsed.message}: ${parsed.hint}` : parsed.message;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Checks `value` against `spec` and returns it normalised (trimmed codes upper-cased, unknown keys
 * reported). Every problem is pushed to `problems` with its dotted path; the caller decides whether
 * any problem stops the command.
 */
export function checkValue(
  value: unknown,
  spec: FieldSpec,
  path: string,
  problems: InputProblem[],
  site: ProblemSite = {},
): unknown {
  const problem = (message: string, expected?: string) =>
    problems.push({ ...site, field: path, message, ...(expected ? { expected } : {}) });
  switch (spec.type) {
    case 'string': {
      if (typeof value !== 'string') {
        problem(`must be text, not ${describe(value)}`, 'a string in double quotes');
        return value;
      }
      if (spec.format === undefined || value === '') return value;
      const normalised = checkFormat(value, spec.format);
      if (normalised === undefined) {
        problem(
          spec.format === 'decimal' ? decimalProblem(value) : `${quote(value)} is not valid`,
          FORMAT_EXPECTED[spec.format],
        );
        return value;
      }
      return normalised;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        problem(`must be a number, not ${describe(value)}`);
      return value;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        problem(`must be a whole number, not ${typeof value === 'number' ? value : describe(value)}`);
      }
      return value;
    case 'array': {
      if (!Array.isArray(value)) {
        problem(`must be a list, not ${describe(value)}`, 'a JSON array [ … ]');
        return value;
      }
      return value.map((v, i) => checkValue(v, spec.items, `${path}[${i}]`, problems, site));
    }
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        problem(`must be an object, not ${describe(value)}`, 'a JSON object { … }');
        return value;
      }
      // No prototype: the checked request is what is signed, and only its own keys count.
      const out: Record<string, unknown> = Object.create(null);
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const child =
          PROTOTYPE_KEYS.has(key) || !Object.hasOwn(spec.fields, key) ? undefined : spec.fields[key];
        const childPath = path === '' ? key : `${path}.${key}`;
        if (child === undefined) {
          problems.push({
            ...site,
            field: childPath,
            message:
              path === '' && FILLED_BY_PAYOPS.includes(key)
                ? 'is filled in by payops (merchant_id and account_id from the profile, encryption_data computed): leave it out'
                : 'is not a field of this request',
          });
          continue;
        }
        out[key] = checkValue(v, child, childPath, problems, site);
      }
      return out;
    }
  }
}

/** Every string, number and integer leaf under `spec` as [dotted path, spec]; arrays are skipped. */
export function leafPaths(spec: ObjectSpec, prefix = ''): Array<[string, FieldSpec]> {
  const out: Array<[string, FieldSpec]> = [];
  for (const [key, child] of Object.entries(spec.fields)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (child.type === 'object') out.push(...leafPaths(child, path));
    else if (child.type !== 'array') out.push([path, child]);
  }
  return out;
}

/** `a.b[0].c` → ['a', 'b', 0, 'c']; undefined for a malformed path (or one through a prototype key). */
export function pathSegments(path: string): Array<string | number> | undefined {
  const out: Array<string | number> = [];
  for (const part of path.split('.')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d{1,3}\])*)$/.exec(part);
    if (!m || PROTOTYPE_KEYS.has(m[1]!)) return undefined;
    out.push(m[1]!);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

/** The spec of the field at `segments` under `spec`, matching names case-insensitively. */
export function specAt(
  spec: FieldSpec,
  segments: ReadonlyArray<string | number>,
): { spec: FieldSpec; segments: Array<string | number> } | undefined {
  let node = spec;
  const canonical: Array<string | number> = [];
  for (const seg of segments) {
    if (typeof seg === 'number') {
      if (node.type !== 'array') return undefined;
      node = node.items;
      canonical.push(seg);
      continue;
    }
    if (node.type !== 'object') return undefined;
    const key = Object.keys(node.fields).find((k) => k.toLowerCase() === seg.toLowerCase());
    if (key === undefined) return undefined;
    node = node.fields[key]!;
    canonical.push(key);
  }
  return { spec: node, segments: canonical };
}

/** The value at a dotted path (`beneficiary.bank_details.iban`), or undefined. */
export function getPath(root: unknown, path: string): unknown {
  let node = root;
  for (const key of pathSegments(path) ?? []) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Sets a value at path segments, creating the objects and lists on the way. */
export function setPath(
  root: Record<string, unknown>,
  segments: ReadonlyArray<string | number>,
  value: unknown,
): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i]!;
    if (typeof key === 'string' && PROTOTYPE_KEYS.has(key))
      throw new Error(`refusing the path segment ${key}`);
    const wantArray = typeof segments[i + 1] === 'number';
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next) !== wantArray) {
      node[key] = wantArray ? [] : Object.create(null);
    }
    node = node[key] as Record<string | number, unknown>;
  }
  node[segments[segments.length - 1]!] = value;
}
