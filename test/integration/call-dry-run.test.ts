// --dry-run sends nothing that can move money, for every command (issue 23 item 6): each command of
// the table runs with --dry-run (and --yes, which must not turn a dry run into a real one) against
// a sandbox whose request log and ledger say what reached it. `call` sends nothing at all, and
// prints the signed request it would have sent: no sign key, card data masked.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpointByPath } from '../../src/gateway/endpoints.js';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index.js';
import type { SandboxRequestEntry } from '../../src/sandbox/request-log.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { ledger } from '../helpers/sandbox-admin.js';

const PAN = '4242424242424242';
const CODE = '9731';

let sandbox: TestSandbox;
const seen: SandboxRequestEntry[] = [];
const dir = tempDir('payops-dry-');

beforeAll(async () => {
  sandbox = await startTestSandbox({
    seedFiles: ['samples/sandbox-orders.csv'],
    onRequest: (e) => {
      if (!e.path.startsWith('/_sandbox/')) seen.push(e);
    },
  });
  writeFileSync(
    join(dir, 'refund.json'),
    JSON.stringify({
      refund_orders: [
        {
          transaction_id: 'T0000000001',
          order_no: 'ORD-1001',
          currency: 'USD',
          amount: '100.00',
          refund_amount: '100.00',
          refund_reason: 'customer request',
        },
      ],
    }),
  );
  // A raw card payment body: its card data must never be printed whole.
  writeFileSync(
    join(dir, 'authorise.json'),
    JSON.stringify({
      order_no: 'ORD-DRY-1',
      amount: '7.00',
      currency: 'USD',
      card_number: PAN,
      security_code: CODE,
      expiration_month: '12',
      expiration_year: '2035',
    }),
  );
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  seen.length = 0;
});

/** Unknown paths count as money-moving, as `payops call` treats them. */
const movesMoney = (path: string) => endpointByPath(path)?.moneyMoving !== false;

interface Row {
  name: string;
  args: string[];
  input?: string;
  code: number;
  /** `call` sends nothing at all, read-only or not; the others may look up (read-only) and no more. */
  sendsNothing?: boolean;
}

const ORDER_FLAGS = ['--transaction-id', 'T0000000041', '--order-no', 'ORD-1041', '--currency', 'USD'];

