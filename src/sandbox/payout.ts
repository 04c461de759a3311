// /v1/payout: validation (E1005, E4001 for beneficiary details), idempotency on request_id (E4002
// when reused with other content), the echoed request with computed fields, signed. A beneficiary
// account number ending in 7777 plays a payout that is still PENDING when first answered and
// COMPLETED when the same request_id is sent again; its money moves (one ledger entry) only then.
// One ending in 6666 is PENDING too, then FAILED (no money moves). A payout sent with a notify_url
// makes an event at each status it reaches (notify-events.ts).
import { canonical } from '../gateway/signer.js';
import { authenticate, jsonReply, type Reply, type SandboxContext, signInPlace } from './context.js';
import {
  amountProblem,
  codedMessage,
  currencyProblem,
  parseAmount,
  Rejection,
  requiredString,
  type Schema,
  schemaProblem,
  uuidProblem,
} from './fields.js';
import { payoutEvent } from './notify-events.js';
import { offsetTime } from './render.js';
import type { StoredPayout } from './store.js';

type Body = Record<string, unknown>;

const BENEFICIARY_SCHEMA: Schema = {
  first_name: 'string',
  last_name: 'string',
  company_name: 'string',
  date_of_birth: 'isoDate',
  entity_type: 'string',
  additional_info: {
    business_area: 'string',
    business_phone_number: 'string',
    business_registration_number: 'string',
    personal_email: 'string',
    personal_id_number: 'string',
    personal_id_type: 'string',
    personal_mobile_number: 'string',
    personal_net_monthly_average_income: 'string',
    personal_phone_country_code: 'string',
    personal_phone_area_code: 'string',
    personal_fiscal_country: 'country',
  },
  address: {
    city: 'string',
    country_code: 'country',
    postcode: 'string',
    state: 'string',
    street: 'string',
    number: 'string',
    street_address: 'string',
    complement: 'string',
  },
  person_documents: [{ file_type: 'string', file_url: 'string', labels: 'strings' }],
  bank_details: {
    account_currency: 'currency',
    account_name: 'string',
    owner_document_number: 'string',
    account_number: 'string',
    bank_account_category: 'string',
    bank_branch: 'string',
    bank_country_code: 'country',
    bank_code: 'string',
    bank_name: 'string',
    bank_street_address: 'string',
    binding_mobile_number: 'string',
    iban: 'string',
    swift_code: 'string',
    transaction_reference: 'string',
  },
};

const PAYOUT_SCHEMA: Schema = {
  beneficiary_id: 'string',
  client_data: 'string',
  fee_paid_by: 'string',
  payment_date: 'isoDate',
  payment_method: 'string',
  reason: 'string',
  reference: 'string',
  source_amount: 'decimal',
  source_currency: 'currency',
  swift_charge_option: 'string',
  fund_source: 'string',
  notify_url: 'string',
  payer: {
    first_name: 'string',
    last_name: 'string',
    company_name: 'string',
    date_of_birth: 'isoDate',
    entity_type: 'string',
    additional_info: {
      business_registration_number: 'string',
      business_registration_type: 'string',
      external_id: 'string',
      personal_email: 'string',
      personal_id_number: 'string',
      job: 'string',
    },
    address: {
      city: 'string',
      country_code: 'country',
      postcode: 'string',
      state: 'string',
      street_address: 'string',
    },
  },
};

/** The payout request's fields checked by `check` itself (strictness: every field is named somewhere). */
const PAYOUT_ENVELOPE: Schema = {
  merchant_id: 'string',
  account_id: 'string',
  encryption_data: 'string',
  request_id: 'string',
  payment_amount: 'string',
  payment_currency: 'string',
  beneficiary: 'handled',
};

function isObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** ISO 13616 check digits (mod 97). */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

