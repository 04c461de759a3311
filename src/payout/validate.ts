// Checks one payout request before anything is sent: every field's type and format, the required
// fields of design.md §1.7, amounts through src/money with the currency's minor digits.
import type { InputProblem } from '../errors.js';
import {
  type AmountStyle,
  DOT_DEFAULT,
  formatAmount,
  parseAmount,
  parseAmountText,
} from '../money/amount.js';
import { currencyInfo } from '../money/currency.js';
import { checkValue, getPath, type ProblemSite } from '../pay/schema.js';
import { quote } from '../quote.js';
import { cardNumberPaths } from '../redact.js';
import { PAYOUT_ACCOUNT_FIELDS, PAYOUT_REQUIRED, PAYOUT_SPEC } from './fields.js';

export interface CheckedPayout {
  /** Normalised request (codes upper-cased, amounts in canonical text); request_id may be absent. */
  request: Record<string, unknown>;
  /** payment_amount in minor units of payment_currency. */
  minor: bigint;
  currency: string;
}

/** ISO 13616: country, check digits, then 11–30 letters/digits; mod 97 of the rearranged text is 1. */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  let rem = 0;
  for (const ch of s.slice(4) + s.slice(0, 4)) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

function present(v: unknown): boolean {
  return typeof v === 'string' ? v.trim() !== '' : v !== undefined && v !== null;
}

/** Returns the checked payout, or undefined when `problems` got at least one entry for it. */
export function checkPayout(
  raw: unknown,
  problems: InputProblem[],
  site: ProblemSite = {},
  style: AmountStyle = DOT_DEFAULT,
): CheckedPayout | undefined {
  const before = problems.length;
  // Card data never enters a payout run (issue 24): refused in any field, the number not repeated.
  for (const path of cardNumberPaths(raw)) {
    problems.push({
      ...site,
      field: path,
      message: 'holds a card number (not repeated here); card data may not be in a payout',
      expected: 'no card numbers in any field: remove it from the file',
    });
  }
  const request = checkValue(raw, PAYOUT_SPEC, '', problems, site) as Record<string, unknown>;
  if (problems.length > before && (request === null || typeof request !== 'object')) return undefined;

  for (const path of PAYOUT_REQUIRED) {
    if (!present(getPath(request, path))) problems.push({ ...site, field: path, message: 'is required' });
  }
  if (!PAYOUT_ACCOUNT_FIELDS.some((p) => present(getPath(request, p)))) {
    problems.push({
      ...site,
      field: 'beneficiary.bank_details.iban',
      message: 'the beneficiary account is missing',
      expected: 'beneficiary.bank_details.iban or beneficiary.bank_details.account_number',
    });
  }

  const iban = getPath(request, 'beneficiary.bank_details.iban');
  if (typeof iban === 'string' && iban.trim() !== '' && !ibanValid(iban)) {
    problems.push({
      ...site,
      field: 'beneficiary.bank_details.iban',
      message: `${quote(iban)} is not a valid IBAN (its check digits do not match)`,
      expected: 'an IBAN such as DE89370400440532013000 (spaces allowed)',
    });
  }

  let minor = 0n;
  const currency = typeof request.payment_currency === 'string' ? request.payment_currency : '';
  const amountOk = (field: string, amountText: unknown, cur: string): bigint | undefined => {
    if (typeof amountText !== 'string' || amountText === '' || cur === '') return undefined;
    if (problems.some((p) => p.field === field && p.line === site.line && p.file === site.file))
      return undefined;
    // The same reading of amounts as bulk files (decimal mark, thousands groups): money/amount.ts.
    const info = currencyInfo(cur);
    const parsed =
      info === undefined
        ? parseAmount(amountText, cur)
        : parseAmountText(amountText, info.code, info.minorDigits, style);
    if (!parsed.ok) {
      const message = parsed.hint === undefined ? parsed.message : `${parsed.message}; ${parsed.hint}`;
      problems.push({ ...site, field, message, expected: parsed.expected });
      return undefined;
    }
    if (parsed.minor === 0n) {
      problems.push({ ...site, field, message: 'must be more than zero' });
      return undefined;
    }
    request[field] = formatAmount(parsed.minor, cur);
    return parsed.minor;
  };
  const curOk = (field: string) => !problems.some((p) => p.field === field && p.line === site.line);
  if (curOk('payment_currency')) minor = amountOk('payment_amount', request.payment_amount, currency) ?? 0n;
  if (present(request.source_amount)) {
    if (!present(request.source_currency)) {
      problems.push({
        ...site,
        field: 'source_currency',
        message: 'is required when source_amount is given',
      });
    } else if (curOk('source_currency')) {
      amountOk('source_amount', request.source_amount, String(request.source_currency));
    }
  }
  if (problems.length > before) return undefined;
  return { request, minor, currency };
}