const ROWS: Row[] = [
  {
    name: 'call /v1/refund --json',
    args: ['call', '/v1/refund', '--json', 'REFUND'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'call /v1/refund --json --yes',
    args: ['--yes', 'call', '/v1/refund', '--json', 'REFUND'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'call /v1/capture --data',
    args: ['call', '/v1/capture', ...captureData()],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'call /v1/authorise (card data in the body)',
    args: ['call', '/v1/authorise', '--json', 'AUTHORISE'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'call to an unknown path',
    args: ['call', '/v1/subscription/cancel', '--data', 'recurring_id=R-1'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'call /v1/retrievalTrans (read-only)',
    args: ['call', '/v1/retrievalTrans', '--data', 'order_no=ORD-1001'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'pay card (card data on stdin)',
    args: ['--yes', 'pay', 'card', '--amount', '7.00', '--currency', 'USD', '--expiry', '12/2035'],
    input: `${PAN}\n${CODE}\n`,
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'pay card --token-id',
    args: ['--yes', 'pay', 'card', '--amount', '7.00', '--currency', 'USD', '--token-id', 'TK-1'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'pay apm',
    args: ['--yes', 'pay', 'apm', '--request', 'samples/apm-request.json'],
    code: 0,
    sendsNothing: true,
  },
  {
    name: 'pay checkout',
    args: ['--yes', 'pay', 'checkout', '--request', 'samples/checkout-request.json'],
    code: 0,
    sendsNothing: true,
  },
  { name: 'refund FILE', args: ['--yes', 'refund', 'samples/refunds.csv'], code: 0 },
  {
    name: 'refund by flags',
    args: [
      '--yes',
      'refund',
      ...ORDER_FLAGS,
      '--amount',
      '40.00',
      '--refund-amount',
      '1.00',
      '--refund-reason',
      'dry',
    ],
    code: 0,
  },
  { name: 'capture FILE', args: ['--yes', 'capture', 'samples/capture.csv'], code: 0 },
  { name: 'cancel FILE', args: ['--yes', 'cancel', 'samples/cancel.csv'], code: 0 },
  { name: 'review FILE', args: ['--yes', 'review', 'samples/review.csv'], code: 0 },
  { name: 'payout CSV', args: ['--yes', 'payout', 'samples/payouts.csv'], code: 0, sendsNothing: true },
  {
    name: 'payout JSON',
    args: ['--yes', 'payout', '--request', 'samples/payout-request.json'],
    code: 0,
    sendsNothing: true,
  },
  { name: 'query', args: ['query', 'ORD-1001'], code: 0, sendsNothing: true },
  {
    name: 'refunds search',
    args: ['refunds', 'search', '--order-no', 'ORD-1001'],
    code: 0,
    sendsNothing: true,
  },
  { name: 'runs resume (nothing to resume)', args: ['--yes', 'runs', 'resume'], code: 2, sendsNothing: true },
  { name: 'config init (needs a terminal)', args: ['config', 'init'], code: 2, sendsNothing: true },
  { name: 'status (read-only look-ups)', args: ['status'], code: 0 },
];

function captureData(): string[] {
  const fields = { transaction_id: 'T0000000041', order_no: 'ORD-1041', currency: 'USD', amount: '40.00' };
  return Object.entries(fields).flatMap(([k, v]) => ['--data', `capture_orders[0].${k}=${v}`]);
}

const files = (args: string[]) =>
  args.map((a) =>
    a === 'REFUND' ? join(dir, 'refund.json') : a === 'AUTHORISE' ? join(dir, 'authorise.json') : a,
  );

describe('--dry-run sends nothing that moves money, whatever the command (issue 23 item 6)', () => {
  it.each(ROWS)('$name', async (row) => {
    const before = await ledger(sandbox.url);
    const r = await runCli(['--dry-run', ...files(row.args)], {
      env: sandbox.env,
      ...(row.input === undefined ? {} : { input: row.input }),
    });
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(row.code);
    expect(await ledger(sandbox.url)).toEqual(before);
    const moving = seen.filter((e) => movesMoney(e.path)).map((e) => `${e.method} ${e.path}`);
    expect(moving, out).toEqual([]);
    if (row.sendsNothing)
      expect(
        seen.map((e) => e.path),
        out,
      ).toEqual([]);
    // No secret and no card data, ever.
    expect(out).not.toContain(SANDBOX_CREDENTIALS.signKey);
    expect(out).not.toContain(PAN);
    expect(out).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${CODE}(?![0-9A-Za-z])`));
  });
});

describe('payops --dry-run call prints the signed request it would send', () => {
  it('method, URL, headers and the body with merchant, account and encryption_data', async () => {
    const r = await runCli(['--dry-run', 'call', '/v1/refund', '--json', join(dir, 'refund.json')], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toEqual([]);
    expect(r.stdout).toContain(`POST ${sandbox.url}/v1/refund`);
    expect(r.stdout).toMatch(/content-type: application\/json/i);
    expect(r.stdout).toMatch(/user-agent: payops\//i);
    const body = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(body).toMatchObject({
      merchant_id: SANDBOX_CREDENTIALS.merchantId,
      account_id: SANDBOX_CREDENTIALS.accountId,
      refund_orders: [{ order_no: 'ORD-1001', refund_amount: '100.00' }],
    });
    expect(body.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(r.stderr).toMatch(/dry run.*nothing (was|is) sent/i);
  });

  it('--output json gives the same request as one JSON object', async () => {
    const r = await runCli(
      ['--dry-run', '--output', 'json', 'call', '/v1/retrievalTrans', '--data', 'order_no=ORD-1001'],
      { env: sandbox.env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toEqual([]);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      dry_run: true,
      method: 'POST',
      url: `${sandbox.url}/v1/retrievalTrans`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { order_no: 'ORD-1001', merchant_id: SANDBOX_CREDENTIALS.merchantId },
    });
    expect(out.body.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(out.wire).toContain('order_no=ORD-1001');
  });

  it('a card number in the body shows masked (first 6, last 4); the security code not at all', async () => {
    const r = await runCli(['--dry-run', 'call', '/v1/authorise', '--json', join(dir, 'authorise.json')], {
      env: sandbox.env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('424242******4242');
    expect(r.stdout).not.toContain(PAN);
    expect(r.stdout).not.toContain('security_code');
  });
});
