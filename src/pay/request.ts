// Builds a payment request from a --request JSON file and the generated flags (flags win), checks
// it against the field tables, and normalises amounts through src/money. Pure except for reading
// the request file; card data is refused here and added later from the prompt/stdin only.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, type InputProblem } from '../errors.js';
import { formatAmount, parseAmount } from '../money/amount.js';
import { containsCardNumber, isIdentifierField } from '../redact.js';
import { AMOUNT_FIELDS, CARD_DATA_FIELDS, type FlagField, type PaymentKind, requestSpec } from './fields.js';
import { checkValue, pathSegments, setPath } from './schema.js';

export interface RequestSource {
  /** Path of the --request file, as given. */
  file?: string;
  /** Its text (tests pass it directly). */
  fileText?: string;
  /** Flag values by request path (`shopper_email`, `person.email`); undefined ones are ignored. */
  flags: Record<string, unknown>;
}

export interface BuiltRequest {
  body: Record<string, unknown>;
  /** True when order_no was generated here. */
  generatedOrderNo: boolean;
}

/** Fields only a card payment carries; an APM request never sends them. */
const CARD_PAYMENT_FIELDS = new Set([
  ...CARD_DATA_FIELDS,
  'expiration_month',
  'expiration_year',
  'token_id',
  'token_flag',
  'open3d',
]);

/**
 * `PO-<yyyymmdd>-<hhmmss>-<6 hex>` (UTC): sortable and unique enough for a person taking orders. The
 * date and time are split because a 14-digit run passes Luhn one time in ten, and card-number
 * redaction would then mask the order number in logs and output.
 */
export function generateOrderNo(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, '');
  return `PO-${stamp.slice(0, 8)}-${stamp.slice(8, 14)}-${randomBytes(3).toString('hex')}`;
}

/**
 * Values (at any depth) that hold a card number, also inside text: card numbers must come from the
 * prompt or stdin. Fields the spec defines as numeric identifiers (document, person.document_number,
 * phones …) are not looked at: a CNPJ passes Luhn.
 */
function findCardLikeValues(value: unknown, path: string, out: string[], field?: string): void {
  if (typeof value === 'string') {
    if ((field === undefined || !isIdentifierField(field)) && containsCardNumber(value)) out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      findCardLikeValues(v, `${path}[${i}]`, out, field);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value))
      findCardLikeValues(v, path === '' ? k : `${path}.${k}`, out, k);
  }
}

export async function readRequestFile(file: string, cwd: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read the request file ${file}`, [
      { file, message: code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? 'error'})` },
    ]);
  }
}

function parseRequestJson(file: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new InputError(`the request file ${file} is not valid JSON`, [
      { file, message: (err as Error).message, expected: 'one JSON object { … }' },
    ]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError(`the request file ${file} must hold one JSON object`, [
      { file, message: 'not an object', expected: 'one JSON object { … }' },
    ]);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Merges file and flags, checks every field, normalises amounts to the currency's minor digits and
 * fills order_no. Throws InputError (exit 2) with every problem found; nothing has been sent.
 */
export function buildPaymentRequest(kind: PaymentKind, source: RequestSource): BuiltRequest {
  const problems: InputProblem[] = [];
  const file = source.file;
  const site = file === undefined ? {} : { file };
  let body: Record<string, unknown> = {};

  if (file !== undefined && source.fileText !== undefined) {
    const fromFile = parseRequestJson(file, source.fileText);
    for (const key of Object.keys(fromFile)) {
      if (CARD_DATA_FIELDS.includes(key)) {
        problems.push({
          ...site,
          field: key,
          message:
            'card data is never read from a file: payops asks for the card number and security code (hidden), or reads them from stdin',
        });
        delete fromFile[key];
      } else if (kind === 'apm' && CARD_PAYMENT_FIELDS.has(key)) {
        problems.push({
          ...site,
          field: key,
          message: 'is a card field; an APM payment never carries card fields',
        });
        delete fromFile[key];
      }
    }
    const cardLike: string[] = [];
    findCardLikeValues(fromFile, '', cardLike);
    for (const path of cardLike) {
      problems.push({
        ...site,
        field: path,
        message: 'looks like a card number; card numbers are never read from files',
      });
    }
    body = fromFile;
  }

  for (const [path, value] of Object.entries(source.flags)) {
    if (value === undefined) continue;
    setPath(body, pathSegments(path)!, value);
  }

  const spec = requestSpec(kind);
  const checked = checkValue(body, spec, '', problems, site) as Record<string, unknown>;

  for (const field of ['amount', 'currency', ...(kind === 'apm' ? ['payment_method'] : [])]) {
    if (checked[field] === undefined || checked[field] === '') {
      problems.push({
        ...site,
        field,
        message: 'is required',
        expected: `--${field.replace(/_/g, '-')} or "${field}" in --request`,
      });
    }
  }

  const currency = typeof checked.currency === 'string' ? checked.currency : undefined;
  if (currency !== undefined && !problems.some((p) => p.field === 'currency')) {
    for (const field of AMOUNT_FIELDS) {
      const text = checked[field];
      if (typeof text !== 'string' || text === '') continue;
      const parsed = parseAmount(text, currency);
      if (parsed.ok) {
        checked[field] = formatAmount(parsed.minor, currency);
        if (field === 'amount' && parsed.minor === 0n) {
          problems.push({ ...site, field, message: 'must be more than zero' });
        }
      } else if (!problems.some((p) => p.field === field)) {
        problems.push({ ...site, field, message: parsed.message, expected: parsed.expected });
      }
    }
  }

  if (problems.length > 0) {
    throw new InputError(
      `the ${kind} payment request has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was sent`,
      problems,
    );
  }

  let generatedOrderNo = false;
  if (typeof checked.order_no !== 'string' || checked.order_no.trim() === '') {
    checked.order_no = generateOrderNo();
    generatedOrderNo = true;
  }
  return { body: checked, generatedOrderNo };
}

/** Flag values keyed by request path, from commander's parsed options. */
export function flagValues(
  fields: readonly FlagField[],
  opts: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = opts[f.attribute];
    if (v === undefined) continue;
    // Whole numbers come in as text from the shell; the checker reports anything that is not one.
    out[f.path] = f.spec.type === 'integer' && typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  }
  return out;
}

/** `MM/YYYY` or `MM/YY` → two-digit month and four-digit year. */
export function parseExpiry(text: string): { month: string; year: string } | undefined {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!m) return undefined;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return undefined;
  const year = m[2]!.length === 2 ? `20${m[2]}` : m[2]!;
  return { month: String(month).padStart(2, '0'), year };
}
