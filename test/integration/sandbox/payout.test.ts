// /v1/payout: the echoed request with computed fields (gateway-api.md "Payout record"),
// idempotency on request_id, E1005 / E4001 / E4002, and the ledger entry.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Client, type Json, signatureValid, signed, withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
let client: Client;
beforeAll(async () => {
  ({ sandbox, client } = await withSandbox());
});
afterAll(() => sandbox.close());

function payout(extra: Json = {}): Json {
  return {
    request_id: randomUUID(),
    beneficiary_id: 'B-1',
    beneficiary: {
      first_name: 'Ana',
      last_name: 'Silva',
      company_name: 'Silva Lda',
      date_of_birth: '1985-04-12',
      entity_type: 'COMPANY',
      address: { city: 'Lisbon', country_code: 'PT', postcode: '1000-001', street_address: 'Rua 1' },
      bank_details: {
        account_currency: 'EUR',
        account_name: 'Silva Lda',
        iban: 'DE89370400440532013000',
        swift_code: 'COBADEFFXXX',
        bank_code: '37040044',
        bank_country_code: 'DE',
      },
    },
    payer: { company_name: 'Shop Inc', entity_type: 'COMPANY', address: { country_code: 'US' } },
    client_data: 'batch 7',
    fee_paid_by: 'PAYER',
    payment_amount: '1000.00',
    payment_currency: 'EUR',
    payment_date: '2026-12-01',
    payment_method: 'SWIFT',
    reason: 'invoice',
    reference: 'INV-7',
    swift_charge_option: 'SHARED',
    fund_source: 'DepositAccount',
    notify_url: 'https://shop.example/payout',
    ...extra,
  };
}

