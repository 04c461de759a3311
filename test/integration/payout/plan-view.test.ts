// Issue 27, item 9: what the payout plan and results say. A dry run shows only the request_ids the
// run will send; results keep the input's `reference`; with settings from the environment the plan
// names the merchant and account (no "profile default"); a resumed run's header totals the payouts
// left. The real binary against a sandbox in this process; its ledger says what was paid.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRows } from '../../helpers/json-rows.js';
import { cliEnv, PAYOPS_BIN, REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin, ledger, setFaults } from '../pay/support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const payouts = async () => (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');

function sample(): string {
  const file = join(tempDir(), 'payouts.csv');
  writeFileSync(file, readFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), 'utf8'));
  return file;
}

interface Shown {
  line: string;
  request_id: string;
  request_id_from: string;
  reference: string;
}

describe('payout plan and results', { timeout: 90_000 }, () => {
  for (const extra of [[], ['--new-request-ids']]) {
    it(`a dry run shows only request_ids the run sends${extra.length ? ` (${extra[0]})` : ''}`, async () => {
      await admin(sandbox.url, '/_sandbox/reset', {});
      const home = tempDir();
      const file = sample();
      const args = ['--output', 'json', 'payout', '--file', file, ...extra];
      const dry = await runCli(['--dry-run', ...args], { env: sandbox.env, home });
      expect(dry.code, dry.stderr).toBe(0);
      // --output json: the run document (state dry_run) holds the planned payouts as its rows.
      const doc = JSON.parse(dry.stdout);
      expect(doc.state).toBe('dry_run');
      const shown = doc.rows as Shown[];
      const run = await runCli(['--yes', ...args], { env: sandbox.env, home });
      expect(run.code, run.stderr).toBe(0);
      const sent = new Map((await payouts()).map((p) => [p.request_id, p]));
      expect(sent.size).toBe(3);
      for (const s of shown) {
        // Shown: the very id the run sent. Not known before sending: none shown, and said so.
        if (s.request_id !== '') expect(sent.has(s.request_id), JSON.stringify(s)).toBe(true);
        else expect(s.request_id_from).toBe('made when sent');
      }
      if (extra.length > 0) expect(dry.stderr).toContain('3 request_ids are made when the payouts are sent');
      else expect(shown.every((s) => s.request_id !== '')).toBe(true);
      // The input's reference is in the dry run and in the results.
      expect(shown.map((s) => s.reference)).toEqual(['INV-2026-201', 'INV-2026-202', 'INV-2026-203']);
      expect(jsonRows<{ reference: string }>(run.stdout).map((r) => r.reference)).toEqual([
        'INV-2026-201',
        'INV-2026-202',
        'INV-2026-203',
      ]);
      // Settings from the environment: the merchant and account are named, no profile.
      expect(dry.stderr).toMatch(/gateway: \S+ · merchant \S+ · account \S+ \(settings from the environment/);
      expect(dry.stderr).not.toContain('profile default');
    });
  }

  it('a resumed run totals the payouts left, the whole file apart', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = join(tempDir(), 'ten.csv');
    const header =
      'reference,payment_amount,payment_currency,payment_method,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,payer.entity_type';
    const rows = Array.from(
      { length: 10 },
      (_, i) => `R-${i},${i + 1}.00,EUR,SWIFT,COMPANY,Supplier ${i},DE89370400440532013000,COMPANY`,
    );
    writeFileSync(file, [header, ...rows].join('\n'));
    // One at a time, 1 s each: Ctrl-C once the gateway holds the first leaves most unsent.
    await setFaults(sandbox.url, { mode: 'none', rate: 0, latency_ms: 1000, paths: ['/v1/payout'] });
    try {
      const child = spawn(
        process.execPath,
        [PAYOPS_BIN, '--yes', '--concurrency', '1', '--output', 'json', 'payout', '--file', file],
        { cwd: REPO_ROOT, env: cliEnv(home, sandbox.env), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child.stdout.resume();
      child.stderr.resume();
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const deadline = Date.now() + 60_000;
      while ((await payouts()).length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
    const paid = await payouts();
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.length).toBeLessThan(10);
    const paidCents = paid.reduce((sum, p) => sum + Math.round(Number(p.payment_amount) * 100), 0);
    const left = (5500 - paidCents) / 100;
    const dry = await runCli(['--dry-run', 'payout', '--file', file, '--resume'], { env: sandbox.env, home });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      `${10 - paid.length} payouts from ${file}: EUR ${left.toFixed(2)} (the whole file: EUR 55.00)`,
    );
  });
});
