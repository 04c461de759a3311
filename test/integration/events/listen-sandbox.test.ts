// payops listen (the real binary) receiving the real sandbox's notifications (design §1.9): every
// event type arrives signed and is journaled once although the sandbox delivers it three times,
// and forwarded to an app that fails its first answers; a listen killed with SIGKILL while events
// arrive loses none the sandbox saw answered 2xx, and gets the rest by the sandbox's retries.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createSigner } from '../../../src/gateway/signer.js';
import { journalLines, type Listener, startListen, until } from '../../helpers/listen.js';
import { startRecordingServer } from '../../helpers/recording-server.js';
import { tempDir } from '../../helpers/run-cli.js';
import { type Client, type Json, parseRespon, signed, withSandbox } from '../sandbox/helpers.js';

const signer = createSigner('sandbox-sign-key');
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

async function listen(
  home: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Listener> {
  const l = await startListen(home, args, env);
  cleanups.push(() => (l.proc.exitCode === null ? l.stop('SIGKILL') : Promise.resolve()));
  return l;
}

async function sandboxWith(retriesMs: number[]): Promise<Client> {
  const { sandbox, client } = await withSandbox({ notify: { retriesMs } });
  cleanups.push(() => sandbox.close());
  return client;
}

let n = 0;
const orderNo = () => `LSN-${Date.now()}-${++n}`;
const year = String(new Date().getUTCFullYear() + 2);

async function card(client: Client, notifyUrl: string, pan: string) {
  const body = signed({
    order_no: orderNo(),
    currency: 'USD',
    amount: '25.00',
    card: pan,
    expiration_month: '12',
    expiration_year: year,
    security_code: '123',
    notify_url: notifyUrl,
  });
  const xml = parseRespon((await client.post('/v1/authorise', body)).text);
  return {
    order_no: body.order_no,
    transaction_id: xml.transaction_id as string,
    currency: 'USD',
    amount: '25.00',
  };
}

function payout(notifyUrl: string, account: string): Json {
  return signed({
    request_id: randomUUID(),
    beneficiary: {
      entity_type: 'INDIVIDUAL',
      first_name: 'Ana',
      last_name: 'Silva',
      bank_details: { account_name: 'Ana Silva', account_number: account, bank_country_code: 'BR' },
    },
    payer: { entity_type: 'COMPANY', company_name: 'Shop Inc' },
    payment_amount: '100.00',
    payment_currency: 'USD',
    payment_method: 'LOCAL',
    notify_url: notifyUrl,
  });
}

interface SandboxEvent {
  event_id: string;
  event_type: string;
  state: string;
  body: Json;
}
interface Delivery {
  event_id: string;
  status: number | string;
}

const events = async (c: Client) => (await c.admin('GET', 'events')).json as unknown as SandboxEvent[];
const deliveries = async (c: Client) => (await c.admin('GET', 'deliveries')).json as unknown as Delivery[];
const settled = async (c: Client, count: number) => {
  const all = await events(c);
  return all.length >= count && all.every((e) => e.state !== 'pending') ? all : undefined;
};

/** Every event type of §1.9, for orders and payouts notifying `url`. */
async function everyEventType(client: Client, url: string): Promise<void> {
  const approved = await card(client, url, '4242424242424242');
  await card(client, url, '4000000000000002'); // declined
  await card(client, url, '4000000000003220'); // 3-D Secure: pending
  const toCancel = await card(client, url, '4242424242424242');
  await client.batch('/v1/capture', 'capture_orders', [approved]);
  await client.batch('/v1/cancel', 'cancel_orders', [toCancel]);
  await client.batch('/v1/refund', 'refund_orders', [
    { ...approved, refund_amount: '5.00', refund_reason: 'customer' },
  ]);
  await client.post('/v1/payout', payout(url, '12345678')); // completed
  await client.post('/v1/payout', payout(url, '12346666')); // pending, then failed
  const failing = payout(url, '12346666');
  await client.post('/v1/payout', failing);
  await client.post('/v1/payout', failing);
}

const TYPES = [
  'payment.approved',
  'payment.declined',
  'payment.pending',
  'payment.captured',
  'payment.cancelled',
  'payment.refunded',
  'payout.completed',
  'payout.pending',
  'payout.failed',
];

describe('payops listen with the sandbox', () => {
  it('journals every event type once though each is delivered three times, and forwards each to an app that fails at first', async () => {
    const home = tempDir();
    let failures = 3;
    const app = await startRecordingServer(() => ({ status: failures-- > 0 ? 500 : 204 }));
    cleanups.push(() => app.close());
    const l = await listen(home, ['--forward-to', `${app.url}/hooks`], { PAYOPS_FORWARD_RETRY_MS: '20' });
    const client = await sandboxWith([20, 40, 80]);
    await client.admin('POST', 'notify-faults', { duplicate: 3 });
    await everyEventType(client, `${l.url}/notify`);
    const made = await until('every event delivered', () => settled(client, 11));
    expect(new Set(made.map((e) => e.event_type))).toEqual(new Set(TYPES));
    expect(made.every((e) => e.state === 'delivered')).toBe(true);
    // Three copies of each reached listen and were answered 2xx …
    const ok = (await deliveries(client)).filter((d) => typeof d.status === 'number' && d.status < 300);
    for (const e of made) expect(ok.filter((d) => d.event_id === e.event_id)).toHaveLength(3);
    // … and each is in the journal once, its body the sandbox's event, verifying with the key.
    const journal = journalLines(home);
    expect(journal.map((r) => r.eventId).sort()).toEqual(made.map((e) => e.event_id).sort());
    for (const r of journal) {
      const body = JSON.parse(r.body as string) as Json;
      expect(body).toEqual(made.find((e) => e.event_id === r.eventId)!.body);
      expect(signer.verify(body, body.encryption_data as string)).toBe(true);
    }
    // The app answered 500 three times; in the end it has every event, once per id after de-duplication.
    await until(
      'every event at the app',
      () => new Set(app.requests.slice(3).map((q) => q.headers['payops-event-id'])).size === 11,
    );
    expect(app.requests.slice(0, 3).map((q) => q.headers['payops-delivery'])).toEqual(
      [1, 2, 3].map((a) => `${app.requests[0]!.headers['payops-event-id']}/${a}`),
    );
    expect(app.requests).toHaveLength(14);
    expect(await l.stop()).toBe(0);
    expect(l.stdout().trim().split('\n')).toHaveLength(11);
  });

  it('loses no acknowledged event when killed with SIGKILL while events arrive; the rest come by retries', async () => {
    const home = tempDir();
    const first = await listen(home);
    const port = new URL(first.url).port;
    // Retries for ~20 s: enough for a restart on a loaded machine (an event dropped would fail the test).
    const client = await sandboxWith([250, 250, 500, 500, ...Array.from({ length: 16 }, () => 1000)]);
    const url = `${first.url}/notify`;
    const count = 40;
    const sent = Promise.all(Array.from({ length: 30 }, () => card(client, url, '4242424242424242')));
    await until('some events journaled', () => journalLines(home).length >= 5);
    first.proc.kill('SIGKILL');
    await first.exited;
    await sent;
    const atKill = await deliveries(client);
    // And ten more while listen is down: their first attempts fail for certain.
    await Promise.all(Array.from({ length: 10 }, () => card(client, url, '4242424242424242')));
    const second = await listen(home, ['--port', port]);
    const made = await until('every event delivered', () => settled(client, count), 60_000);
    expect(made.every((e) => e.state === 'delivered')).toBe(true);
    const journal = journalLines(home).map((r) => r.eventId as string);
    // Each event once, and all of them: the ones the sandbox saw answered 2xx before the kill too.
    expect(new Set(journal).size).toBe(journal.length);
    expect(new Set(journal)).toEqual(new Set(made.map((e) => e.event_id)));
    const ackedBeforeKill = atKill.filter((d) => typeof d.status === 'number' && d.status < 300);
    expect(ackedBeforeKill.length).toBeGreaterThan(0);
    for (const d of ackedBeforeKill) expect(journal).toContain(d.event_id);
    // Some arrived only by a retry after the restart (an attempt that failed while listen was down).
    const failed = (await deliveries(client)).filter((d) => d.status === 'error' || d.status === 'timeout');
    expect(failed.length).toBeGreaterThan(0);
    expect(await second.stop()).toBe(0);
  });
});
