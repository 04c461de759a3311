// The journal records of a payout run, as written and as read back (parsed once, by
// parsePayoutRecord): the plan (every request_id, before the first payout leaves), an intent before
// each payout is sent, and its result after.
import {
  type CommonRecord,
  num,
  optStr,
  parseCommonRecord,
  type RawRecord,
  RecordShapeError,
} from '../lifecycle/records.js';

/**
 * completed: status COMPLETED · failed: the gateway refused it or reported a failure · pending: the
 * gateway took it and has not finished (any other status, no failure) · unknown: no trustworthy answer.
 * Only `failed` is final without the gateway's COMPLETED; pending and unknown are sent again, with the
 * same request_id, by --resume or a re-run (design.md §1.5a).
 */
export type PayoutOutcome = 'completed' | 'failed' | 'pending' | 'unknown';

/** One payout's result as shown and journaled. */
export interface PayoutResultRow {
  line: number;
  /** The input's own `reference` (an invoice number): kept so the results say which payout is which. */
  reference: string;
  request_id: string;
  outcome: PayoutOutcome;
  status: string;
  payment_amount: string;
  payment_currency: string;
  amount_beneficiary_receives: string;
  amount_payer_pays: string;
  fee_amount: string;
  fee_currency: string;
  short_reference_id: string;
  transaction_id: string;
  failure_reason: string;
  failure_type: string;
  created_at: string;
  last_updated_at: string;
  payer_id: string;
  /** The answer's beneficiary.bank_details.local_clearing_system. */
  local_clearing_system: string;
}

export interface PlannedPayout {
  line: number;
  request_id: string;
  /** Where the request_id came from: the input, an earlier run, or generated. */
  from?: string;
  /** The payout's content identity (request_id aside); absent in older journals. */
  key?: string;
  /** Account, amount, currency and date, hashed (payout/meaning.ts payoutMatch); absent in older journals. */
  match?: string;
}

export interface PlanRecord {
  type: 'plan';
  at?: string;
  items: PlannedPayout[];
}

export interface PayoutIntentRecord {
  type: 'intent';
  at?: string;
  line: number;
  request_id?: string;
}

export interface PayoutResultRecord extends PayoutResultRow {
  type: 'result';
  at?: string;
}

export type PayoutRecord = PlanRecord | PayoutIntentRecord | PayoutResultRecord | CommonRecord;

// Journals written before `pending` existed hold only the other three: they read as before.
const OUTCOMES: readonly PayoutOutcome[] = ['completed', 'failed', 'pending', 'unknown'];

/** Every field of a payout's result, in the order results show them (files, tables, journal). */
export const PAYOUT_RESULT_COLUMNS = [
  'line',
  'reference',
  'request_id',
  'outcome',
  'status',
  'payment_amount',
  'payment_currency',
  'amount_beneficiary_receives',
  'amount_payer_pays',
  'fee_amount',
  'fee_currency',
  'short_reference_id',
  'transaction_id',
  'failure_reason',
  'failure_type',
  'created_at',
  'last_updated_at',
  'payer_id',
  'local_clearing_system',
] as const satisfies ReadonlyArray<keyof PayoutResultRow>;

type TextField = Exclude<(typeof PAYOUT_RESULT_COLUMNS)[number], 'line' | 'outcome'>;
const RESULT_TEXT_FIELDS = PAYOUT_RESULT_COLUMNS.filter(
  (f): f is TextField => f !== 'line' && f !== 'outcome',
);

function planned(v: unknown): PlannedPayout {
  const item = v as Record<string, unknown>;
  if (typeof item?.line !== 'number' || typeof item.request_id !== 'string') {
    throw new RecordShapeError('plan record with an unreadable item');
  }
  return {
    line: item.line,
    request_id: item.request_id,
    ...(typeof item.from === 'string' ? { from: item.from } : {}),
    ...(typeof item.key === 'string' && item.key !== '' ? { key: item.key } : {}),
    ...(typeof item.match === 'string' && item.match !== '' ? { match: item.match } : {}),
  };
}

/** One payout journal record, checked; undefined for a type a payout run does not write. */
export function parsePayoutRecord(raw: RawRecord): PayoutRecord | undefined {
  const at = optStr(raw, 'at');
  const base = at === undefined ? {} : { at };
  switch (raw.type) {
    case 'plan':
      if (!Array.isArray(raw.items)) throw new RecordShapeError('plan record without items');
      return { type: 'plan', ...base, items: raw.items.map(planned) };
    case 'intent': {
      const id = optStr(raw, 'request_id');
      return {
        type: 'intent',
        ...base,
        line: num(raw, 'line'),
        ...(id === undefined ? {} : { request_id: id }),
      };
    }
    case 'result': {
      const outcome = raw.outcome as PayoutOutcome;
      if (!OUTCOMES.includes(outcome)) throw new RecordShapeError('result record without an outcome');
      const row = { type: 'result', ...base, line: num(raw, 'line'), outcome } as PayoutResultRecord;
      for (const f of RESULT_TEXT_FIELDS) row[f] = optStr(raw, f) ?? '';
      return row;
    }
    default: {
      // A type no version of payops wrote into a payout run is damage (a flipped byte): fail closed.
      const common = parseCommonRecord(raw);
      if (common === undefined) throw new RecordShapeError(`a record of unknown type "${raw.type}"`);
      return common;
    }
  }
}

/** What a payout run writes. */
export type PayoutJournalRecord = PayoutRecord;
