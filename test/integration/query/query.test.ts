// `payops query` and `payops refunds search` through the real binary against the real sandbox.
// Needs `npm run build` first (the `test` script does it).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigner } from '../../../src/gateway/signer.js';
import { formatMoney, parseAmount } from '../../../src/money/amount.js';
import { SANDBOX_CREDENTIALS } from '../../../src/sandbox/index.js';
import { type RunResult, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

interface SeededOrder {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  payment_status: string;
}

/** Every field of the specification's orders_list element (design.md §1.8: "the service" is website). */
const ORDERS_LIST_FIELDS = [
  'order_no',
  'transaction_id',
  'reference_no',
  'amount',
  'currency',
  'payment_status',
  'query_result',
  'is3ds',
  'transaction_date',
  'website',
  'shopper_email',
  'shopper_phone',
  'delivery_information',
  'antifraud_provider',
  'fraud_check_result',
  'subscription_result',
];
const DELIVERY_FIELDS = [
  'delivery_address',
  'delivery_city',
  'delivery_country',
  'delivery_firstname',
  'delivery_lastname',
  'delivery_postal_code',
  'delivery_state',
];
const SUBSCRIPTION_FIELDS = [
  'contract_name',
  'recurring_deduction_period',
  'recurring_deduction_time',
  'recurring_id',
  'recurring_status',
];

let sandbox: TestSandbox;
const work = tempDir('payops-query-');

async function admin<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

function createOrders(count: number, state = '3000', currency = 'USD'): Promise<SeededOrder[]> {
  return admin<SeededOrder[]>('/_sandbox/orders', { count, state, currency });
}

/** A partial refund sent as a signed request of its own (not through payops). */
async function refund(o: SeededOrder, amount: string, reason: string): Promise<Record<string, string>> {
  const body: Record<string, unknown> = {
    merchant_id: SANDBOX_CREDENTIALS.merchantId,
    account_id: SANDBOX_CREDENTIALS.accountId,
    refund_orders: [
      {
        transaction_id: o.transaction_id,
        order_no: o.order_no,
        currency: o.currency,
        amount: o.amount,
        refund_amount: amount,
        refund_reason: reason,
      },
    ],
  };
  body.encryption_data = createSigner(SANDBOX_CREDENTIALS.signKey).sign(body);
  const res = await fetch(`${sandbox.url}/v1/refund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = (await res.json()) as { return_status: string; refund_orders: Array<Record<string, string>> };
  expect(data.return_status).toBe('1');
  expect(data.refund_orders[0]!.refund_status).toBe('1');
  return data.refund_orders[0]!;
}

function payops(args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return runCli(args, { env: { ...sandbox.env, TZ: 'UTC', NO_COLOR: '1', ...env } });
}

/** Requests the transport logged with --verbose (one line per HTTP answer). */
function requestsTo(stderr: string, path: string): number {
  return stderr.split('\n').filter((l) => l.includes(`POST ${path} → `)).length;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('payops query', () => {
  it('looks up 250 orders from a CSV in 3 requests and shows each once, with every orders_list field', async () => {
    const orders = await createOrders(250);
    const file = join(work, 'orders.csv');
    // Order_No in another case and a repeat: the column is matched case-insensitively, repeats asked once.
    writeFileSync(
      file,
      `Order_No\r\n${orders.map((o) => o.order_no).join('\r\n')}\r\n${orders[0]!.order_no}\r\n`,
    );
    const r = await payops(['--verbose', 'query', '--file', file, '--output', 'json']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code, r.stderr).toBe(0);
    expect(requestsTo(r.stderr, '/v1/retrievalTrans')).toBe(3);

    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(250);
    expect(rows.map((x) => x.order_no)).toEqual(orders.map((o) => o.order_no));
    for (const row of rows) {
      expect(row.found).toBe(true);
      for (const f of ORDERS_LIST_FIELDS) expect(row).toHaveProperty(f);
      expect(Object.keys(row.delivery_information as object).sort()).toEqual(DELIVERY_FIELDS);
      expect(Object.keys(row.subscription_result as object).sort()).toEqual(SUBSCRIPTION_FIELDS);
      expect(Array.isArray(row.fraud_check_result)).toBe(true);
      expect(row.payment_status).toBe('3000');
      expect(row.payment_status_label).toBe('captured');
    }
  });

  it('splits 250 order numbers given as flags the same way', async () => {
    const orders = await createOrders(250);
    const list = orders.map((o) => o.order_no);
    const args = ['--verbose', 'query', '--output', 'json', '--order-no', list.slice(0, 200).join(',')];
    for (const no of list.slice(200)) args.push('--order-no', no);
    const r = await payops(args);
    expect(r.code, r.stderr).toBe(0);
    expect(requestsTo(r.stderr, '/v1/retrievalTrans')).toBe(3);
    const rows = JSON.parse(r.stdout) as Array<{ order_no: string }>;
    expect(new Set(rows.map((x) => x.order_no)).size).toBe(250);
  });

  it('prints a table of key columns for several orders', async () => {
    const [a, b] = await createOrders(2, '2000', 'EUR');
    const r = await payops(['query', '--order-no', `${a!.order_no},${b!.order_no}`, '--output', 'table']);
    expect(r.code, r.stderr).toBe(0);
    for (const o of [a!, b!]) {
      expect(r.stdout).toContain(o.order_no);
      expect(r.stdout).toContain(o.transaction_id);
    }
    expect(r.stdout).toContain('2000 authorised');
    expect(r.stdout).toContain(`EUR ${a!.amount}`);
  });

  it('writes CSV with flattened columns, to stdout or --out', async () => {
    const [a, b] = await createOrders(2);
    const r = await payops([
      'query',
      '--transaction-id',
      a!.transaction_id,
      '--order-no',
      b!.order_no,
      '--output',
      'csv',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split(/\r?\n/);
    expect(lines).toHaveLength(3);
    const head = lines[0]!.split(',');
    for (const col of [
      'found',
      'order_no',
      'payment_status',
      'payment_status_label',
      'delivery_information.delivery_city',
      'fraud_check_result[0].check_items',
      'fraud_check_result[0].status',
      'subscription_result.recurring_id',
      'website',
    ]) {
      expect(head).toContain(col);
    }

    const out = join(work, 'result.json');
    const f = await payops(['query', '--order-no', a!.order_no, '--out', out]);
    expect(f.code, f.stderr).toBe(0);
    const rows = JSON.parse(readFileSync(out, 'utf8')) as Array<{ transaction_id: string }>;
    expect(rows.map((x) => x.transaction_id)).toEqual([a!.transaction_id]);
  });

  it('neutralises spreadsheet formulas in CSV cells but keeps JSON as returned', async () => {
    const orderNo = `CSVSAFE-${Date.now()}`;
    const formula = '=HYPERLINK("http://evil.example","x")';
    const body: Record<string, unknown> = {
      merchant_id: SANDBOX_CREDENTIALS.merchantId,
      account_id: SANDBOX_CREDENTIALS.accountId,
      order_no: orderNo,
      currency: 'USD',
      amount: '10.00',
      card: '4242424242424242',
      expiration_month: '12',
      expiration_year: String(new Date().getUTCFullYear() + 2),
      security_code: '123',
      delivery_firstname: 'Ann',
      delivery_address: formula,
      delivery_city: 'London',
    };
    body.encryption_data = createSigner(SANDBOX_CREDENTIALS.signKey).sign(body);
    const paid = await fetch(`${sandbox.url}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(paid.status).toBe(200);

    const csv = await payops(['query', '--order-no', orderNo, '--output', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [head, line] = csv.stdout.trim().split(/\r?\n/);
    const col = head!.split(',').indexOf('delivery_information.delivery_address');
    expect(col).toBeGreaterThan(0);
    expect(line).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(line).toContain('London');

    const json = await payops(['query', '--order-no', orderNo, '--output', 'json']);
    const [row] = JSON.parse(json.stdout) as Array<{ delivery_information: Record<string, string> }>;
    expect(row!.delivery_information.delivery_address).toBe(formula);
    expect(row!.delivery_information.delivery_city).toBe('London');
  });

  it('lists orders that were not returned as not found, with exit code 1', async () => {
    const [a] = await createOrders(1);
    const r = await payops([
      'query',
      '--order-no',
      `${a!.order_no},NO-SUCH-1`,
      '--transaction-id',
      'NO-SUCH-T',
      '--output',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('NO-SUCH-1');
    expect(r.stderr).toContain('NO-SUCH-T');
    expect(r.stderr).toMatch(/not found/);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      expect.objectContaining({ found: true, order_no: a!.order_no }),
      { found: false, order_no: 'NO-SUCH-1' },
      { found: false, transaction_id: 'NO-SUCH-T' },
    ]);
  });

  it('explains IP registration when the gateway refuses the caller (exit 4)', async () => {
    const refusing = await startTestSandbox({ registeredIps: ['203.0.113.7'] });
    try {
      const r = await runCli(['query', '--order-no', 'ANY-1', '--output', 'json'], { env: refusing.env });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/regist/i);
      expect(r.stderr).toContain('127.0.0.1');
      expect(r.stderr).toContain('E1003');
    } finally {
      await refusing.close();
    }
  });

  it('refuses a bad date with the accepted formats before sending anything (exit 2)', async () => {
    const r = await payops(['--verbose', 'query', '--from', '21/11/2026']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('YYYY-MM-DD');
    expect(r.stderr).toContain('YYYYMMDDhhmmss');
    expect(requestsTo(r.stderr, '/v1/retrievalTrans')).toBe(0);
  });

  it('refuses a query with no selector (exit 2)', async () => {
    const r = await payops(['query']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--order-no/);
  });

  it('returns the newest orders of a date range and warns when the page is full', async () => {
    await createOrders(120);
    const today = new Date().toISOString().slice(0, 10);
    const r = await payops([
      '--verbose',
      'query',
      '--from',
      today,
      '--to',
      today,
      '--utc',
      '--output',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(requestsTo(r.stderr, '/v1/retrievalTrans')).toBe(1);
    expect(JSON.parse(r.stdout)).toHaveLength(100);
    expect(r.stderr).toMatch(/there may be more; add --all to fetch the whole range/);

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const none = await payops(['query', '--from', tomorrow, '--utc', '--output', 'json']);
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('retries transient gateway failures of a read-only query', async () => {
    const orders = await createOrders(3);
    await admin('/_sandbox/faults', { mode: 'error500', rate: 0.5, seed: 7, paths: ['/v1/retrievalTrans'] });
    try {
      const args = ['--verbose', '--concurrency', '1', 'query', '--output', 'json'];
      for (const o of orders) args.push('--transaction-id', o.transaction_id);
      const r = await payops(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/→ 500/);
      expect(JSON.parse(r.stdout)).toHaveLength(3);
    } finally {
      await admin('/_sandbox/faults', { mode: 'none' });
    }
  });
});

describe('profiles, samples and plans', () => {
  it('works in a read_only profile and uses its status labels everywhere', async () => {
    const home = tempDir('payops-query-home-');
    const env = { ...sandbox.env, NO_COLOR: '1' };
    expect((await runCli(['config', 'set', 'read_only', 'true'], { home, env })).code).toBe(0);
    expect((await runCli(['config', 'set', 'status_labels', '{"3000":"settled"}'], { home, env })).code).toBe(
      0,
    );
    const [a, b] = await createOrders(2);
    const t = await runCli(['query', '--order-no', `${a!.order_no},${b!.order_no}`, '--output', 'table'], {
      home,
      env,
    });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toContain('3000 settled');
    const j = await runCli(['query', '--order-no', a!.order_no, '--output', 'json'], { home, env });
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)[0].payment_status_label).toBe('settled');
  });

  it('finds every order of samples/query.csv in the --sandbox gateway', async () => {
    const r = await runCli(['--sandbox', 'query', '--file', 'samples/query.csv', '--output', 'json']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ found: boolean; payment_status: string }>;
    expect(rows).toHaveLength(6);
    expect(rows.every((x) => x.found)).toBe(true);
    expect(new Set(rows.map((x) => x.payment_status))).toEqual(new Set(['3000', '2000', '2100', '1000']));
  });

  it('reads --from/--to in local time by default and in UTC with --utc', async () => {
    const args = ['--dry-run', 'query', '--from', '2026-11-21', '--to', '2026-11-21 12:00'];
    const tokyo = await payops(args, { TZ: 'Asia/Tokyo' });
    expect(tokyo.code, tokyo.stderr).toBe(0);
    // Tokyo is UTC+9: local midnight is 15:00 the day before in UTC.
    expect(tokyo.stderr).toContain('20261120150000 → 20261121030000 UTC');
    expect(tokyo.stderr).toContain('2026-11-21 00:00:00 +09:00 (2026-11-20T15:00:00Z)');
    const utc = await payops([...args, '--utc'], { TZ: 'Asia/Tokyo' });
    expect(utc.stderr).toContain('20261121000000 → 20261121120000 UTC');
  });

  it('prints the plan with --dry-run and sends nothing', async () => {
    const list = Array.from({ length: 230 }, (_, i) => `DRY-${i}`).join(',');
    const r = await payops(['--verbose', '--dry-run', 'query', '--order-no', list, '--transaction-id', 'T1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('4 requests to /v1/retrievalTrans');
    expect(r.stderr).toMatch(/1\. 100 × order_no[\s\S]*3\. 30 × order_no[\s\S]*4\. 1 × transaction_id/);
    expect(requestsTo(r.stderr, '/v1/retrievalTrans')).toBe(0);
  });
});

describe('refunds', () => {
  it('lists <transaction_id>-01 and -02 after two partial refunds', async () => {
    const [o] = await createOrders(1, '3000', 'USD');
    await refund(o!, '1.00', 'first part');
    await refund(o!, '2.00', 'second part');

    const r = await payops([
      '--verbose',
      'refunds',
      'search',
      '--transaction-id',
      o!.transaction_id,
      '--output',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(requestsTo(r.stderr, '/v1/retrievalRefund')).toBe(1);
    const rows = JSON.parse(r.stdout) as Array<Record<string, string>>;
    expect(rows.map((x) => x.refund_reference_id)).toEqual([
      `${o!.transaction_id}-01`,
      `${o!.transaction_id}-02`,
    ]);
    expect(rows.map((x) => x.refund_amount)).toEqual(['1.00', '2.00']);
    expect(rows[0]).toMatchObject({ found: true, order_no: o!.order_no, payment_status: '4100' });
    expect(rows[0]!.payment_status_label).toBe('partially refunded');

    // One order in table format is a card: status label, money, refunds.
    const card = await payops(['query', '--order-no', o!.order_no, '--with-refunds', '--output', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toContain(`Order ${o!.order_no} · 4100 partially refunded`);
    const minor = parseAmount(o!.amount, 'USD');
    expect(minor.ok).toBe(true);
    expect(card.stdout).toMatch(
      new RegExp(`amount +${formatMoney(minor.ok ? minor.minor : 0n, 'USD').replace('.', '\\.')}\n`),
    );
    expect(card.stdout).toContain('Refunds (2)');
    expect(card.stdout).toMatch(new RegExp(`${o!.transaction_id}-02 +USD 2\\.00  ok`));
    expect(card.stdout).toContain('3-D Secure');

    const t = await payops(['refunds', 'search', '--order-no', o!.order_no, '--output', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toContain(`${o!.transaction_id}-02`);

    const q = await payops([
      '--verbose',
      'query',
      '--order-no',
      o!.order_no,
      '--with-refunds',
      '--output',
      'json',
    ]);
    expect(q.code, q.stderr).toBe(0);
    expect(requestsTo(q.stderr, '/v1/retrievalTrans')).toBe(1);
    expect(requestsTo(q.stderr, '/v1/retrievalRefund')).toBe(1);
    const [row] = JSON.parse(q.stdout) as Array<{ refunds: Array<{ refund_reference_id: string }> }>;
    expect(row!.refunds.map((x) => x.refund_reference_id)).toEqual([
      `${o!.transaction_id}-01`,
      `${o!.transaction_id}-02`,
    ]);
  });

  // Issue 15: the card shows an order's refunds without being asked, with the refunded total and
  // what is left to refund; how many requests it took only under --verbose.
  it('shows a card with its refunds, the refunded total and the refundable rest by default', async () => {
    const [o] = await createOrders(1, '3000', 'USD');
    await refund(o!, '1.00', 'first part');
    await refund(o!, '2.00', 'second part');
    const minor = parseAmount(o!.amount, 'USD');
    expect(minor.ok).toBe(true);
    const plain = await payops(['query', '--order-no', o!.order_no, '--output', 'table']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('Refunds (2)');
    expect(plain.stdout).toMatch(/\n {2}refunded +USD 3\.00\n/);
    const left = formatMoney((minor.ok ? minor.minor : 0n) - 300n, 'USD');
    expect(plain.stdout).toMatch(new RegExp(`\n {2}refundable +${left.replace('.', '\\.')}\n`));
    expect(plain.stderr).toContain('1 order found');
    expect(plain.stderr).not.toMatch(/request/);
    const verbose = await payops(['--verbose', 'query', '--order-no', o!.order_no, '--output', 'table']);
    expect(verbose.stderr).toContain('1 order found · 2 requests');
    const [fresh] = await createOrders(1, '3000', 'USD');
    const none = await payops(['query', '--order-no', fresh!.order_no, '--output', 'table']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain(`Order ${fresh!.order_no}`);
    expect(none.stdout).not.toContain('Refunds');
  });

  it('searches 150 orders in 2 requests and lists orders without refunds (exit 1)', async () => {
    const orders = await createOrders(150);
    await refund(orders[149]!, '1.00', 'goodwill');
    const file = join(work, 'refund-orders.csv');
    writeFileSync(file, `transaction_id\n${orders.map((o) => o.transaction_id).join('\n')}\n`);
    const r = await payops(['--verbose', 'refunds', 'search', '--file', file, '--output', 'csv']);
    expect(r.code, r.stderr).toBe(1);
    expect(requestsTo(r.stderr, '/v1/retrievalRefund')).toBe(2);
    const lines = r.stdout.trim().split(/\r?\n/);
    // Header, one refund, 149 rows with found=false.
    expect(lines).toHaveLength(151);
    expect(r.stdout).toContain(`${orders[149]!.transaction_id}-01`);
  });
});
