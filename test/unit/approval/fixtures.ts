// Keys and plans for the approval unit tests: real Ed25519 pairs, a plan signed the way `payops
// plan` and `payops approve` sign it (the signing is test/helpers/approval.ts's, shared with the
// integration tests).

import { PLAN_FORMAT, type PlanBody, type PlanFile } from '../../../src/approval/plan-doc.js';
import { approved, type Person, person, signed } from '../../helpers/approval.js';

export type TestKey = Person;
export const testKey = person;

export function testPlan(maker: TestKey, over: Partial<PlanBody> = {}): PlanBody {
  return {
    format: PLAN_FORMAT,
    planId: 'pl_test1',
    op: 'refund',
    gateway: 'http://127.0.0.1:1/ merchant 1 account 2',
    merchantId: 'M1',
    accountId: 'A2',
    file: { name: 'refunds.csv', sha256: 'ab'.repeat(32) },
    content: 'ck_123',
    rowsDigest: 'cd'.repeat(32),
    rows: 3,
    totals: { USD: '1500.00', EUR: '20.00' },
    largest: [{ line: 2, currency: 'USD', amount: '1000.00', orderNo: 'O-1', transactionId: 'T1' }],
    gatewayShows: { done: 0, possiblyDone: 0 },
    readAs: 'utf-8, decimal point',
    columns: ['transaction_id', 'order_no', 'currency', 'refund_amount'],
    maker: maker.ref,
    createdAt: '2026-12-01T10:00:00.000Z',
    expiresAt: '2026-12-08T10:00:00.000Z',
    ...over,
  };
}

export function signedPlan(maker: TestKey, over: Partial<PlanBody> = {}): PlanFile {
  return signed(maker, testPlan(maker, over));
}

export function countersign(
  file: PlanFile,
  by: TestKey,
  role: 'approve' | 'reject' = 'approve',
  reason?: string,
  at = '2026-12-02T10:00:00.000Z',
): PlanFile {
  return approved(file, by, role, reason, at);
}
