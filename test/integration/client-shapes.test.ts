// Every request shape payops can build, sent by the real binary to the strict sandbox: full
// requests from every flag of `pay card|apm|checkout`, full --request files (every field of the
// client's own tables, nested ones included), every request file of samples/, payouts from JSON and
// CSV, the bulk operations and the searches. The sandbox checks each against the spec's schema of
// its shape independently of the client (src/sandbox imports nothing of it), so a field the client
// starts sending wrongly — unknown, null, of another shape, of the wrong type — fails here.
import { randomUUID } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagFields, type PaymentKind, requestSpec } from '../../src/pay/fields.js';
import type { FieldSpec } from '../../src/pay/schema.js';
import { PAYOUT_SPEC } from '../../src/payout/fields.js';
import { REPO_ROOT, type RunResult, runCli, tempDir } from '../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
const work = tempDir('payops-shapes-');
const CARD_INPUT = '4242424242424242\n123\n';

beforeAll(async () => {
  sandbox = await startTestSandbox({ seedFiles: [join(REPO_ROOT, 'samples', 'sandbox-orders.csv')] });
});
afterAll(async () => {
  await sandbox?.close();
});

function payops(args: string[], input?: string): Promise<RunResult> {
  return runCli(args, { env: { ...sandbox.env, NO_COLOR: '1' }, cwd: work, ...(input ? { input } : {}) });
}

/** A value the spec allows for a field, by its name where the name says more than its type. */
function valueFor(path: string, spec: FieldSpec): unknown {
  const name = path
    .replace(/\[\d+\]/g, '')
    .split('.')
    .pop()!;
  switch (spec.type) {
    case 'number':
      return 10.5;
    case 'integer':
      return 1700000000;
    case 'array':
      return [valueFor(`${path}[0]`, spec.items)];
    case 'object':
      return Object.fromEntries(
        Object.entries(spec.fields).map(([k, v]) => [k, valueFor(`${path}.${k}`, v)]),
      );
    case 'string':
      break;
  }
  const special: Record<string, string> = {
    amount: '12.50',
    payment_amount: '10.00',
    currency: 'USD',
    payment_currency: 'EUR',
    order_no: `SHAPE-${randomUUID().slice(0, 8)}`,
    open3d: 'do3DS',
    token_flag: 'NO',
    payment_method: 'PIX',
    iban: 'DE89370400440532013000',
    account_number: '12345678',
    entity_type: 'COMPANY',
    fee_paid_by: 'PAYER',
    request_id: randomUUID(),
    birth_date: '12-04-1985',
    review_flag: '1',
  };
  if (special[name] !== undefined) return special[name];
  // A country by its name, whatever format the client's table gives it (issue #16 item 3 aligns those).
  if (/country(_code)?$/.test(name) && spec.format !== 'currency') return 'DE';
  switch (spec.format) {
    case 'decimal':
      return '1.00';
    case 'currency':
      return 'EUR';
    case 'country':
      return 'DE';
    case 'date':
      return '2027-01-15';
    case 'dmy':
      return '12-04-1985';
    case 'uuid':
      return randomUUID();
    case 'month':
      return '12';
    case 'year':
      return '2035';
    default:
      return /url$/.test(name) ? 'https://shop.example/x' : /email/.test(name) ? 'a@example.com' : 'x';
  }
}

function fullRequest(kind: PaymentKind): Record<string, unknown> {
  const body = valueFor('', requestSpec(kind)) as Record<string, unknown>;
  return { ...body, order_no: `SHAPE-${randomUUID().slice(0, 8)}` };
}

