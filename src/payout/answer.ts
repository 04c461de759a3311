// What one payout answer means: its outcome from status and failure fields, and whether the answer is
// about the payout that was sent at all. gateway-api.md shows only `status` COMPLETED and reports
// failures in failure_reason / failure_type; anything else the gateway has not finished (pending).
// An answer whose fields do not match the request is not trusted: it becomes `unknown`, and the same
// request_id is sent again later — never a new one.
import type { PayoutResponse } from '../gateway/types.js';
import { parseAmount } from '../money/amount.js';
import { quote } from '../quote.js';
import type { PayoutItem } from './plan.js';
import type { PayoutOutcome } from './records.js';

/** Statuses that say by themselves that the payout was not made, failure fields or not. */
const FAILURE_STATUSES = new Set([
  'FAILED',
  'FAILURE',
  'REJECTED',
  'DECLINED',
  'REFUSED',
  'CANCELLED',
  'CANCELED',
  'RETURNED',
  'ERROR',
]);

/** A status word: letters first, then letters, digits, `_`, `-` or spaces (PENDING, IN_PROGRESS, …). */
const STATUS_WORD = /^[A-Z][A-Z0-9_ -]{0,39}$/;

function text(v: unknown): string {
  return v === undefined || v === null ? '' : String(v).trim();
}

/**
 * completed for COMPLETED; failed for a status that names a failure or any status with a failure
 * (failure_reason / failure_type); pending for every other status (PENDING, PROCESSING, …): the
 * gateway has the payout and has not finished it.
 */
export function payoutOutcome(status: string, failureReason = '', failureType = ''): PayoutOutcome {
  const s = status.trim().toUpperCase();
  if (s === 'COMPLETED') return 'completed';
  if (FAILURE_STATUSES.has(s) || failureReason.trim() !== '' || failureType.trim() !== '') return 'failed';
  return 'pending';
}

/** `12`, 12 or `-0`: an integer as the spec's integer amount fields carry it (number or text). */
function isInteger(v: unknown): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  return typeof v === 'string' && /^-?\d{1,18}$/.test(v.trim());
}

/**
 * Why the answer cannot be taken as the answer to `item` — undefined when it can. Checked on every
 * answer, signed or not (an unsigned one has nothing else vouching for it): it echoes this request_id,
 * its status is a status word, its currency and amount are the ones sent, and its integer amounts
 * are integers.
 */
export function answerProblem(item: PayoutItem, data: PayoutResponse | undefined): string | undefined {
  if (!data || typeof data !== 'object') return 'the answer is not a payout record';
  const sentId = text(item.request.request_id);
  const id = text(data.request_id);
  if (id !== sentId) {
    return id === ''
      ? 'the answer does not echo the request_id'
      : `the answer is for request_id ${quote(id)}, not ${sentId}`;
  }
  const status = text(data.status).toUpperCase();
  if (status === '') return 'the answer has no status';
  if (!STATUS_WORD.test(status))
    return `the answer's status ${quote(text(data.status).slice(0, 40))} is not a status`;
  const currency = text(data.payment_currency).toUpperCase();
  if (currency !== '' && currency !== item.currency) {
    return `the answer's payment_currency ${quote(currency)} is not the ${item.currency} sent`;
  }
  const amount = text(data.payment_amount);
  if (amount !== '') {
    const parsed = parseAmount(amount, item.currency);
    if (!parsed.ok) return `the answer's payment_amount ${quote(amount.slice(0, 30))} cannot be read`;
    if (parsed.minor !== item.minor) {
      return `the answer's payment_amount ${amount} is not the ${text(item.request.payment_amount)} sent`;
    }
  }
  for (const field of ['amount_beneficiary_receives', 'amount_payer_pays', 'fee_amount'] as const) {
    const v = data[field] as unknown;
    if (v !== undefined && v !== null && v !== '' && !isInteger(v)) {
      return `the answer's ${field} ${quote(String(v).slice(0, 30))} is not an integer`;
    }
  }
  return undefined;
}
