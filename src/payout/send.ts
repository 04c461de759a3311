// Sends the payouts of a plan whose request_ids are already journaled: an intent record before each
// send, the result after. The gateway is idempotent on request_id, so a payout whose answer was
// lost, or that the gateway has not finished (pending), is safe to send again later with the same id
// (re-run or --resume) — never with a new one.

import { AuthError, ConfigError, GatewayError, TransportError, UnknownOutcomeError } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { PayoutResponse } from '../gateway/types.js';
import type { RunJournal } from '../lifecycle/journal.js';
import { redactOutput } from '../redact.js';
import { answerProblem, payoutOutcome } from './answer.js';
import type { PayoutItem } from './plan.js';
import type { PayoutJournalRecord, PayoutOutcome, PayoutResultRow } from './records.js';

export type { PayoutOutcome, PayoutResultRow };

function text(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

/** The row of an answer already checked by `answerProblem`. */
export function rowFromResponse(item: PayoutItem, data: PayoutResponse): PayoutResultRow {
  const status = text(data.status);
  return {
    line: item.line,
    reference: text(item.request.reference),
    request_id: text(item.request.request_id),
    outcome: payoutOutcome(status, text(data.failure_reason), text(data.failure_type)),
    status,
    payment_amount: text(data.payment_amount ?? item.request.payment_amount),
    payment_currency: text(data.payment_currency ?? item.currency),
    amount_beneficiary_receives: text(data.amount_beneficiary_receives),
    amount_payer_pays: text(data.amount_payer_pays),
    fee_amount: text(data.fee_amount),
    fee_currency: text(data.fee_currency),
    short_reference_id: text(data.short_reference_id),
    transaction_id: text(data.transaction_id),
    // The gateway's text as the --debug log shows it, before the journal and results (issue 24).
    failure_reason: redactOutput(undefined, text(data.failure_reason)),
    failure_type: text(data.failure_type),
    // Every field the answer adds to the echoed request is kept (issue 16), not only in --debug.
    created_at: text(data.created_at),
    last_updated_at: text(data.last_updated_at),
    payer_id: text(data.payer_id),
    local_clearing_system: text(
      (data.beneficiary as { bank_details?: { local_clearing_system?: unknown } } | undefined)?.bank_details
        ?.local_clearing_system,
    ),
  };
}

function emptyRow(item: PayoutItem, outcome: PayoutOutcome, reason: string, type: string): PayoutResultRow {
  return {
    line: item.line,
    reference: text(item.request.reference),
    request_id: text(item.request.request_id),
    outcome,
    status: '',
    payment_amount: text(item.request.payment_amount),
    payment_currency: item.currency,
    amount_beneficiary_receives: '',
    amount_payer_pays: '',
    fee_amount: '',
    fee_currency: '',
    short_reference_id: '',
    transaction_id: '',
    failure_reason: redactOutput(undefined, reason),
    failure_type: type,
    created_at: '',
    last_updated_at: '',
    payer_id: '',
    local_clearing_system: '',
  };
}

export interface SendPayoutsOptions {
  client: GatewayClient;
  journal: RunJournal<PayoutJournalRecord>;
  concurrency: number;
  /** Called after each payout (progress). */
  onResult?: (row: PayoutResultRow) => void;
  /** Polled before each payout is sent (SIGINT): true stops sending; payouts in flight finish. */
  shouldStop?: () => boolean;
  /**
   * Aborted (a second SIGINT): the payouts in flight are abandoned, their rows unknown; a resume
   * sends them again with the same request_id, which the gateway applies once.
   */
  abandon?: AbortSignal;
}

/**
 * The row of an answer: its outcome when the answer is about this payout, else unknown. A signed answer
 * was verified by the client; an unsigned one (the spec lists no signature for payout answers) is read
 * all the same, with the same field checks.
 */
export function rowFromAnswer(item: PayoutItem, data: PayoutResponse): PayoutResultRow {
  const problem = answerProblem(item, data);
  if (problem !== undefined) {
    return emptyRow(item, 'unknown', `${problem}: not taken as this payout's answer`, 'unreadable_answer');
  }
  return rowFromResponse(item, data);
}

/** Sends one payout; a definite rejection is a failed row, a lost or unreadable answer an unknown one. */
async function sendOne(opts: SendPayoutsOptions, item: PayoutItem): Promise<PayoutResultRow> {
  await opts.journal.append({ type: 'intent', line: item.line, request_id: String(item.request.request_id) });
  let row: PayoutResultRow;
  try {
    const res = await opts.client.send(
      'payout',
      item.request as never,
      opts.abandon ? { signal: opts.abandon } : {},
    );
    row = rowFromAnswer(item, res.data as PayoutResponse);
  } catch (err) {
    // Credentials and configuration problems end the run: every other payout would fail the same way.
    if (err instanceof AuthError || err instanceof ConfigError) throw err;
    if (err instanceof UnknownOutcomeError) row = emptyRow(item, 'unknown', err.message, err.reason);
    // Never reached the gateway: still unknown to the user, and safe to send again with the same id.
    else if (err instanceof TransportError) row = emptyRow(item, 'unknown', err.message, 'not_sent');
    else if (err instanceof GatewayError)
      row = emptyRow(item, 'failed', err.message, err.code ?? `HTTP ${err.status ?? ''}`.trim());
    else row = emptyRow(item, 'unknown', err instanceof Error ? err.message : String(err), 'error');
  }
  await opts.journal.append({ type: 'result', ...row });
  opts.onResult?.(row);
  return row;
}

/** Sends every item with at most `concurrency` in flight; results in item order. */
export async function sendPayouts(
  opts: SendPayoutsOptions,
  items: readonly PayoutItem[],
): Promise<PayoutResultRow[]> {
  const results: PayoutResultRow[] = new Array(items.length);
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      if (opts.shouldStop?.()) return;
      const i = next++;
      try {
        results[i] = await sendOne(opts, items[i]!);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure !== undefined) throw failure;
  return results.filter((r) => r !== undefined);
}