function beneficiaryProblem(ctx: SandboxContext, b: unknown): string | undefined {
  if (!isObject(b)) return 'beneficiary is required';
  const typeProblem = schemaProblem(b, BENEFICIARY_SCHEMA, ctx.currencies, 'beneficiary.');
  if (typeProblem) return typeProblem;
  const et = requiredString(b.entity_type);
  if (et) return `beneficiary.entity_type ${et}`;
  if (!isObject(b.bank_details)) return 'beneficiary.bank_details is required';
  const bank = b.bank_details;
  const name = requiredString(bank.account_name);
  if (name) return `beneficiary.bank_details.account_name ${name}`;
  if (!bank.iban && !bank.account_number) return 'beneficiary.bank_details needs iban or account_number';
  if (bank.iban && !ibanValid(bank.iban as string))
    return 'beneficiary.bank_details.iban has wrong check digits';
  return undefined;
}

function check(ctx: SandboxContext, body: Body): bigint {
  authenticate(ctx, body);
  const uuid = uuidProblem(body.request_id);
  if (uuid)
    throw new Rejection('E1005', `request_id ${body.request_id === undefined ? 'is required' : uuid}`);
  for (const field of ['payment_amount', 'payment_currency', 'payment_method'] as const) {
    const p = requiredString(body[field]);
    if (p) throw new Rejection('E1005', `${field} ${p}`);
  }
  const cp = currencyProblem(body.payment_currency, ctx.currencies);
  if (cp) throw new Rejection('E1005', `payment_currency ${cp}`);
  const digits = ctx.currencies.get(body.payment_currency as string)!;
  const ap = amountProblem(body.payment_amount, digits);
  if (ap) throw new Rejection('E1005', `payment_amount ${ap}`);
  const amount = parseAmount(body.payment_amount as string, digits)!;
  if (amount === 0n) throw new Rejection('E1005', 'payment_amount must be greater than zero');
  if (!isObject(body.payer)) throw new Rejection('E1005', 'payer is required');
  const pe = requiredString(body.payer.entity_type);
  if (pe) throw new Rejection('E1005', `payer.entity_type ${pe}`);
  const sp = schemaProblem(body, { ...PAYOUT_ENVELOPE, ...PAYOUT_SCHEMA }, ctx.currencies);
  if (sp) throw new Rejection('E1005', sp);
  const bp = beneficiaryProblem(ctx, body.beneficiary);
  if (bp) throw new Rejection('E4001', bp);
  return amount;
}

/** The response: the request echoed (no notify_url; bank_details without bank_code, plus local_clearing_system). */
function echo(body: Body): Body {
  const { encryption_data: _sig, notify_url: _n, ...rest } = body;
  if (isObject(rest.beneficiary)) {
    const b = rest.beneficiary;
    if (isObject(b.bank_details)) {
      const { bank_code: _c, ...bank } = b.bank_details;
      rest.beneficiary = {
        ...b,
        bank_details: { ...bank, local_clearing_system: rest.payment_method === 'SWIFT' ? 'SWIFT' : 'LOCAL' },
      };
    }
  }
  return rest;
}

/** A refused payout: the echo with status FAILED, failure_type the code, failure_reason `code:text`. */
function failed(ctx: SandboxContext, body: Body, err: Rejection, now: number): Reply {
  return jsonReply(
    signInPlace(ctx, {
      ...echo(body),
      amount_beneficiary_receives: 0,
      amount_payer_pays: 0,
      fee_amount: 0,
      fee_currency: typeof body.payment_currency === 'string' ? body.payment_currency : '',
      created_at: offsetTime(now),
      last_updated_at: offsetTime(now),
      failure_reason: err.message,
      failure_type: err.code,
      payer_id: '',
      transaction_id: '',
      short_reference_id: '',
      status: 'FAILED',
      encryption_data: '',
    }),
  );
}

/** The test beneficiary whose payout is PENDING on its first request (docs/sandbox.md). */
export const PENDING_ACCOUNT_SUFFIX = '7777';
/** The test beneficiary whose payout is PENDING on its first request and FAILED on the next. */
export const FAILING_ACCOUNT_SUFFIX = '6666';

