// A payout's outcome from the gateway's answer (completed / failed / pending / unknown), the checks an
// answer must pass to be taken as this payout's, and what pending means for exit codes, --resume
// (settled rows), the journal and the "changed since" guard.
import { describe, expect, it } from 'vitest';
import type { PayoutResponse } from '../../../src/gateway/types.js';
import type { RawRecord } from '../../../src/lifecycle/records.js';
import { answerProblem, payoutOutcome } from '../../../src/payout/answer.js';
import type { PayoutItem } from '../../../src/payout/plan.js';
import { parsePayoutRecord } from '../../../src/payout/records.js';
import { payoutKey, priorPayouts, reuseRequestIds } from '../../../src/payout/reuse.js';
import { payoutExitCode, settledFromRecords } from '../../../src/payout/run-payout.js';
import { type PayoutResultRow, rowFromAnswer } from '../../../src/payout/send.js';
import { jsonRows } from '../../helpers/json-rows.js';

const ID = '6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b';

function item(): PayoutItem {
  return {
    line: 2,
    request: { request_id: ID, payment_amount: '1250.00', payment_currency: 'EUR', payment_method: 'SWIFT' },
    minor: 125000n,
    currency: 'EUR',
    requestIdFrom: 'generated',
  };
}

/** The sandbox's answer shape: the request echoed plus the payout record's own fields. */
function answer(fields: Record<string, unknown> = {}): PayoutResponse {
  return {
    request_id: ID,
    payment_amount: '1250.00',
    payment_currency: 'EUR',
    amount_beneficiary_receives: 125000,
    amount_payer_pays: 126250,
    fee_amount: 1250,
    fee_currency: 'EUR',
    failure_reason: '',
    failure_type: '',
    transaction_id: 'PO1000000001',
    short_reference_id: '261122-000001',
    status: 'COMPLETED',
    ...fields,
  } as unknown as PayoutResponse;
}

const parsed = (r: object) => parsePayoutRecord(r as RawRecord)!;

describe('payoutOutcome', () => {
  it.each([
    ['COMPLETED', '', '', 'completed'],
    ['completed', '', '', 'completed'],
    ['PENDING', '', '', 'pending'],
    ['PROCESSING', '', '', 'pending'],
    ['IN_PROGRESS', '', '', 'pending'],
    ['SCHEDULED', '', '', 'pending'],
    ['FAILED', 'E4001:invalid beneficiary details', 'E4001', 'failed'],
    ['REJECTED', 'compliance', '', 'failed'],
    // A status that names a failure is one, reason or not.
    ['FAILED', '', '', 'failed'],
    ['CANCELLED', '', '', 'failed'],
    // Any other status with a failure: the gateway reports failures in failure_reason/type.
    ['PROCESSING', '', 'E4001', 'failed'],
  ])('%s (failure_reason %j, failure_type %j) is %s', (status, reason, type, outcome) => {
    expect(payoutOutcome(status, reason, type)).toBe(outcome);
  });
});

