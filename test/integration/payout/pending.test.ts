// Pending and unsigned payout answers through the real binary, with money checked in the sandbox's
// ledger: a PENDING payout is reported `pending` (exit 3) and the run stays open; --resume or a plain
// re-run sends the same request_id and reports COMPLETED; nobody is paid twice. Unsigned answers are
// read (fields checked) instead of becoming unknown; a bad signature stays an unknown outcome.
//
// The sandbox answers PENDING, then COMPLETED, for a beneficiary account ending in 7777
// (docs/sandbox.md). pending-proxy.ts can play that account too (GATEWAY = 'proxy', as before the
// sandbox had it); the unsigned-answer test always goes through it, since it strips signatures.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRows } from '../../helpers/json-rows.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin, ledger, setFaults } from '../pay/support.js';
import { type PendingProxy, startPendingProxy } from './pending-proxy.js';

/** Who answers PENDING for an account ending in 7777. */
const GATEWAY = 'sandbox' as 'proxy' | 'sandbox';

let sandbox: TestSandbox;
let pendingProxy: PendingProxy;
let unsignedProxy: PendingProxy;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  const signKey = sandbox.env.PAYOPS_SIGN_KEY!;
  pendingProxy = await startPendingProxy(sandbox.url, { pendingFor7777: GATEWAY === 'proxy', signKey });
  unsignedProxy = await startPendingProxy(sandbox.url, {
    pendingFor7777: GATEWAY === 'proxy',
    unsigned: true,
    signKey,
  });
});
afterAll(async () => {
  await pendingProxy?.close();
  await unsignedProxy?.close();
  await sandbox?.close();
});

/** The gateway as the CLI sees it. */
function env(url: string = GATEWAY === 'proxy' ? pendingProxy.url : sandbox.url) {
  return { ...sandbox.env, PAYOPS_BASE_URL: url };
}

async function payouts() {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
}

/** Two payouts: one the gateway completes at once, one to an account ending in 7777 (PENDING first). */
function twoPayouts(): string {
  const file = join(tempDir(), 'payouts.csv');
  writeFileSync(
    file,
    [
      'reference,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,beneficiary.bank_details.account_number,payer.entity_type',
      'INV-1,1250.00,EUR,SWIFT,COMPANY,Müller Verpackungen GmbH,DE89370400440532013000,,COMPANY',
      'INV-2,98000,JPY,LOCAL,INDIVIDUAL,Taro Yamada,,1237777,COMPANY',
    ].join('\n'),
  );
  return file;
}

type Row = { line: string; request_id: string; outcome: string; status: string; failure_type: string };

describe('pending and unsigned payouts', { timeout: 90_000 }, () => {
  it('PENDING is reported pending (exit 3); --resume sends the same request_id and reports COMPLETED', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = twoPayouts();
    const first = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], { env: env(), home });
    expect(first.code, first.stderr).toBe(3);
    const rows: Row[] = jsonRows(first.stdout);
    expect(rows.map((r) => [r.line, r.outcome, r.status])).toEqual([
      ['2', 'completed', 'COMPLETED'],
      ['3', 'pending', 'PENDING'],
    ]);
    expect(first.stderr).toMatch(/1 pending/);
    expect(first.stderr).toMatch(/the gateway has not finished this payout/);
    expect(first.stderr).toContain(`payops payout --file ${file} --resume --yes`);
    const pendingId = rows[1]!.request_id;

    // `runs list` shows the run open (a second run of --resume finds it): unfinished, exit 3 — not
    // "interrupted", which is kept for Ctrl-C (issue 15).
    const list = await runCli(['--output', 'json', 'runs', 'list'], { env: env(), home });
    expect(jsonRows(list.stdout).map((r: { state: string }) => r.state)).toEqual(['unfinished']);

    const resumed = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], {
      env: env(),
      home,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after: Row[] = jsonRows(resumed.stdout);
    expect(after.map((r) => [r.outcome, r.status])).toEqual([
      ['completed', 'COMPLETED'],
      ['completed', 'COMPLETED'],
    ]);
    expect(after[1]!.request_id).toBe(pendingId);
    // Exactly two payouts in the ledger, the pending one under its first request_id.
    const paid = await payouts();
    expect(paid.map((e) => e.request_id).sort()).toEqual(after.map((r) => r.request_id).sort());
    expect(paid).toHaveLength(2);

    const nothingLeft = await runCli(['--yes', 'payout', '--file', file, '--resume'], { env: env(), home });
    expect(nothingLeft.code).toBe(2);
    expect(await payouts()).toHaveLength(2);
  });

  it('a plain re-run after PENDING sends the same request_ids; runs show reports pending (exit 3)', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = twoPayouts();
    const first = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], { env: env(), home });
    expect(first.code, first.stderr).toBe(3);
    const ids = (jsonRows(first.stdout) as Row[]).map((r) => r.request_id);

    const [runId] = readdirSync(join(home, 'state', 'runs'));
    const shown = await runCli(['--output', 'json', 'runs', 'show', runId!], { env: env(), home });
    expect(shown.code, shown.stderr).toBe(3);
    expect((jsonRows(shown.stdout) as Row[]).map((r) => r.outcome)).toEqual(['completed', 'pending']);

    const again = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], { env: env(), home });
    expect(again.code, again.stderr).toBe(0);
    const rows: Row[] = jsonRows(again.stdout);
    expect(rows.map((r) => r.request_id)).toEqual(ids);
    expect(rows.every((r) => r.outcome === 'completed')).toBe(true);
    expect((await payouts()).map((e) => e.request_id).sort()).toEqual([...ids].sort());
  });

  it('unsigned payout answers are read, fields checked: completed and pending, not unknown', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = twoPayouts();
    const first = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], {
      env: env(unsignedProxy.url),
      home,
    });
    expect(first.code, first.stderr).toBe(3);
    const rows: Row[] = jsonRows(first.stdout);
    expect(rows.map((r) => r.outcome)).toEqual(['completed', 'pending']);
    const resumed = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], {
      env: env(unsignedProxy.url),
      home,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((jsonRows(resumed.stdout) as Row[]).map((r) => r.request_id)).toEqual(
      rows.map((r) => r.request_id),
    );
    expect(await payouts()).toHaveLength(2);
  });

  it('a payout answer whose signature does not verify stays unknown; --resume finishes it, paid once', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = twoPayouts();
    await setFaults(sandbox.url, { mode: 'bad_signature', rate: 1, paths: ['/v1/payout'] });
    let bad: { code: number | null; stdout: string; stderr: string };
    try {
      bad = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], {
        env: env(sandbox.url),
        home,
      });
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
    expect(bad.code, bad.stderr).toBe(3);
    expect((jsonRows(bad.stdout) as Row[]).map((r) => [r.outcome, r.failure_type])).toEqual([
      ['unknown', 'bad_signature'],
      ['unknown', 'bad_signature'],
    ]);
    const resumed = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], {
      env: env(sandbox.url),
      home,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await payouts()).toHaveLength(2);
  });
});