describe('payout', () => {
  it('echoes the request (no notify_url, no bank_code, plus local_clearing_system) and adds the computed fields', async () => {
    const body = signed(payout());
    const a = await client.post('/v1/payout', body);
    expect(a.status).toBe(200);
    const r = a.json;
    expect(signatureValid(r)).toBe(true);
    expect(r.notify_url).toBeUndefined();
    expect(r).toMatchObject({
      merchant_id: '800001',
      account_id: '800001001',
      request_id: body.request_id,
      beneficiary_id: 'B-1',
      client_data: 'batch 7',
      payment_amount: '1000.00',
      payment_currency: 'EUR',
      payment_method: 'SWIFT',
      payer: body.payer,
      status: 'COMPLETED',
      failure_reason: '',
      failure_type: '',
      fee_currency: 'EUR',
      amount_beneficiary_receives: 100000,
      amount_payer_pays: 101000,
      fee_amount: 1000,
    });
    const bank = (r.beneficiary as Json).bank_details as Json;
    expect(bank.bank_code).toBeUndefined();
    expect(bank.local_clearing_system).toBe('SWIFT');
    expect(bank.iban).toBe('DE89370400440532013000');
    for (const f of ['amount_beneficiary_receives', 'amount_payer_pays', 'fee_amount'])
      expect(Number.isInteger(r[f])).toBe(true);
    expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/);
    expect(r.last_updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/);
    expect(r.transaction_id).toMatch(/^PO\d+$/);
    expect(r.payer_id).toMatch(/^PY\d+$/);
    expect(r.short_reference_id).toMatch(/^\d{6}-\w+$/);

    const ledger = (await client.admin('GET', 'ledger')).json as unknown as Json[];
    expect(ledger.at(-1)).toMatchObject({
      kind: 'payout',
      transaction_id: r.transaction_id,
      request_id: body.request_id,
      payment_amount: '1000.00',
      payment_currency: 'EUR',
    });
  });

  it('is idempotent on request_id: same content → same answer, other content → E4002', async () => {
    const body = signed(payout());
    const first = await client.post('/v1/payout', body);
    const again = await client.post('/v1/payout', body);
    expect(again.json).toEqual(first.json);
    const ledgerBefore = ((await client.admin('GET', 'ledger')).json as unknown as Json[]).length;
    const other = await client.post(
      '/v1/payout',
      signed({ ...payout(), request_id: body.request_id, payment_amount: '5.00' }),
    );
    expect(other.json.status).toBe('FAILED');
    expect(other.json.failure_type).toBe('E4002');
    expect(other.json.failure_reason).toMatch(/^E4002:request_id reused with other content/);
    expect(signatureValid(other.json)).toBe(true);
    expect(((await client.admin('GET', 'ledger')).json as unknown as Json[]).length).toBe(ledgerBefore);
  });

  it('fee paid by the beneficiary comes out of the amount', async () => {
    const a = await client.post(
      '/v1/payout',
      signed(payout({ fee_paid_by: 'BENEFICIARY', payment_amount: '10.50' })),
    );
    expect(a.json).toMatchObject({
      amount_beneficiary_receives: 1039,
      amount_payer_pays: 1050,
      fee_amount: 11,
    });
  });

  it.each([
    [{ request_id: 'not-a-uuid' }, 'E1005', 'request_id'],
    [{ request_id: undefined }, 'E1005', 'request_id'],
    [{ payment_amount: '10.001' }, 'E1005', 'payment_amount'],
    [{ payment_currency: 'EURO' }, 'E1005', 'payment_currency'],
    [{ payment_date: '01-12-2026' }, 'E1005', 'payment_date'],
    [{ payer: { company_name: 'x' } }, 'E1005', 'payer.entity_type'],
    [{ beneficiary: undefined }, 'E4001', 'beneficiary'],
    [
      { beneficiary: { entity_type: 'COMPANY', bank_details: { iban: 'DE89370400440532013000' } } },
      'E4001',
      'beneficiary.bank_details.account_name',
    ],
    [
      { beneficiary: { entity_type: 'COMPANY', bank_details: { account_name: 'x' } } },
      'E4001',
      'beneficiary.bank_details needs iban or account_number',
    ],
    [
      {
        beneficiary: {
          entity_type: 'COMPANY',
          bank_details: { account_name: 'x', iban: 'DE89370400440532013001' },
        },
      },
      'E4001',
      'beneficiary.bank_details.iban',
    ],
    [
      { beneficiary: { bank_details: { account_name: 'x', account_number: '1' } } },
      'E4001',
      'beneficiary.entity_type',
    ],
    [
      {
        beneficiary: {
          entity_type: 'PERSON',
          date_of_birth: '12/04/1985',
          bank_details: { account_name: 'x', account_number: '1' },
        },
      },
      'E4001',
      'beneficiary.date_of_birth',
    ],
  ])('%j → %s naming %s', async (change, code, field) => {
    const a = await client.post('/v1/payout', signed(payout(change)));
    expect(a.status).toBe(200);
    expect(a.json.status).toBe('FAILED');
    expect(a.json.failure_type).toBe(code);
    expect(a.json.failure_reason).toContain(field);
    expect(a.json.transaction_id).toBe('');
  });

  it('E1001 for a bad signature', async () => {
    const a = await client.post('/v1/payout', { ...signed(payout()), payment_amount: '999.00' });
    expect(a.json.failure_type).toBe('E1001');
  });
});

/** A payout to the test beneficiary whose account number ends in 7777: PENDING on its first request. */
function pendingPayout(extra: Json = {}): Json {
  const base = payout();
  const beneficiary = base.beneficiary as Json;
  return {
    ...base,
    payment_amount: '777.00',
    beneficiary: {
      ...beneficiary,
      bank_details: {
        account_currency: 'EUR',
        account_name: 'Silva Lda',
        account_number: '000123457777',
        bank_code: '37040044',
        bank_country_code: 'PT',
      },
    },
    ...extra,
  };
}

const payoutsFor = async (c: Client, requestId: unknown) =>
  ((await c.admin('GET', 'ledger')).json as unknown as Json[]).filter(
    (l) => l.kind === 'payout' && l.request_id === requestId,
  );