describe('answerProblem', () => {
  it('takes an answer that echoes the request', () => {
    expect(answerProblem(item(), answer())).toBeUndefined();
    expect(answerProblem(item(), answer({ payment_amount: '1250', status: 'PENDING' }))).toBeUndefined();
    // Integers may come as text.
    expect(answerProblem(item(), answer({ fee_amount: '1250' }))).toBeUndefined();
  });

  it.each([
    ['another request_id', { request_id: '00000000-0000-4000-8000-000000000000' }, /is for request_id "0000/],
    ['no request_id', { request_id: undefined }, /does not echo the request_id/],
    ['no status', { status: '' }, /no status/],
    ['a status that is not a word', { status: '{"x":1}' }, /is not a status/],
    ['another currency', { payment_currency: 'USD' }, /payment_currency "USD" is not the EUR sent/],
    ['another amount', { payment_amount: '1350.00' }, /payment_amount 1350\.00 is not the 1250\.00 sent/],
    ['an unreadable amount', { payment_amount: '1,250.00' }, /cannot be read/],
    ['a fee that is not an integer', { fee_amount: '12.50' }, /fee_amount "12\.50" is not an integer/],
    ['a float amount_payer_pays', { amount_payer_pays: 1262.5 }, /amount_payer_pays/],
  ])('refuses an answer with %s', (_what, fields, message) => {
    expect(answerProblem(item(), answer(fields))).toMatch(message);
  });

  it('makes an unreadable answer unknown, never completed or failed', () => {
    const row = rowFromAnswer(item(), answer({ request_id: 'other', status: 'FAILED' }));
    expect(row).toMatchObject({ outcome: 'unknown', status: '', failure_type: 'unreadable_answer' });
    expect(row.failure_reason).toMatch(/not taken as this payout's answer/);
    expect(rowFromAnswer(item(), answer({ status: 'PROCESSING' }))).toMatchObject({
      outcome: 'pending',
      status: 'PROCESSING',
      request_id: ID,
      fee_amount: '1250',
    });
  });

  it('masks a card number and a labelled code in the gateway failure_reason before the journal and results (issue 24)', () => {
    const row = rowFromAnswer(
      item(),
      answer({
        status: 'FAILED',
        failure_reason: 'card 5555-5555-5555-4444 cvv 7391 refused',
        failure_type: 'E4001',
      }),
    );
    expect(row.outcome).toBe('failed');
    expect(row.failure_reason).toBe('card 555555******4444 cvv **** refused');
  });
});

describe('pending in a run', () => {
  const r = (outcome: PayoutResultRow['outcome']) => ({ outcome }) as PayoutResultRow;

  it('exit codes: 0 all completed, 1 some failed, 3 any pending or unknown', () => {
    expect(payoutExitCode([r('completed'), r('completed')])).toBe(0);
    expect(payoutExitCode([r('completed'), r('failed')])).toBe(1);
    expect(payoutExitCode([r('completed'), r('pending')])).toBe(3);
    expect(payoutExitCode([r('failed'), r('pending')])).toBe(3);
    expect(payoutExitCode([r('failed'), r('unknown')])).toBe(3);
  });

  it('a pending row is not settled: --resume sends it again', () => {
    const records = [
      {
        type: 'plan',
        items: [2, 3, 4, 5].map((line) => ({ line, request_id: `r${line}` })),
      },
      ...[
        [2, 'completed'],
        [3, 'failed'],
        [4, 'pending'],
        [5, 'unknown'],
      ].flatMap(([line, outcome]) => [
        { type: 'intent', line, request_id: `r${line}` },
        { type: 'result', line, request_id: `r${line}`, outcome },
      ]),
    ];
    expect([...settledFromRecords(records.map(parsed)).keys()]).toEqual([2, 3]);
  });

  it('the journal reads pending results back, and journals without them as before', () => {
    expect(parsed({ type: 'result', line: 4, outcome: 'pending', status: 'PENDING' })).toMatchObject({
      type: 'result',
      line: 4,
      outcome: 'pending',
      status: 'PENDING',
      failure_reason: '',
    });
    expect(parsed({ type: 'result', line: 2, outcome: 'completed', status: 'COMPLETED' })).toMatchObject({
      outcome: 'completed',
    });
    expect(() => parsed({ type: 'result', line: 2, outcome: 'maybe' })).toThrow(/outcome/);
  });

  it('a line changed after its payout went pending is refused, not sent as a new payout', () => {
    const key = (amount: string) => payoutKey({ payment_amount: amount, payment_currency: 'EUR' });
    const prior = priorPayouts(
      [
        {
          type: 'plan',
          items: [
            { line: 2, request_id: 'A', key: key('10.00') },
            { line: 3, request_id: 'B', key: key('20.00') },
          ],
        },
        { type: 'intent', line: 2, request_id: 'A' },
        { type: 'result', line: 2, request_id: 'A', outcome: 'pending', status: 'PENDING' },
        { type: 'intent', line: 3, request_id: 'B' },
        { type: 'result', line: 3, request_id: 'B', outcome: 'completed', status: 'COMPLETED' },
      ].map(parsed),
    );
    expect(prior.map((p) => p.outcome)).toEqual(['pending', 'completed']);
    const items: PayoutItem[] = [
      ['2', '11.00'],
      ['3', '20.00'],
    ].map(([line, amount]) => ({
      line: Number(line),
      request: { payment_amount: amount, payment_currency: 'EUR' },
      minor: 0n,
      currency: 'EUR',
      requestIdFrom: 'generated',
    }));
    const reuse = reuseRequestIds(items, prior, () => 'NEW', { file: 'p.csv', runId: 'RUN-1' });
    expect(reuse.reused).toBe(1);
    expect(reuse.conflicts).toHaveLength(1);
    expect(reuse.conflicts[0]).toMatchObject({ file: 'p.csv', line: 2 });
    expect(reuse.conflicts[0]!.message).toMatch(/still PENDING at the gateway \(request_id A\)/);

    // Unchanged, the pending payout keeps its request_id: the gateway answers for the same payout.
    const same: PayoutItem[] = [
      { ...items[0]!, request: { payment_amount: '10.00', payment_currency: 'EUR' } },
    ];
    expect(reuseRequestIds(same, prior, () => 'NEW', { file: 'p.csv', runId: 'RUN-1' }).conflicts).toEqual(
      [],
    );
    expect(same[0]!.request.request_id).toBe('A');
  });
});

describe('payout results on a terminal', () => {
  it('the table says what pending and unknown mean; CSV and JSON carry no note', async () => {
    const { writePayoutResults } = await import('../../../src/payout/payout-view.js');
    const { fakeIo } = await import('../output/helpers.js');
    const row = (line: number, outcome: PayoutResultRow['outcome'], status: string, reason = '', type = '') =>
      ({
        ...rowFromAnswer(item(), answer({ status })),
        line,
        outcome,
        failure_reason: reason,
        failure_type: type,
      }) as PayoutResultRow;
    const rows = [
      row(2, 'completed', 'COMPLETED'),
      row(3, 'pending', 'PENDING'),
      row(4, 'unknown', '', 'the gateway did not answer in time', 'timeout'),
      row(5, 'failed', 'FAILED', 'E4001:invalid beneficiary details'),
    ];
    const table = fakeIo();
    table.io.stdout = Object.assign(table.stdout, { columns: 400 });
    await writePayoutResults(table.io, rows, { format: 'table', color: false });
    const text = table.stdout.text();
    expect(text).toMatch(/note/);
    expect(text).toMatch(
      /│ pending +│ PENDING .*│ not finished by the gateway: --resume later \(pays once\) +│/,
    );
    expect(text).toMatch(/│ unknown .*│ no trusted answer \(timeout\): --resume later +│/);
    expect(text).toMatch(/E4001:invalid beneficiary details/);
    const json = fakeIo();
    await writePayoutResults(json.io, rows, { format: 'json', color: false });
    const parsedRows = jsonRows(json.stdout.text());
    expect(parsedRows.map((r: { outcome: string }) => r.outcome)).toEqual([
      'completed',
      'pending',
      'unknown',
      'failed',
    ]);
    expect(parsedRows[1]).not.toHaveProperty('note');
  });
});
