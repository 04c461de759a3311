// `payout --wait` through the real binary against a real sandbox: a payout to an account ending in
// 7777 is PENDING on its first request and COMPLETED when the same request_id comes again (design.md
// §1.5). With --wait payops settles it in the same run: by sending the same request_id again, or by
// the payout event a running `payops listen` journaled. Money: the sandbox's ledger.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRows } from '../../helpers/json-rows.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { admin, ledger } from '../pay/support.js';
import { journalEvent, type LoggedSandbox, listenerHome, loggedSandbox, start, until } from './support.js';

let sandbox: LoggedSandbox;
beforeAll(async () => {
  sandbox = await loggedSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const HEADER =
  'reference,request_id,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,beneficiary.bank_details.account_number,payer.entity_type';

function csv(rows: string[]): string {
  const file = join(tempDir(), 'payouts.csv');
  writeFileSync(file, [HEADER, ...rows].join('\n'));
  return file;
}

/** Payouts sent with a notify_url: their events can reach a listener, so the wait expects them. */
function notifyCsv(rows: string[]): string {
  const file = join(tempDir(), 'payouts.csv');
  const url = 'http://127.0.0.1:9/payops-events';
  writeFileSync(file, [`${HEADER},notify_url`, ...rows.map((r) => `${r},${url}`)].join('\n'));
  return file;
}

const pendingRow = (ref: string, id: string) =>
  `${ref},${id},98000,JPY,LOCAL,INDIVIDUAL,Taro Yamada,,1237777,COMPANY`;
const completedRow = (ref: string, id: string) =>
  `${ref},${id},1250.00,EUR,SWIFT,COMPANY,Müller Verpackungen GmbH,DE89370400440532013000,,COMPANY`;

type Row = { line: string; request_id: string; outcome: string; status: string };
const payoutRequests = (from: number) =>
  sandbox.requests.slice(from).filter((r) => r.path === '/v1/payout').length;

describe('payout --wait', { timeout: 120_000 }, () => {
  it('a PENDING payout (…7777): the same request_id is sent again until COMPLETED; exit 0, paid once', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const file = csv([pendingRow('INV-W1', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7001')]);
    const r = await runCli(['--yes', '--output', 'json', 'payout', file, '--wait', '60s'], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(0);
    const rows: Row[] = jsonRows(r.stdout);
    expect(rows.map((x) => [x.request_id, x.outcome, x.status])).toEqual([
      ['3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7001', 'completed', 'COMPLETED'],
    ]);
    expect(r.stderr).toContain('waiting for a pending payout');
    const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
    expect(paid.map((e) => e.request_id)).toEqual(['3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7001']);
    // The run is finished: nothing left to resume.
    const again = await runCli(['--yes', 'payout', file, '--resume'], { env: sandbox.env, home: r.home });
    expect(again.code).toBe(2);
  });

  it('two payouts, one pending: the wait settles the pending one and keeps the other; ledger has two', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const file = csv([
      completedRow('INV-W2', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7002'),
      pendingRow('INV-W3', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7003'),
    ]);
    const r = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--wait'], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect((jsonRows(r.stdout) as Row[]).map((x) => x.outcome)).toEqual(['completed', 'completed']);
    const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
    expect(paid.map((e) => e.request_id).sort()).toEqual([
      '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7002',
      '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7003',
    ]);
  });

  it('with an events journal: payout.completed for the request_id ends the wait without sending again', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    listenerHome(home);
    const from = sandbox.requests.length;
    const file = notifyCsv([pendingRow('INV-W4', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7004')]);
    const r = start(['--yes', '--output', 'json', 'payout', file, '--wait', '60s'], home, sandbox.env);
    await until('the waiting line', () => r.out.stderr.includes('waiting for a pending payout'));
    // Another payout's event is not this one's.
    journalEvent(home, 'payout.completed', {
      request_id: '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7999',
      status: 'COMPLETED',
      payment_amount: '98000',
      payment_currency: 'JPY',
    });
    journalEvent(home, 'payout.completed', {
      request_id: '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7004',
      status: 'COMPLETED',
      payment_amount: '98000',
      payment_currency: 'JPY',
    });
    expect(await r.exited, r.out.stderr).toBe(0);
    expect((jsonRows(r.out.stdout) as Row[]).map((x) => [x.outcome, x.status])).toEqual([
      ['completed', 'COMPLETED'],
    ]);
    expect(payoutRequests(from)).toBe(1);
  });

  it('payout.failed for the request_id: failed, exit 1', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    listenerHome(home);
    const file = notifyCsv([pendingRow('INV-W5', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7005')]);
    const r = start(['--yes', '--output', 'json', 'payout', file, '--wait', '60s'], home, sandbox.env);
    await until('the waiting line', () => r.out.stderr.includes('waiting for a pending payout'));
    journalEvent(home, 'payout.failed', {
      request_id: '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7005',
      status: 'FAILED',
      failure_reason: 'beneficiary bank rejected the payment',
      payment_amount: '98000',
      payment_currency: 'JPY',
    });
    expect(await r.exited, r.out.stderr).toBe(1);
    expect((jsonRows(r.out.stdout) as Row[]).map((x) => x.outcome)).toEqual(['failed']);
  });

  it('an event whose amount is not the payout sent is not taken: the gateway settles it at the deadline', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    listenerHome(home);
    const file = notifyCsv([pendingRow('INV-W6', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7006')]);
    // The journal exists, so the gateway is asked only at the deadline; the sandbox then answers
    // COMPLETED (second request): a ledger entry proves that resend happened, so the event was ignored.
    const r = start(['--yes', '--output', 'json', 'payout', file, '--wait', '4s'], home, sandbox.env);
    await until('the waiting line', () => r.out.stderr.includes('waiting for a pending payout'));
    journalEvent(home, 'payout.completed', {
      request_id: '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7006',
      status: 'COMPLETED',
      payment_amount: '1',
      payment_currency: 'JPY',
    });
    expect(await r.exited, r.out.stderr).toBe(0);
    // Settled by the gateway at the deadline (the same request_id), not by the wrong event.
    const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
    expect(paid.map((e) => e.request_id)).toEqual(['3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7006']);
  });

  it('a listener runs but the payout has no notify_url: no event can come, so the gateway is asked at once (1 s, 2 s …)', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    listenerHome(home);
    const from = sandbox.requests.length;
    const file = csv([pendingRow('INV-W10', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7010')]);
    const r = start(['--yes', '--output', 'json', 'payout', file, '--wait', '10m'], home, sandbox.env);
    expect(await r.exited, r.out.stderr).toBe(0);
    expect((jsonRows(r.out.stdout) as Row[]).map((x) => [x.outcome, x.status])).toEqual([
      ['completed', 'COMPLETED'],
    ]);
    expect(r.out.stderr).toContain('created without a notify_url, so no event of it reaches payops listen');
    // The sandbox's own clock: the resend came at the quick schedule's first step (1 s ± 20 %), not
    // the listener's (15 s ± 20 %: never before 12 s). 12 s leaves a loaded machine ample room.
    const sent = sandbox.requests.slice(from).filter((q) => q.path === '/v1/payout');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at.getTime() - sent[0]!.at.getTime()).toBeLessThan(12_000);
  });

  it('Ctrl-C while waiting: exit 130, the run stays open and --resume settles it', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    listenerHome(home); // the gateway would be asked only after ~15 s: the Ctrl-C comes first
    const file = notifyCsv([pendingRow('INV-W7', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7007')]);
    const r = start(['--yes', '--output', 'json', 'payout', file, '--wait', '10m'], home, sandbox.env);
    await until('the waiting line', () => r.out.stderr.includes('waiting for a pending payout'));
    r.child.kill('SIGINT');
    expect(await r.exited, r.out.stderr).toBe(130);
    expect((jsonRows(r.out.stdout) as Row[]).map((x) => x.outcome)).toEqual(['pending']);
    const resumed = await runCli(['--yes', '--output', 'json', 'payout', file, '--resume'], {
      env: sandbox.env,
      home,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await ledger(sandbox.url)).filter((e) => e.kind === 'payout')).toHaveLength(1);
  });
});

describe('payout --wait: failed and not settled', { timeout: 120_000 }, () => {
  it('a payout PENDING then FAILED (…6666): the resend reports FAILED; exit 1, nothing paid', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const file = csv([
      pendingRow('INV-W8', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7008').replace('1237777', '1236666'),
    ]);
    const r = await runCli(['--yes', '--output', 'json', 'payout', file, '--wait', '60s'], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(1);
    expect((jsonRows(r.stdout) as Row[]).map((x) => x.outcome)).toEqual(['failed']);
    expect((await ledger(sandbox.url)).filter((e) => e.kind === 'payout')).toHaveLength(0);
  });

  it('still without a final answer at the deadline: exit 3, said so, the run stays open', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    listenerHome(home); // the gateway is asked again only at the deadline
    const file = notifyCsv([pendingRow('INV-W9', '3f1c9a52-8a3e-4c55-9a57-0c8d6d0e7009')]);
    // 10 s: room on a loaded 2-core machine to set the fault below before the deadline's resend.
    const r = start(['--yes', '--output', 'json', 'payout', file, '--wait', '10s'], home, sandbox.env);
    await until('the waiting line', () => r.out.stderr.includes('waiting for a pending payout'));
    // The answer to the resend at the deadline is lost (HTTP 500): the payout stays open.
    await admin(sandbox.url, '/_sandbox/faults', { mode: 'error500', rate: 1, paths: ['/v1/payout'] });
    try {
      expect(await r.exited, r.out.stderr).toBe(3);
    } finally {
      await admin(sandbox.url, '/_sandbox/faults', { mode: 'none' });
    }
    expect(r.out.stderr).toContain('1 payout is still not settled after 10s; the run stays open');
    expect(r.out.stderr).toContain('--resume');
    expect((jsonRows(r.out.stdout) as Row[]).map((x) => x.outcome)).not.toContain('completed');
    const resumed = await runCli(['--yes', 'payout', file, '--resume'], { env: sandbox.env, home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await ledger(sandbox.url)).filter((e) => e.kind === 'payout')).toHaveLength(1);
  });
});