function accountEnding(body: Body, suffix: string): boolean {
  const bank = isObject(body.beneficiary) ? body.beneficiary.bank_details : undefined;
  const account = isObject(bank) ? bank.account_number : undefined;
  return typeof account === 'string' && account.trim().endsWith(suffix);
}

function staysPending(body: Body): boolean {
  return accountEnding(body, PENDING_ACCOUNT_SUFFIX) || accountEnding(body, FAILING_ACCOUNT_SUFFIX);
}

/** The money movement of a completed payout. */
function payoutLedger(ctx: SandboxContext, body: Body, transactionId: string, now: number): void {
  ctx.store.addLedger({
    kind: 'payout',
    transaction_id: transactionId,
    order_no: '',
    currency: body.payment_currency as string,
    amount: body.payment_amount as string,
    at: new Date(now).toISOString(),
    request_id: body.request_id as string,
    payment_amount: body.payment_amount as string,
    payment_currency: body.payment_currency as string,
  });
}

/**
 * The same request_id again for a PENDING payout: it completes now, and its money moves now — or,
 * for the failing test beneficiary, it fails now and no money moves.
 */
function complete(ctx: SandboxContext, body: Body, pending: StoredPayout, now: number): Reply {
  const fails = accountEnding(body, FAILING_ACCOUNT_SUFFIX);
  const response = signInPlace(ctx, {
    ...pending.response,
    last_updated_at: offsetTime(now),
    ...(fails
      ? {
          failure_reason: codedMessage('E4001', 'the beneficiary bank refused the account'),
          failure_type: 'E4001',
        }
      : {}),
    status: fails ? 'FAILED' : 'COMPLETED',
    encryption_data: '',
  });
  ctx.store.addPayout(body.request_id as string, { content: pending.content, response });
  if (!fails) payoutLedger(ctx, body, pending.response.transaction_id as string, now);
  payoutEvent(ctx, body, response);
  return jsonReply(response);
}

export function handlePayout(ctx: SandboxContext, body: Body): Reply {
  const now = ctx.now();
  let amount: bigint;
  try {
    amount = check(ctx, body);
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    return failed(ctx, body, err, now);
  }
  const requestId = body.request_id as string;
  const content = canonical(body);
  const earlier = ctx.store.payouts.get(requestId);
  if (earlier) {
    if (earlier.content !== content) return failed(ctx, body, new Rejection('E4002', requestId), now);
    if (earlier.response.status === 'PENDING') return complete(ctx, body, earlier, now);
    return jsonReply(earlier.response);
  }
  // Integers in minor units of payment_currency; a 1% fee (rounded up), paid on top by the payer
  // unless fee_paid_by is BENEFICIARY.
  const fee = (amount + 99n) / 100n;
  const beneficiaryPays = body.fee_paid_by === 'BENEFICIARY';
  const n = ctx.store.payouts.size + 1;
  const transactionId = `PO${String(1_000_000_000 + n)}`;
  const pending = staysPending(body);
  const day = offsetTime(now).slice(2, 10).replace(/-/g, '');
  const response = signInPlace(ctx, {
    ...echo(body),
    amount_beneficiary_receives: Number(beneficiaryPays ? amount - fee : amount),
    amount_payer_pays: Number(beneficiaryPays ? amount : amount + fee),
    fee_amount: Number(fee),
    fee_currency: body.payment_currency as string,
    created_at: offsetTime(now),
    last_updated_at: offsetTime(now),
    failure_reason: '',
    failure_type: '',
    payer_id: `PY${String(1_000_000 + n)}`,
    transaction_id: transactionId,
    short_reference_id: `${day}-${transactionId.slice(-6)}`,
    status: pending ? 'PENDING' : 'COMPLETED',
    encryption_data: '',
  });
  ctx.store.addPayout(requestId, { content, response });
  if (!pending) payoutLedger(ctx, body, transactionId, now);
  payoutEvent(ctx, body, response);
  return jsonReply(response);
}
