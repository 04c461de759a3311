// `payout --output json`: the same one JSON document as a bulk run (issue 27, item 5), on success
// and on bad input (nothing sent). The real binary against the sandbox; money judged by its ledger.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_DOCUMENT_KEYS } from '../../../src/output/run-document.js';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin, ledger } from '../pay/support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

function sample(transform: (text: string) => string = (t) => t): string {
  const file = join(tempDir(), 'payouts.csv');
  writeFileSync(file, transform(readFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), 'utf8')));
  return file;
}

describe('payout --output json: one document', { timeout: 60_000 }, () => {
  it('0: the payouts in rows, counted, totals as decimal strings', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const r = await runCli(['payout', '--file', sample(), '--yes', '--output', 'json'], { env: sandbox.env });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual([...RUN_DOCUMENT_KEYS]);
    expect(doc).toMatchObject({ operation: 'payout', state: 'finished', exit_code: 0, error: null });
    expect(doc.run_id).toMatch(/^\d{8}-\d{6}-/);
    expect(doc.counts.completed).toBe(doc.rows.length);
    expect(doc.counts).toMatchObject({ failed: 0, pending: 0, unknown: 0, not_sent: 0 });
    for (const byCurrency of Object.values(doc.totals) as Record<string, string>[])
      for (const amount of Object.values(byCurrency)) expect(amount).toMatch(/^\d+(\.\d+)?$/);
    const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
    expect(paid).toHaveLength(doc.rows.length);
  });

  it('2: a bad amount — nothing sent, rows empty, error set', async () => {
    await admin(sandbox.url, '/_sandbox/reset', {});
    const lines = (t: string) => t.split('\n');
    const file = sample((t) => {
      const [head, first, ...rest] = lines(t);
      const cols = head!.split(',');
      const cells = first!.split(',');
      cells[cols.indexOf('payment_amount')] = 'ten';
      return [head, cells.join(','), ...rest].join('\n');
    });
    const r = await runCli(['payout', '--file', file, '--yes', '--output', 'json'], { env: sandbox.env });
    expect(r.code, r.stderr).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ run_id: null, state: 'not_started', rows: [], exit_code: 2 });
    expect(doc.error.code).toBe('input');
    expect((await ledger(sandbox.url)).filter((e) => e.kind === 'payout')).toEqual([]);
  });
});