function writeJson(name: string, value: unknown): string {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

/** The sandbox took it: a card approved, an APM or checkout pending (exit 0), no E1005 anywhere. */
function expectAccepted(r: RunResult, kind: PaymentKind | 'other'): void {
  const all = `${r.stdout}\n${r.stderr}`;
  expect(all, all).not.toMatch(/E1005|not a field/);
  expect(r.code, all).toBe(0);
  if (kind === 'card') expect(JSON.parse(r.stdout).result.result_info, r.stdout).toMatch(/^0000:/);
}

describe('pay: every flag', { timeout: 120_000 }, () => {
  it.each(['card', 'apm', 'checkout'] as const)('pay %s with every flag it has', async (kind) => {
    const args = ['--output', 'json', 'pay', kind, '--yes'];
    for (const f of flagFields(kind)) {
      // A token payment charges a stored token instead of a card: its own shape, tested by its own test.
      if (f.path === 'token_id') continue;
      args.push(f.flag, String(valueFor(f.path, f.spec)));
    }
    if (kind === 'card') args.push('--expiry', '12/2035');
    const r = await payops(args, kind === 'card' ? CARD_INPUT : undefined);
    expectAccepted(r, kind);
  });
});

describe('pay: every --request file', { timeout: 120_000 }, () => {
  it.each(['card', 'apm', 'checkout'] as const)(
    'pay %s --request with every field of the request',
    async (kind) => {
      const body = fullRequest(kind);
      delete body.token_id;
      const file = writeJson(`full-${kind}.json`, body);
      const r = await payops(
        ['--output', 'json', 'pay', kind, '--yes', '--request', file],
        kind === 'card' ? CARD_INPUT : undefined,
      );
      expectAccepted(r, kind);
    },
  );

  const samples = readdirSync(join(REPO_ROOT, 'samples')).filter((f) =>
    /^(card|apm|checkout)-request\.json$/.test(f),
  );
  it.each(samples)('samples/%s', async (name) => {
    const kind = name.split('-')[0] as PaymentKind;
    // A fresh order_no per run: the sample's own (if any) may be taken by another test.
    const body = JSON.parse(readFileSync(join(REPO_ROOT, 'samples', name), 'utf8')) as Record<
      string,
      unknown
    >;
    const file = writeJson(name, { ...body, order_no: `SHAPE-${randomUUID().slice(0, 8)}` });
    const args = ['--output', 'json', 'pay', kind, '--yes', '--request', file];
    if (kind === 'card') args.push('--expiry', '12/2035');
    const r = await payops(args, kind === 'card' ? CARD_INPUT : undefined);
    expectAccepted(r, kind);
  });
});

describe('payouts, bulk operations and searches', { timeout: 120_000 }, () => {
  it('payout --request with every field of the payout request, and the sample', async () => {
    const full = writeJson('payout-full.json', valueFor('', PAYOUT_SPEC));
    expectAccepted(await payops(['--yes', '--output', 'json', 'payout', '--request', full]), 'other');
    const sample = JSON.parse(
      readFileSync(join(REPO_ROOT, 'samples', 'payout-request.json'), 'utf8'),
    ) as object;
    const file = writeJson('payout-sample.json', { ...sample, request_id: randomUUID() });
    expectAccepted(await payops(['--yes', '--output', 'json', 'payout', '--request', file]), 'other');
  });

  it('payout --file samples/payouts.csv', async () => {
    copyFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), join(work, 'payouts.csv'));
    expectAccepted(await payops(['--yes', '--output', 'csv', 'payout', '--file', 'payouts.csv']), 'other');
  });

  it.each([
    ['capture', 'capture.csv'],
    ['cancel', 'cancel.csv'],
    ['review', 'review.csv'],
    ['refund', 'refunds.csv'],
  ])('%s --file samples/%s', async (op, name) => {
    copyFileSync(join(REPO_ROOT, 'samples', name), join(work, name));
    const r = await payops(['--yes', '--output', 'csv', op, '--file', name]);
    const all = `${r.stdout}\n${r.stderr}`;
    // Rows may fail for the order's state; none for the request's shape.
    expect(all, all).not.toMatch(/E1005|not a field/);
    expect([0, 1], all).toContain(r.code);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(1);
  });

  it('query and refunds search by list, file, range and whole range', async () => {
    copyFileSync(join(REPO_ROOT, 'samples', 'query.csv'), join(work, 'query.csv'));
    const today = new Date().toISOString().slice(0, 10);
    for (const args of [
      ['query', '--file', 'query.csv'],
      ['query', '--order-no', 'ORD-1001,ORD-1002', '--transaction-id', 'T0000000003', '--with-refunds'],
      ['query', '--from', today, '--to', today, '--utc'],
      ['query', '--from', today, '--utc', '--all'],
      ['refunds', 'search', '--order-no', 'ORD-1001', '--transaction-id', 'T0000000002'],
      ['refunds', 'search', '--from', today, '--to', today, '--utc', '--all'],
    ]) {
      const r = await payops(['--output', 'json', ...args]);
      const all = `${r.stdout}\n${r.stderr}`;
      expect(all, args.join(' ')).not.toMatch(/E1005|not a field/);
      expect([0, 1], `${args.join(' ')}\n${all}`).toContain(r.code);
      expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    }
  });
});
