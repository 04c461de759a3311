// Issue 24 item 6: a payment's result keeps every answer field of the spec (gateway-api.md "Direct
// card payment result", "APM payment result") in every output format — the card on a terminal, one
// CSV row (the default into a pipe), JSON, and --out FILE (.csv and .json). A token made with
// token_flag YES was lost unless JSON was asked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { CARDS } from './support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** The answer fields of the card result a person or a script needs (encryption_data aside). */
const CARD_FIELDS = [
  'merchant_id',
  'account_id',
  'order_no',
  'amount',
  'currency',
  'transaction_id',
  'card',
  'order_status',
  'result_info',
  'contract_name',
  'recurring_id',
  'recurring_deduction_period',
  'recurring_deduction_time',
  'note',
  'token_id',
  'connector',
  'threeds_result',
  'risk_action',
  'risk_score',
  'risk_reasons',
] as const;

function payCard(format: string[], orderNo: string) {
  return runCli(
    [
      '--yes',
      ...format,
      'pay',
      'card',
      '--amount',
      '12.50',
      '--currency',
      'USD',
      '--expiry',
      '12/2035',
      '--token-flag',
      'YES',
      '--note',
      'gift wrap',
      '--order-no',
      orderNo,
    ],
    { env: sandbox.env, input: `${CARDS.approved}\n123\n` },
  );
}

/** The values the sandbox answers with (JSON carries the gateway's answer whole). */
async function reference(orderNo: string): Promise<Record<string, string>> {
  const r = await payCard(['--output', 'json'], orderNo);
  expect(r.code, r.stderr).toBe(0);
  const res = JSON.parse(r.stdout).result as Record<string, unknown>;
  expect(res.token_id).toMatch(/\S/);
  expect(res.connector).toBe('sandbox');
  expect(res.note).toBe('gift wrap');
  return res as Record<string, string>;
}

describe('pay card: every answer field in every output format (issue 24 item 6)', { timeout: 90_000 }, () => {
  it('--output csv carries every field', async () => {
    // Into a pipe the default is the card (one result; docs/payments.md), tested below.
    for (const format of [['--output', 'csv']]) {
      const orderNo = `F-CSV-${format.length}-${Date.now()}`;
      const r = await payCard(format, orderNo);
      expect(r.code, r.stderr).toBe(0);
      const [row] = parse(r.stdout, { columns: true }) as Array<Record<string, string>>;
      for (const f of CARD_FIELDS) expect(Object.keys(row!), f).toContain(f);
      expect(row!.token_id).toMatch(/\S/);
      expect(row!.connector).toBe('sandbox');
      expect(row!.note).toBe('gift wrap');
      expect(row!.merchant_id).toMatch(/\S/);
      expect(row!.account_id).toMatch(/\S/);
      expect(row!.order_no).toBe(orderNo);
    }
  });

  it('--out FILE.csv and --out FILE.json carry every field, the token included', async () => {
    const dir = tempDir();
    const ref = await reference(`F-REF-${Date.now()}`);
    const csvFile = join(dir, 'r.csv');
    const a = await payCard(['--out', csvFile], `F-OUTC-${Date.now()}`);
    expect(a.code, a.stderr).toBe(0);
    const [row] = parse(readFileSync(csvFile, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    for (const f of CARD_FIELDS) expect(Object.keys(row!), f).toContain(f);
    expect(row!.token_id).toMatch(/\S/);
    expect(row!.merchant_id).toBe(ref.merchant_id);
    expect(row!.account_id).toBe(ref.account_id);

    const jsonFile = join(dir, 'r.json');
    const b = await payCard(['--out', jsonFile], `F-OUTJ-${Date.now()}`);
    expect(b.code, b.stderr).toBe(0);
    const data = JSON.parse(readFileSync(jsonFile, 'utf8'));
    for (const f of CARD_FIELDS) if (f !== 'card') expect(Object.keys(data.result), f).toContain(f);
    expect(data.result.token_id).toMatch(/\S/);
  });

  it('the card on a terminal shows every field, the token included', async () => {
    const ref = await reference(`F-REF2-${Date.now()}`);
    const r = await payCard(['--output', 'table'], `F-TAB-${Date.now()}`);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ['merchant_id', 'account_id', 'token_id', 'connector', 'note', 'card']) {
      expect(r.stdout, f).toMatch(new RegExp(`^\\s+${f}\\s`, 'm'));
    }
    expect(r.stdout).toContain(ref.merchant_id);
    expect(r.stdout).toContain('gift wrap');
  });
});

describe('pay apm: every answer field in every output format (issue 24 item 6)', { timeout: 90_000 }, () => {
  it('CSV and the card carry merchant_id, account_id and issuer_url', async () => {
    const args = ['pay', 'apm', '--request', 'samples/apm-request.json'];
    const c = await runCli(['--yes', '--output', 'csv', ...args, '--order-no', `A-CSV-${Date.now()}`], {
      env: sandbox.env,
    });
    expect(c.code, c.stderr).toBe(0);
    const [row] = parse(c.stdout, { columns: true }) as Array<Record<string, string>>;
    for (const f of ['merchant_id', 'account_id', 'order_no', 'amount', 'currency', 'issuer_url'])
      expect(row![f], f).toMatch(/\S/);
    const t = await runCli(['--yes', '--output', 'table', ...args, '--order-no', `A-TAB-${Date.now()}`], {
      env: sandbox.env,
    });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/^\s+merchant_id\s/m);
    expect(t.stderr).toMatch(/^\s+account_id\s/m);
  });
});