describe('payout that stays PENDING (account number ending in 7777)', () => {
  it('answers PENDING first with no money moved, COMPLETED on the same request_id with exactly one ledger entry', async () => {
    const body = signed(pendingPayout());
    const first = await client.post('/v1/payout', body);
    expect(first.status).toBe(200);
    expect(signatureValid(first.json)).toBe(true);
    expect(first.json).toMatchObject({
      request_id: body.request_id,
      status: 'PENDING',
      failure_reason: '',
      failure_type: '',
      amount_payer_pays: 78477,
    });
    expect(first.json.transaction_id).toMatch(/^PO\d+$/);
    expect(await payoutsFor(client, body.request_id)).toEqual([]);

    const second = await client.post('/v1/payout', body);
    expect(signatureValid(second.json)).toBe(true);
    expect(second.json).toMatchObject({
      status: 'COMPLETED',
      transaction_id: first.json.transaction_id,
      created_at: first.json.created_at,
      short_reference_id: first.json.short_reference_id,
      amount_payer_pays: 78477,
    });
    expect(Date.parse((second.json.last_updated_at as string).replace('+0000', 'Z'))).toBeGreaterThanOrEqual(
      Date.parse((first.json.created_at as string).replace('+0000', 'Z')),
    );
    const ledger = await payoutsFor(client, body.request_id);
    expect(ledger).toEqual([
      expect.objectContaining({
        transaction_id: first.json.transaction_id,
        payment_amount: '777.00',
        payment_currency: 'EUR',
      }),
    ]);

    // From then on it is an ordinary completed payout: the same answer, still one movement.
    const third = await client.post('/v1/payout', body);
    expect(third.json).toEqual(second.json);
    const reused = await client.post(
      '/v1/payout',
      signed({ ...pendingPayout(), request_id: body.request_id, payment_amount: '1.00' }),
    );
    expect(reused.json.failure_type).toBe('E4002');
    expect(await payoutsFor(client, body.request_id)).toHaveLength(1);
  });

  it('other content on the same request_id while PENDING is E4002 and completes nothing', async () => {
    const body = signed(pendingPayout());
    expect((await client.post('/v1/payout', body)).json.status).toBe('PENDING');
    const other = await client.post(
      '/v1/payout',
      signed({ ...pendingPayout(), request_id: body.request_id, reference: 'other' }),
    );
    expect(other.json).toMatchObject({ status: 'FAILED', failure_type: 'E4002' });
    expect(await payoutsFor(client, body.request_id)).toEqual([]);
    expect((await client.post('/v1/payout', body)).json.status).toBe('COMPLETED');
  });

  it('only an account number that ends in 7777: 77770 completes at once', async () => {
    const base = pendingPayout();
    const bank = (base.beneficiary as Json).bank_details as Json;
    const body: Json = signed({
      ...base,
      beneficiary: { ...(base.beneficiary as Json), bank_details: { ...bank, account_number: '77770' } },
    });
    expect((await client.post('/v1/payout', body)).json.status).toBe('COMPLETED');
    expect(await payoutsFor(client, body.request_id)).toHaveLength(1);
  });

  it('a PENDING payout survives a restart with --data and completes after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payops-sandbox-payout-'));
    try {
      const body = signed(pendingPayout());
      const first = await withSandbox({ dataDir: dir });
      try {
        expect((await first.client.post('/v1/payout', body)).json.status).toBe('PENDING');
      } finally {
        await first.sandbox.close();
      }
      const second = await withSandbox({ dataDir: dir });
      try {
        expect((await second.client.post('/v1/payout', body)).json.status).toBe('COMPLETED');
      } finally {
        await second.sandbox.close();
      }
      const third = await withSandbox({ dataDir: dir });
      try {
        expect((await third.client.post('/v1/payout', body)).json.status).toBe('COMPLETED');
        expect(await payoutsFor(third.client, body.request_id)).toHaveLength(1);
      } finally {
        await third.sandbox.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
