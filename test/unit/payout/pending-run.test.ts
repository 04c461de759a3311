// `payops payout` in-process (main() with an injected client) against a gateway whose payouts to an
// account ending in 7777 are PENDING on their first request and COMPLETED when the same request_id
// comes again — the sandbox's rule for that account (design.md §1.5). A pending payout ends the run
// open with exit 3; --resume or a plain re-run sends the same request_id and reports COMPLETED; the
// gateway pays each payout once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import type { GatewayClient } from '../../../src/gateway/client.js';
import { listRuns } from '../../../src/lifecycle/read.js';
import { jsonRows } from '../../helpers/json-rows.js';
import { fakeIo } from '../output/helpers.js';

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

interface PendingGateway {
  client: GatewayClient;
  /** Every payout request, in order. */
  sent: Array<Record<string, unknown>>;
  /** request_ids paid (COMPLETED), once each: the gateway is idempotent on request_id. */
  paid: Set<string>;
}

/** A payout-only gateway: PENDING first for an account ending in 7777, COMPLETED otherwise. */
function pendingGateway(): PendingGateway {
  const seen = new Set<string>();
  const gw: PendingGateway = { sent: [], paid: new Set(), client: undefined as unknown as GatewayClient };
  gw.client = {
    baseUrl: 'https://gateway.invalid',
    merchantId: '800001',
    accountId: '800001001',
    async send(op, body) {
      if (op !== 'payout') throw new Error(`unexpected ${op}`);
      const request = body as unknown as Record<string, unknown>;
      gw.sent.push(request);
      const id = String(request.request_id);
      const bank = (request.beneficiary as { bank_details: Record<string, string> }).bank_details;
      const pendingFirst = (bank.account_number ?? '').endsWith('7777') && !seen.has(id);
      seen.add(id);
      if (!pendingFirst) gw.paid.add(id);
      const data = {
        ...request,
        status: pendingFirst ? 'PENDING' : 'COMPLETED',
        failure_reason: '',
        failure_type: '',
        fee_amount: 0,
      };
      return { status: 200, data: data as never, signature: 'absent', durationMs: 1 };
    },
    sendBatch: () => Promise.reject(new Error('no batches here')),
    raw: () => Promise.reject(new Error('no raw calls here')),
    close: async () => {},
  };
  return gw;
}

const HEADER =
  'reference,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,beneficiary.bank_details.account_number,payer.entity_type';
const COMPLETES = 'INV-1,1250.00,EUR,SWIFT,COMPANY,Müller GmbH,DE89370400440532013000,,COMPANY';
const PENDS = (amount = '98000') => `INV-2,${amount},JPY,LOCAL,INDIVIDUAL,Taro Yamada,,1237777,COMPANY`;

function setup() {
  home = mkdtempSync(join(tmpdir(), 'payops-pending-'));
  const file = join(home, 'payouts.csv');
  writeFileSync(file, [HEADER, COMPLETES, PENDS()].join('\n'));
  return { home, file };
}

async function payout(gw: PendingGateway, args: string[]) {
  const { io, stdout, stderr } = fakeIo();
  io.env = {
    PAYOPS_HOME: home!,
    PAYOPS_BASE_URL: 'https://gateway.invalid',
    PAYOPS_MERCHANT_ID: '800001',
    PAYOPS_ACCOUNT_ID: '800001001',
    PAYOPS_SIGN_KEY: 'a-test-sign-key',
  };
  io.cwd = home!;
  const code = await main(['--yes', '--output', 'json', 'payout', ...args], io, {
    clientFactory: () => gw.client,
  });
  const out = stdout.text();
  return { code, rows: out ? jsonRows(out) : [], stderr: stderr.text() };
}

describe('a pending payout', () => {
  it('ends the run open with exit 3; --resume sends the same request_id and reports COMPLETED', async () => {
    const { home, file } = setup();
    const gw = pendingGateway();
    const first = await payout(gw, ['--file', file]);
    expect(first.code, first.stderr).toBe(3);
    expect(first.rows.map((r: { outcome: string; status: string }) => [r.outcome, r.status])).toEqual([
      ['completed', 'COMPLETED'],
      ['pending', 'PENDING'],
    ]);
    expect(first.stderr).toMatch(/1 completed, 0 failed, 1 pending, 0 unknown/);
    expect(first.stderr).toMatch(/the gateway has not finished this payout/);
    expect(first.stderr).toContain(`payops payout --file ${file} --resume --yes`);
    expect(first.stderr).toMatch(/it will not pay twice/);
    const pendingId = first.rows[1].request_id;

    // The journal holds the pending result and the run stays open for --resume.
    const runs = await listRuns(join(home, 'state'));
    expect(runs.map((r) => r.state)).toEqual(['interrupted']);
    const journal = readFileSync(join(home, 'state', 'runs', runs[0]!.runId, 'journal.jsonl'), 'utf8');
    expect(journal).toMatch(/"type":"result".*"outcome":"pending"/);
    expect(runs[0]!.terminal?.counts).toMatchObject({ completed: 1, pending: 1 });

    const resumed = await payout(gw, ['--file', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['completed', 'completed']);
    expect(resumed.rows[1].request_id).toBe(pendingId);
    // Only the pending payout went out again, under its own request_id; each payout paid once.
    expect(gw.sent.map((s) => s.request_id)).toEqual([first.rows[0].request_id, pendingId, pendingId]);
    expect(gw.paid.size).toBe(2);
    expect((await listRuns(join(home, 'state'))).map((r) => r.state)).toEqual(['finished']);
  });

  it('a plain re-run sends the same request_ids again and reports the final status', async () => {
    const { file } = setup();
    const gw = pendingGateway();
    const first = await payout(gw, ['--file', file]);
    expect(first.code, first.stderr).toBe(3);
    const again = await payout(gw, ['--file', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.rows.map((r: { request_id: string }) => r.request_id)).toEqual(
      first.rows.map((r: { request_id: string }) => r.request_id),
    );
    expect(again.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['completed', 'completed']);
    expect(new Set(gw.sent.map((s) => s.request_id)).size).toBe(2);
    expect(gw.paid.size).toBe(2);
  });

  it('a row changed while its payout is pending is refused (exit 2), nothing sent', async () => {
    const { file } = setup();
    const gw = pendingGateway();
    expect((await payout(gw, ['--file', file])).code).toBe(3);
    writeFileSync(file, [HEADER, COMPLETES, PENDS('99000')].join('\n'));
    const changed = await payout(gw, ['--file', file]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/payouts\.csv:3.*still PENDING at the gateway/);
    expect(gw.sent).toHaveLength(2);
  });
});
