// What a payout means (issue 23): content and file keys, request_ids derived from meaning, duplicate
// rows, and the payouts an earlier run made to the same account, amount and date.
import { describe, expect, it } from 'vitest';
import {
  derivedRequestId,
  duplicatePayouts,
  payoutFileKey,
  payoutKey,
  payoutMatch,
  uuidV5,
} from '../../../src/payout/meaning.js';
import type { PayoutItem } from '../../../src/payout/plan.js';
import { type EarlierPayout, journaledIds, possiblyDone } from '../../../src/payout/reuse.js';
import { runMain } from '../../helpers/in-process.js';

const GATEWAY = 'http://127.0.0.1:8080|M1|A1';

function payout(name: string, amount = '320.50', extra: Record<string, unknown> = {}) {
  return {
    payment_amount: amount,
    payment_currency: 'GBP',
    reference: 'INV-2026-202',
    beneficiary: { bank_details: { account_name: name, iban: 'GB82 WEST 1234 5698 7654 32' } },
    ...extra,
  };
}

describe('derivedRequestId', () => {
  it('is an RFC 4122 version 5 UUID (the RFC example: www.example.com in the DNS namespace)', () => {
    const dns = Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex');
    expect(uuidV5(dns, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('is the same for the same payout at the same gateway, and differs with either', () => {
    const key = payoutKey(payout('West Widgets Ltd'));
    const id = derivedRequestId(GATEWAY, key, 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The gateway compared by meaning: another spelling of the same URL is the same gateway.
    expect(derivedRequestId('HTTP://127.0.0.1:8080/|M1|A1', key, 0)).toBe(id);
    expect(derivedRequestId('http://127.0.0.1:8080|M1|A2', key, 0)).not.toBe(id);
    expect(derivedRequestId(GATEWAY, payoutKey(payout('West Widgets Ltd.')), 0)).not.toBe(id);
    expect(derivedRequestId(GATEWAY, key, 1)).not.toBe(id);
    // Account identifiers and codes as people type them: the IBAN grouped or in lower case, the
    // method in lower case (another home derived another request_id and paid again).
    const typed = (iban: string, method: string) =>
      payoutKey({
        ...payout('West Widgets Ltd'),
        payment_method: method,
        beneficiary: { bank_details: { account_name: 'West Widgets Ltd', iban } },
      });
    expect(typed('gb82west12345698765432', 'swift')).toBe(typed('GB82 WEST 1234 5698 7654 32', 'SWIFT'));
    expect(typed('GB82WEST12345698765432', 'SWIFT')).not.toBe(typed('GB82WEST12345698765433', 'SWIFT'));
    // Text by meaning: NFD, padding and doubled spaces are the same payout.
    expect(payoutKey(payout(' West  Widgets Ltd '))).toBe(key);
    expect(payoutKey(payout('Müller GmbH'.normalize('NFD')))).toBe(payoutKey(payout('Müller GmbH')));
    // Pinned: a change of this value would make a copy run after an upgrade pay again.
    expect(derivedRequestId(GATEWAY, 'k', 0)).toBe('d4ab9ac9-14de-5fde-8bd6-12eae2b94ae9');
  });
});

describe('payoutFileKey and duplicatePayouts', () => {
  it('a file key does not depend on row order; a request_id of the input counts', () => {
    const a = { key: 'a' };
    const b = { key: 'b' };
    expect(payoutFileKey([a, b])).toBe(payoutFileKey([b, a]));
    expect(payoutFileKey([a, b])).not.toBe(payoutFileKey([a, { key: 'b', inputId: 'X' }]));
    expect(payoutFileKey([a])).toMatch(/^payout-1-[0-9a-f]{32}$/);
  });

  it('refuses the same payout twice with both lines; two rows each with its own request_id pass', () => {
    const problems = duplicatePayouts(
      [
        { key: 'a', line: 2 },
        { key: 'b', line: 3 },
        { key: 'a', line: 4 },
        { key: 'c', line: 5, inputId: 'X' },
        { key: 'c', line: 6, inputId: 'Y' },
        { key: 'c', line: 7 },
      ],
      'p.csv',
    );
    expect(problems.map((p) => [p.line, p.message.match(/line (\d+)/)?.[1]])).toEqual([
      [4, '2'],
      [7, '5'],
    ]);
    expect(problems[0]).toMatchObject({ file: 'p.csv' });
  });
});

describe('possiblyDone', () => {
  const earlier = (match: string, outcome: EarlierPayout['outcome'], id = 'OLD'): EarlierPayout => ({
    runId: 'RUN-1',
    line: 3,
    request_id: id,
    key: 'k-old',
    match,
    outcome,
    status: outcome === 'completed' ? 'COMPLETED' : '',
  });
  const item = (from: PayoutItem['requestIdFrom'], request = payout('West Widgets Ltd.')): PayoutItem => ({
    line: 3,
    request: { ...request, request_id: 'NEW' },
    minor: 32050n,
    currency: 'GBP',
    requestIdFrom: from,
    key: payoutKey(request),
    match: payoutMatch(request),
  });

  it('an edited payout to the same account, amount, currency and date matches an earlier one that moved money', () => {
    const m = payoutMatch(payout('West Widgets Ltd'));
    // The name is not part of it; spaces in the IBAN are not either.
    expect(payoutMatch(payout('West Widgets Ltd.'))).toBe(m);
    expect(payoutMatch(payout('x', '320.51'))).not.toBe(m);
    expect(payoutMatch(payout('x', '320.50', { payment_date: '2026-12-01' }))).not.toBe(m);
    for (const outcome of ['completed', 'pending', 'unknown'] as const) {
      expect(possiblyDone([item('derived')], [earlier(m, outcome)])).toHaveLength(1);
    }
    // A failed or never-sent earlier payout moved no money; the same request_id is the same payout.
    expect(possiblyDone([item('derived')], [earlier(m, 'failed'), earlier(m, 'unsent')])).toEqual([]);
    expect(possiblyDone([item('derived')], [earlier(m, 'completed', 'NEW')])).toEqual([]);
    // A payout recognised by its content, or given its own id in the input, is not an edited copy.
    expect(possiblyDone([item('journal'), item('input')], [earlier(m, 'completed')])).toEqual([]);
  });

  it('journaledIds: the newest run first', () => {
    const ids = journaledIds([
      { ...earlier('m', 'completed', 'NEWER'), key: 'k' },
      { ...earlier('m', 'completed', 'OLDER'), key: 'k' },
    ]);
    expect(ids.get('k')).toBe('NEWER');
  });
});

describe('payout flags', () => {
  it('--resume with --new-request-ids (or --force) is refused before anything is read: exit 2', async () => {
    for (const flag of ['--new-request-ids', '--force']) {
      const r = await runMain(['payout', '--file', 'x.csv', '--resume', flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--resume and ${flag} contradict each other`);
    }
  });
});
