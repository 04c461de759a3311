// What a payout means, whatever file carried it (issue 23): its content key (the request as it will be
// sent, request_id aside, fields sorted), the key of a whole file (its payouts in any order), the
// request_id derived from meaning where the file gives none, and the fingerprint that finds an
// earlier payout to the same account of the same amount on the same date ("possibly done").
// These values are written into journals and request_ids: they must never change.
import { createHash } from 'node:crypto';
import type { InputProblem } from '../errors.js';
import { canonical } from '../gateway/signer.js';
import { normaliseIdentity } from '../lifecycle/identity.js';

/**
 * A payout's content, request_id aside: the SHA-256 (first 128 bits, hex) of the signature's
 * canonical text of the checked request (every field path sorted, codes upper-cased, amounts in
 * canonical text, text by meaning: byMeaning below) — what the gateway compares when a request_id comes again. Line
 * ends, a BOM, the encoding, column order, JSON indentation and key order, .csv or .xlsx and the
 * file's name are gone by then.
 */
export function payoutKey(request: Record<string, unknown>): string {
  return createHash('sha256').update(payoutMeaningText(request)).digest('hex').slice(0, 32);
}

/** The text payoutKey hashes: the request by meaning, request_id aside (approval/rows-digest.ts hashes it whole). */
export function payoutMeaningText(request: Record<string, unknown>): string {
  const { request_id: _id, ...rest } = request;
  return canonical(byMeaning(rest) as Record<string, unknown>);
}

/**
 * Every text value as a person reads it: Unicode NFC (`Müller` typed or pasted with a combining
 * diaeresis is one name), runs of white space as one space, trimmed — JSON values are not trimmed
 * on reading as CSV cells are; account identifiers without spaces and codes upper-cased (below). Two requests that differ only so get one key, so one request_id: the
 * gateway then pays the first and refuses the other as a changed request, never pays both.
 */
function byMeaning(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    const text = value.normalize('NFC').replace(/\s+/gu, ' ').trim();
    if (ACCOUNT_ID.test(key)) return text.replace(/\s/gu, '').toUpperCase();
    return CODE.test(key) ? text.toUpperCase() : text;
  }
  if (Array.isArray(value)) return value.map((v) => byMeaning(v, key));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, byMeaning(v, k)]));
  return value;
}

/**
 * Account identifiers, written in groups or in lower case by people (`DE89 3704 …`, `de89…`): one
 * identifier without its spaces, upper-cased — as "possibly done" (payoutMatch) reads an IBAN.
 */
const ACCOUNT_ID = /^(iban|swift_code|account_number)$/;
/** Codes and enumerated values of the specification (`swift` is `SWIFT`, `de` is `DE`). */
const CODE = /(_code|_currency|currency|_method|entity_type|_option|fee_paid_by|fund_source)$/;

/** One payout as the file key sees it: its content key, and the request_id the file gives, if any. */
export interface KeyedPayout {
  key: string;
  /** A request_id written in the input (another id is another payout). */
  inputId?: string;
}

/**
 * What a payout file means: `payout-<count>-<hex>`, the SHA-256 of its payouts' keys sorted (so row
 * order does not count). Two files with the same key ask for the same payouts; the input lock is
 * held on it and run headers record it (`content`) to find earlier runs of the same payouts.
 */
export function payoutFileKey(items: readonly KeyedPayout[]): string {
  const rows = items.map((i) => (i.inputId === undefined ? i.key : `${i.key} ${i.inputId}`)).sort();
  const hash = createHash('sha256').update(rows.join('\n')).digest('hex').slice(0, 32);
  return `payout-${items.length}-${hash}`;
}

/** The payops payout namespace of the name-based UUIDs below (RFC 4122 §4.3). Never change it. */
const NAMESPACE = Buffer.from('7c1e4f0a5b2d4c8e9f3a6b1d2e4f5a60', 'hex');

/**
 * A request_id from what the payout means: an RFC 4122 version 5 UUID (SHA-1, name-based) in the
 * namespace above, over `payops payout`, the gateway identity in normal form (lifecycle/identity.ts:
 * base URL, merchant, account), the payout's content key and its occurrence among payouts of the
 * same key in the file (0 for the first; duplicate rows are refused, so it is 0 today), one per line.
 * The same payout sent to the same gateway and account from any machine or PAYOPS_HOME gets the
 * same request_id, and the gateway's idempotency pays it once.
 */
export function derivedRequestId(gatewayIdentity: string, key: string, occurrence: number): string {
  const name = ['payops payout', normaliseIdentity(gatewayIdentity), key, String(occurrence)].join('\n');
  return uuidV5(NAMESPACE, name);
}

/** RFC 4122 §4.3 name-based UUID, version 5: SHA-1 of the namespace's 16 bytes and the name's UTF-8. */
export function uuidV5(namespace: Uint8Array, name: string): string {
  const h = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version 5
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

/**
 * Who is paid how much on which day: the beneficiary account (IBAN without spaces, upper-cased;
 * else the account number), payment amount (canonical text), currency and payment date, hashed (no
 * account number in the journal). An edited copy of a payout (a name's typo fixed, a reference
 * changed) keeps it: a new payout with it is "possibly done" when an earlier one has it.
 */
export function payoutMatch(request: Record<string, unknown>): string {
  const bank = (request.beneficiary as { bank_details?: Record<string, unknown> } | undefined)?.bank_details;
  const iban = text(bank?.iban).replace(/\s/g, '').toUpperCase();
  const account = iban === '' ? `account ${text(bank?.account_number)}` : `iban ${iban}`;
  const fields = [
    account,
    text(request.payment_amount),
    text(request.payment_currency).toUpperCase(),
    text(request.payment_date),
  ];
  return createHash('sha256').update(fields.join('\n')).digest('hex').slice(0, 32);
}

/**
 * Rows of one file that ask for the same payout (same content key): each after the first is a
 * problem naming the first's line, as bulk files report duplicate rows. Two rows that each carry
 * their own request_id in the input are two payouts on purpose and pass.
 */
export function duplicatePayouts(
  items: ReadonlyArray<KeyedPayout & { line: number }>,
  file: string,
): InputProblem[] {
  const first = new Map<string, KeyedPayout & { line: number }>();
  const problems: InputProblem[] = [];
  for (const item of items) {
    const before = first.get(item.key);
    if (before === undefined) {
      first.set(item.key, item);
      continue;
    }
    if (before.inputId !== undefined && item.inputId !== undefined) continue;
    problems.push({
      file,
      line: item.line,
      message: `duplicate row: the same payout (every field the same: beneficiary, amount, reference …) is already on line ${before.line}`,
      expected:
        'each payout once per file; a second payout to the same beneficiary needs a field that differs (reference, payment_date) or its own request_id',
    });
  }
  return problems;
}
