// payout --request / --file through the real binary against a sandbox in this process: sending,
// validation, and idempotency on request_id across re-runs and --resume (checked in the ledger).

import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

async function payouts() {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
}

/** A private copy of a sample, so each test's input file (and its SHA-256 runs) is its own. */
/** A resumed run (JSON output) that ended with all three sample payouts completed, each paid once. */
async function expectEveryPayoutCompletedOnce(resumed: {
  code: number | null;
  stdout: string;
  stderr: string;
}) {
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(jsonRows(resumed.stdout).every((r: { outcome: string }) => r.outcome === 'completed')).toBe(true);
  expect(await payouts()).toHaveLength(3);
}

function copySample(name: string, transform?: (text: string) => string): string {
  const dir = tempDir();
  const file = join(dir, name);
  const text = readFileSync(join(REPO_ROOT, 'samples', name), 'utf8');
  writeFileSync(file, transform ? transform(text) : text);
  return file;
}

// Several whole-process runs per test: give them room on a loaded two-core machine.
describe('payout', { timeout: 90_000 }, () => {
  it('sends one payout from --request and journals its request_id', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payout-request.json');
    const r = await runCli(['--yes', '--output', 'json', 'payout', '--request', file], {
      env: sandbox.env,
      home,
    });
    expect(r.code, r.stderr).toBe(0);
    const [row] = jsonRows(r.stdout);
    expect(row).toMatchObject({
      outcome: 'completed',
      status: 'COMPLETED',
      payment_amount: '1250.00',
      payment_currency: 'EUR',
    });
    expect(row.fee_amount).not.toBe('');
    expect(row.short_reference_id).not.toBe('');
    expect(row.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).toMatch(/EUR 1,250\.00/);
    const entries = await payouts();
    expect(entries.map((e) => e.request_id)).toEqual([row.request_id]);
    const runs = readdirSync(join(home, 'state', 'runs'));
    expect(runs).toHaveLength(1);
    const journal = readFileSync(join(home, 'state', 'runs', runs[0]!, 'journal.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const planAt = journal.findIndex((rec) => rec.type === 'plan');
    const intentAt = journal.findIndex((rec) => rec.type === 'intent');
    expect(planAt).toBeGreaterThan(0);
    expect(planAt).toBeLessThan(intentAt);
    expect(journal[planAt].items[0].request_id).toBe(row.request_id);
  });

  it("keeps every answer field in results and journal; the table states the integer amounts' unit (issue 16)", async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payout-request.json');
    const r = await runCli(['--yes', '--output', 'json', 'payout', '--request', file], {
      env: sandbox.env,
      home,
    });
    expect(r.code, r.stderr).toBe(0);
    const [row] = jsonRows(r.stdout);
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/);
    expect(row.last_updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(row).toHaveProperty('payer_id');
    expect(row.local_clearing_system).toBe('SWIFT');
    // Integers as the gateway sent them, in minor units of fee_currency (1 % of 1250.00 EUR).
    expect(row.fee_amount).toBe('1250');
    const runs = readdirSync(join(home, 'state', 'runs'));
    const journal = readFileSync(join(home, 'state', 'runs', runs[0]!, 'journal.jsonl'), 'utf8');
    const result = journal
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((rec) => rec.type === 'result');
    expect(result).toMatchObject({
      created_at: row.created_at,
      last_updated_at: row.last_updated_at,
      local_clearing_system: 'SWIFT',
    });
    const table = await runCli(['--yes', '--output', 'table', 'payout', '--request', file], {
      env: sandbox.env,
      home: tempDir(),
    });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('12.50 EUR');
    // The integer 1250 is not shown bare beside payment_amount 1250.00.
    expect(table.stdout).not.toMatch(/[│ ]1250[ │]/);
  });

  it('upper-cases every country field, personal_fiscal_country included: "de" pays (issue 16)', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const file = copySample('payout-request.json', (text) => {
      const req = JSON.parse(text);
      req.beneficiary.additional_info = { personal_fiscal_country: 'de' };
      req.beneficiary.address.country_code = 'de';
      req.beneficiary.bank_details.bank_country_code = 'de';
      req.payer.address.country_code = 'gb';
      return JSON.stringify(req);
    });
    const r = await runCli(['--yes', '--output', 'json', 'payout', '--request', file], {
      env: sandbox.env,
      home: tempDir(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonRows(r.stdout)[0].outcome).toBe('completed');
    expect(await payouts()).toHaveLength(1);
  });

  it('sends one payout per CSV row; running the file again pays nobody twice', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payouts.csv');
    const first = await runCli(['--yes', '--output', 'csv', 'payout', '--file', file], {
      env: sandbox.env,
      home,
    });
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain('short_reference_id');
    expect(await payouts()).toHaveLength(3);
    const ids = (await payouts()).map((e) => e.request_id).sort();

    const again = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], {
      env: sandbox.env,
      home,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/3 of these payouts were sent before .*keep their request_ids/);
    const rows = jsonRows(again.stdout);
    expect(rows.map((r: { request_id: string }) => r.request_id).sort()).toEqual(ids);
    expect(rows.every((r: { outcome: string }) => r.outcome === 'completed')).toBe(true);
    expect(await payouts()).toHaveLength(3);

    // --force keeps journaled request_ids (issue 23): nobody is paid again.
    const forced = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--force'], {
      env: sandbox.env,
      home,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await payouts()).toHaveLength(3);

    // --new-request-ids means "new payouts": new request_ids, new ledger entries.
    const repeated = await runCli(
      ['--yes', '--output', 'json', 'payout', '--file', file, '--new-request-ids'],
      { env: sandbox.env, home },
    );
    expect(repeated.code, repeated.stderr).toBe(0);
    expect(await payouts()).toHaveLength(6);
  });

  it('an edited file keeps the ids of unchanged rows and refuses a changed completed one', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payouts.csv');
    const original = readFileSync(file, 'utf8');
    expect((await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env, home })).code).toBe(0);
    expect(await payouts()).toHaveLength(3);

    // A completed payout's amount changed: sending it under a new id would pay twice.
    writeFileSync(file, original.replace('320.50', '330.50'));
    const changed = await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env, home });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/payouts\.csv:3.*COMPLETED/);
    expect(await payouts()).toHaveLength(3);

    // A row added above the others: only it is paid; the others keep their ids (moved lines).
    const lines = original.trimEnd().split('\n');
    const added =
      'INV-2026-204,75.00,EUR,SWIFT,PAYER,COMPANY,New GmbH,New GmbH,DE89370400440532013000,,,DE,DE,COMPANY,Example Shop Ltd';
    writeFileSync(file, [lines[0], added, ...lines.slice(1)].join('\n'));
    const more = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], {
      env: sandbox.env,
      home,
    });
    expect(more.code, more.stderr).toBe(0);
    expect(more.stderr).toMatch(/3 of these payouts were sent before/);
    expect(jsonRows(more.stdout)).toHaveLength(4);
    expect(await payouts()).toHaveLength(4);
  });

  it('keeps a request_id given in the input, across homes', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const id = '6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b';
    const file = copySample('payout-request.json', (t) =>
      JSON.stringify({ ...JSON.parse(t), request_id: id }),
    );
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['--yes', '--output', 'json', 'payout', '--request', file], {
        env: sandbox.env,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(jsonRows(r.stdout)[0].request_id).toBe(id);
    }
    expect((await payouts()).map((e) => e.request_id)).toEqual([id]);
  });

  it('resumes payouts whose answers were lost with the same request_ids', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payouts.csv');
    await setFaults(sandbox.url, { mode: 'drop_after_commit', rate: 1, paths: ['/v1/payout'] });
    let lost: { code: number | null; stdout: string; stderr: string };
    try {
      lost = await runCli(['--yes', '--output', 'json', 'payout', '--file', file], {
        env: sandbox.env,
        home,
      });
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
    expect(lost.code, lost.stderr).toBe(3);
    expect(jsonRows(lost.stdout).every((r: { outcome: string }) => r.outcome === 'unknown')).toBe(true);
    expect(lost.stderr).toContain('--resume');
    // The gateway committed them before the answers were dropped.
    expect(await payouts()).toHaveLength(3);

    const resumed = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], {
      env: sandbox.env,
      home,
    });
    await expectEveryPayoutCompletedOnce(resumed);

    const nothingLeft = await runCli(['--yes', 'payout', '--file', file, '--resume'], {
      env: sandbox.env,
      home,
    });
    expect(nothingLeft.code).toBe(2);
  });

  it("a resumed payout run writes the first process's --out again and says so (issue 24 item 4)", async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payouts.csv');
    const out = join(tempDir(), 'payout-results.json');
    await setFaults(sandbox.url, { mode: 'drop_after_commit', rate: 1, paths: ['/v1/payout'] });
    try {
      const lost = await runCli(['--yes', '--out', out, 'payout', '--file', file], {
        env: sandbox.env,
        home,
      });
      expect(lost.code, lost.stderr).toBe(3);
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
    const outcomes = () =>
      (JSON.parse(readFileSync(out, 'utf8')) as Array<{ outcome: string }>).map((r) => r.outcome);
    expect(outcomes()).toEqual(['unknown', 'unknown', 'unknown']);
    const resumed = await runCli(['--yes', 'payout', '--file', file, '--resume'], { env: sandbox.env, home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`the results go to ${out}`);
    expect(outcomes()).toEqual(['completed', 'completed', 'completed']);
    expect(await payouts()).toHaveLength(3);
  });

  it('payops runs show and runs resume ID work on payout runs', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payouts.csv');
    await setFaults(sandbox.url, { mode: 'drop_after_commit', rate: 1, paths: ['/v1/payout'] });
    try {
      const lost = await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env, home });
      expect(lost.code, lost.stderr).toBe(3);
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
    const [runId] = readdirSync(join(home, 'state', 'runs'));
    const shown = await runCli(['--output', 'json', 'runs', 'show', runId!], { env: sandbox.env, home });
    expect(shown.code, shown.stderr).toBe(3);
    expect(jsonRows(shown.stdout).map((r: { outcome: string }) => r.outcome)).toEqual([
      'unknown',
      'unknown',
      'unknown',
    ]);
    const resumed = await runCli(['--yes', '--output', 'json', 'runs', 'resume', runId!], {
      env: sandbox.env,
      home,
    });
    await expectEveryPayoutCompletedOnce(resumed);
  });

  /**
   * Ten payouts sent one at a time (1 s each: the nine after the first outlast a late signal on a
   * loaded machine) with JSON results; `signal` once the gateway holds the first (polled from its
   * ledger, with a safety deadline only). Resolves with how payops ended and the payouts paid by then.
   */
  async function tenPayoutsStopped(signal: NodeJS.Signals) {
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
    await setFaults(sandbox.url, { mode: 'none', rate: 0, latency_ms: 1000, paths: ['/v1/payout'] });
    try {
      const child = spawn(
        process.execPath,
        [PAYOPS_BIN, '--yes', '--concurrency', '1', '--output', 'json', 'payout', '--file', file],
        { cwd: REPO_ROOT, env: cliEnv(home, sandbox.env), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const deadline = Date.now() + 60_000;
      while ((await payouts()).length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      child.kill(signal);
      const code = await exited;
      return { home, file, code, stdout, stderr, partial: (await payouts()).length };
    } finally {
      await setFaults(sandbox.url, { mode: 'none' });
    }
  }

  it('Ctrl-C stops after the payouts in flight (exit 130); --resume sends the rest once', async () => {
    const { home, file, code, stderr, partial } = await tenPayoutsStopped('SIGINT');
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('--resume');
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(10);
    const resumed = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], {
      env: sandbox.env,
      home,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(jsonRows(resumed.stdout)).toHaveLength(10);
    const entries = await payouts();
    expect(entries).toHaveLength(10);
    expect(new Set(entries.map((e) => e.request_id)).size).toBe(10);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s stops like the first Ctrl-C (exit %i): JSON results closed, every one journaled; --resume sends the rest once',
    async (name, exit) => {
      const { home, file, code, stdout, stderr, partial } = await tenPayoutsStopped(name);
      expect(code, stderr).toBe(exit);
      expect(stderr).toContain('--resume');
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(10);
      // The results shown are a whole JSON document, one per payout the gateway holds.
      const shown = jsonRows(stdout) as { outcome: string }[];
      expect(shown.filter((r) => r.outcome === 'completed')).toHaveLength(partial);
      const resumed = await runCli(['--yes', '--output', 'json', 'payout', '--file', file, '--resume'], {
        env: sandbox.env,
        home,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(jsonRows(resumed.stdout)).toHaveLength(10);
      const entries = await payouts();
      expect(entries).toHaveLength(10);
      expect(new Set(entries.map((e) => e.request_id)).size).toBe(10);
    },
  );

  it('one process at a time per input: a second payops on the same file is refused, nothing sent', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const home = tempDir();
    const file = copySample('payouts.csv');
    // Another payops holds the input: taken here the way a running one takes it.
    const { lockInput } = await import('../../../src/lifecycle/steps.js');
    const { stateDir } = await import('../../../src/config/paths.js');
    const identity = `${sandbox.url.replace(/\/+$/, '')}|${sandbox.env.PAYOPS_MERCHANT_ID}|${sandbox.env.PAYOPS_ACCOUNT_ID}`;
    // The lock is held on what the payouts mean (issue 23), so a copy saved with CRLF waits too.
    const { loadPayoutCsv } = await import('../../../src/payout/plan.js');
    const { contentKey } = await loadPayoutCsv(file, '/');
    const copy = join(tempDir(), 'copy.csv');
    writeFileSync(copy, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    const release = await lockInput(
      stateDir({ ...process.env, PAYOPS_HOME: home }),
      { key: contentKey, op: 'payout', gatewayIdentity: identity },
      'payouts.csv',
    );
    try {
      const r = await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env, home });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/payouts\.csv \(payout\) is in use by process \d+/);
      const c = await runCli(['--yes', 'payout', '--file', copy], { env: sandbox.env, home });
      expect(c.code, c.stderr).toBe(2);
      expect(await payouts()).toHaveLength(0);
    } finally {
      await release();
    }
    const after = await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env, home });
    expect(after.code, after.stderr).toBe(0);
    expect(await payouts()).toHaveLength(3);
  });

  it('reports a failed payout (exit 1) with failure_reason and failure_type', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    // Valid for payops, refused by the gateway: the same request_id with other content (E4002).
    const id = '0b5c6f0e-9d7e-4f0a-8a51-3c2d1e0f9a8b';
    const a = copySample('payout-request.json', (t) => JSON.stringify({ ...JSON.parse(t), request_id: id }));
    const b = copySample('payout-request.json', (t) =>
      JSON.stringify({ ...JSON.parse(t), request_id: id, payment_amount: '99.00' }),
    );
    expect((await runCli(['--yes', 'payout', '--request', a], { env: sandbox.env })).code).toBe(0);
    const r = await runCli(['--yes', '--output', 'json', 'payout', '--request', b], { env: sandbox.env });
    expect(r.code, r.stderr).toBe(1);
    expect(jsonRows(r.stdout)[0]).toMatchObject({
      outcome: 'failed',
      status: 'FAILED',
      failure_type: 'E4002',
    });
    expect(await payouts()).toHaveLength(1);
  });

  it('validates every row before sending: file:line:field, exit 2, nothing sent', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const dir = tempDir();
    const file = join(dir, 'bad.csv');
    writeFileSync(
      file,
      [
        'payment_amount,payment_currency,payment_method,request_id,beneficiary.entity_type,beneficiary.bank_details.account_name,beneficiary.bank_details.iban,payer.entity_type,payment_date',
        '10.00,EUR,SWIFT,,COMPANY,A,DE89370400440532013000,COMPANY,2026-12-01',
        '"1,250.00",EUR,SWIFT,,COMPANY,B,DE89370400440532013000,COMPANY,',
        '5.00,EURO,SWIFT,not-a-uuid,COMPANY,C,DE89370400440532013000,COMPANY,2026-13-01',
        '5.00,USD,SWIFT,,,D,DE00000000000000000000,,',
      ].join('\n'),
    );
    const r = await runCli(['--yes', 'payout', '--file', file], { env: sandbox.env });
    expect(r.code).toBe(2);
    for (const where of [
      'bad.csv:3 payment_amount',
      'bad.csv:4 payment_currency',
      'bad.csv:4 request_id',
      'bad.csv:4 payment_date',
      'bad.csv:5 beneficiary.entity_type',
      'bad.csv:5 beneficiary.bank_details.iban',
      'bad.csv:5 payer.entity_type',
    ]) {
      expect(r.stderr).toContain(where);
    }
    expect(r.stderr).not.toContain('bad.csv:2');
    expect(await payouts()).toHaveLength(0);

    const unknownColumn = join(dir, 'cols.csv');
    writeFileSync(
      unknownColumn,
      'payment_amount,beneficiary.bank_detail.iban\n1.00,DE89370400440532013000\n',
    );
    const c = await runCli(['--yes', 'payout', '--file', unknownColumn], { env: sandbox.env });
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('cols.csv:1 beneficiary.bank_detail.iban: is not a payout field');
  });

  it('asks for confirmation: without a terminal it needs --yes; --dry-run sends nothing', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const file = copySample('payouts.csv');
    const noYes = await runCli(['payout', '--file', file], { env: sandbox.env });
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toMatch(/EUR 1,250\.00 · GBP 320\.50 · JPY 98,000/);
    const dry = await runCli(['--dry-run', '--output', 'csv', 'payout', '--file', file], {
      env: sandbox.env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n')).toHaveLength(4);
    expect(await payouts()).toHaveLength(0);
  });

  it('a read-only profile refuses (exit 4)', async () => {
    const home = tempDir();
    expect((await runCli(['config', 'set', 'read_only', 'true'], { env: sandbox.env, home })).code).toBe(0);
    const r = await runCli(['--yes', 'payout', '--request', copySample('payout-request.json')], {
      env: sandbox.env,
      home,
    });
    expect(r.code).toBe(4);
  });

  it('the samples work against --sandbox', async () => {
    const home = tempDir();
    const dir = tempDir();
    copyFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), join(dir, 'payouts.csv'));
    const r = await runCli(
      ['--sandbox', '--yes', '--output', 'json', 'payout', '--file', join(dir, 'payouts.csv')],
      { env: {}, home },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(jsonRows(r.stdout)).toHaveLength(3);
  });
});
