// payops events list|show|resend on a journal written by a real listen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listener, postEvent, signedEvent, startListen } from '../../helpers/listen.js';
import { type RecordingServer, startRecordingServer } from '../../helpers/recording-server.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

let home: string;
let app: RecordingServer;
const bodies: Record<string, string> = {};

beforeAll(async () => {
  home = tempDir();
  const l: Listener = await startListen(home);
  const events = [
    {
      event_id: 'EV-1',
      event_type: 'payment.approved',
      created_at: '2026-12-06T09:00:00+0000',
      data: { order_no: 'ORD-1', amount: '10.00', currency: 'USD', payment_status: '2000' },
    },
    {
      event_id: 'EV-2',
      event_type: 'payment.captured',
      created_at: '2026-12-06T09:05:00+0000',
      data: { order_no: 'ORD-1', amount: '10.00', currency: 'USD', payment_status: '3000' },
    },
    {
      event_id: 'EV-3',
      event_type: 'payment.refunded',
      created_at: '2026-12-06T10:00:00+0000',
      data: {
        order_no: 'ORD-2',
        amount: '30.00',
        currency: 'EUR',
        payment_status: '4100',
        refund_amount: '7.50',
        refund_reference_id: 'RF-9',
      },
    },
    {
      event_id: 'EV-4',
      event_type: 'payout.completed',
      created_at: '2026-12-06T11:00:00+0000',
      data: { request_id: 'PAY-5', payment_amount: '99.00', payment_currency: 'GBP', status: 'COMPLETED' },
    },
  ];
  for (const e of events) {
    bodies[e.event_id] = signedEvent(e);
    expect((await postEvent(l.url, bodies[e.event_id]!)).status).toBe(200);
  }
  expect(await l.stop()).toBe(0);
  app = await startRecordingServer((r) => ({
    status: r.headers['payops-event-id'] === 'EV-4' && r.path === '/flaky' ? 500 : 200,
  }));
});
afterAll(async () => {
  await app?.close();
});

describe('payops events', () => {
  it('lists the journal as a table, filtered by type, order and time', async () => {
    const all = await runCli(['--output', 'table', 'events', 'list'], { home });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(
      /EV-3\s+│?\s*payment\.refunded\s+│?\s*ORD-2\s+│?\s*EUR 7\.50\s+│?\s*4100 partially refunded/,
    );
    expect(all.stdout).toMatch(/EV-4.*payout\.completed.*PAY-5.*GBP 99\.00.*COMPLETED/);
    const json = async (args: string[]) =>
      (await runCli(['--output', 'json', 'events', 'list', ...args], { home })).stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { event_id: string }).event_id);
    expect(await json([])).toEqual(['EV-1', 'EV-2', 'EV-3', 'EV-4']);
    expect(await json(['--order-no', 'ORD-1'])).toEqual(['EV-1', 'EV-2']);
    expect(await json(['--type', 'payment.refunded,payout.completed'])).toEqual(['EV-3', 'EV-4']);
    expect(await json(['--since', '2026-12-06T10:00Z'])).toEqual(['EV-3', 'EV-4']);
    const csv = (await runCli(['--output', 'csv', 'events', 'list', '--order-no', 'ORD-2'], { home })).stdout;
    expect(csv.trim().split(/\r?\n/)).toEqual([
      'received,event id,type,order/payout,amount,status,forwarded',
      expect.stringMatching(
        /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},EV-3,payment\.refunded,ORD-2,EUR 7\.50,4100 partially refunded,$/,
      ),
    ]);
    const bad = await runCli(['events', 'list', '--type', 'payment.approve'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('payment.approved');
  });

  it('shows one event whole with its signature verified', async () => {
    const r = await runCli(['events', 'show', 'EV-3'], { home });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { signature: string; event: Record<string, unknown> };
    expect(doc.signature).toBe('verified');
    expect(doc.event).toEqual(JSON.parse(bodies['EV-3']!));
    // Read with another profile's key, the same event does not verify.
    const other = await runCli(['events', 'show', 'EV-3'], {
      home,
      env: {
        PAYOPS_BASE_URL: 'https://gw.example',
        PAYOPS_MERCHANT_ID: '800001',
        PAYOPS_ACCOUNT_ID: '800001001',
        PAYOPS_SIGN_KEY: 'other-key',
      },
    });
    expect(other.code).toBe(4);
    expect(JSON.parse(other.stdout).signature).toMatch(/^not verified: bad signature/);
    expect(other.stdout + other.stderr).not.toContain('other-key');
    const missing = await runCli(['events', 'show', 'EV-404'], { home });
    expect(missing.code).toBe(2);
  });

  it('resends exactly the chosen events, their original bytes marked as a replay', async () => {
    const before = app.requests.length;
    const r = await runCli(['events', 'resend', 'EV-3', 'EV-1', '--forward-to', `${app.url}/hooks`], {
      home,
    });
    expect(r.code).toBe(0);
    const sent = app.requests.slice(before);
    expect(sent.map((q) => q.headers['payops-event-id'])).toEqual(['EV-1', 'EV-3']);
    expect(sent.map((q) => q.body)).toEqual([bodies['EV-1'], bodies['EV-3']]);
    expect(sent[0]!.headers['payops-replay']).toBe('true');
    expect(sent[0]!.headers['payops-delivery']).toBe('EV-1/replay');
    expect(r.stdout).toMatch(/EV-1\s+payment\.approved\s+resent\s+HTTP 200/);

    const mid = app.requests.length;
    const byFilter = await runCli(
      ['events', 'resend', '--order-no', 'ORD-1', '--forward-to', `${app.url}/hooks`],
      { home },
    );
    expect(byFilter.code).toBe(0);
    expect(app.requests.slice(mid).map((q) => q.headers['payops-event-id'])).toEqual(['EV-1', 'EV-2']);

    const end = app.requests.length;
    const flaky = await runCli(['events', 'resend', '--all', '--forward-to', `${app.url}/flaky`], { home });
    expect(flaky.code).toBe(1);
    expect(flaky.stdout).toMatch(/EV-4\s+payout\.completed\s+FAILED\s+HTTP 500/);
    expect(app.requests.slice(end).map((q) => q.headers['payops-event-id'])).toEqual([
      'EV-1',
      'EV-2',
      'EV-3',
      'EV-4',
    ]);
  });

  it('refuses a resend that names nothing, an unknown id, or --all with a filter; sends nothing', async () => {
    const before = app.requests.length;
    for (const args of [[], ['EV-404'], ['--all', '--type', 'payment.approved']]) {
      const r = await runCli(['events', 'resend', ...args, '--forward-to', `${app.url}/hooks`], { home });
      expect(r.code).toBe(2);
    }
    expect(app.requests.length).toBe(before);
  });
});
