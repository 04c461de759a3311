// payops listen with events signed by the test itself (as the sandbox signs them): verification,
// the journal before the 2xx, de-duplication, refusals kept nowhere, forwarding across a restart,
// the lock, and a clean stop.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  journalLines,
  type Listener,
  postEvent,
  signedEvent,
  startListen,
  until,
} from '../../helpers/listen.js';
import { type RecordingServer, startRecordingServer } from '../../helpers/recording-server.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

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

describe('payops listen', () => {
  it('journals a signed event before its 200, once however often it comes, and prints one line', async () => {
    const home = tempDir();
    const l = await listen(home);
    const body = signedEvent({
      event_id: 'EV-A1',
      event_type: 'payment.approved',
      data: { order_no: 'ORD-77', amount: '12.50', currency: 'USD', payment_status: '2000' },
    });
    const first = await postEvent(l.url, body);
    expect(first.status).toBe(200);
    // The 200 came after the append: the line is already there.
    expect(journalLines(home)).toHaveLength(1);
    const again = await Promise.all([postEvent(l.url, body), postEvent(l.url, body), postEvent(l.url, body)]);
    expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
    const lines = journalLines(home);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      v: 1,
      eventId: 'EV-A1',
      eventType: 'payment.approved',
      createdAt: '2026-12-06T10:00:00+0000',
      body,
    });
    expect(typeof lines[0]!.receivedAt).toBe('string');
    await until('the event line', () =>
      /payment\.approved\s+ORD-77\s+USD 12\.50\s+2000 authorised\s+EV-A1/.test(l.stdout()),
    );
    expect(await l.stop('SIGTERM')).toBe(0);
    expect(l.stdout().trim().split('\n')).toHaveLength(1);
    expect(l.stderr()).not.toContain('sandbox-sign-key');
  });

  it.skipIf(!existsSync('/dev/full'))(
    'answers 503, never 2xx, when the event cannot be journaled',
    async () => {
      const home = tempDir();
      // Every write to the journal fails (ENOSPC), as on a full disk.
      mkdirSync(join(home, 'state', 'events'), { recursive: true });
      symlinkSync('/dev/full', join(home, 'state', 'events', 'events.jsonl'));
      const l = await listen(home);
      const body = signedEvent({ event_id: 'EV-FULL', event_type: 'payment.approved' });
      expect((await postEvent(l.url, body)).status).toBe(503);
      expect((await postEvent(l.url, body)).status).toBe(503);
      await until('the error line', () => /cannot write the events journal/.test(l.stderr()));
      expect(await l.stop()).toBe(4);
      expect(l.stdout()).toBe('');
    },
  );

  it('de-duplicates concurrent first deliveries of one event and across a restart', async () => {
    const home = tempDir();
    const l = await listen(home);
    const bodies = Array.from({ length: 20 }, (_, i) =>
      signedEvent({
        event_id: `EV-C${i}`,
        event_type: 'payout.completed',
        data: { request_id: `R${i}`, payment_amount: '5.00', payment_currency: 'EUR', status: 'COMPLETED' },
      }),
    );
    const answers = await Promise.all(bodies.flatMap((b) => [postEvent(l.url, b), postEvent(l.url, b)]));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(
      journalLines(home)
        .map((r) => r.eventId)
        .sort(),
    ).toEqual(bodies.map((_, i) => `EV-C${i}`).sort());
    expect(await l.stop()).toBe(0);
    const m = await listen(home);
    expect(m.stderr()).toContain('(20 events)');
    expect((await postEvent(m.url, bodies[3]!)).status).toBe(200);
    expect(journalLines(home)).toHaveLength(20);
    expect(await m.stop()).toBe(0);
  });

  it('refuses a forged, unsigned, foreign or unreadable event with one warning line and keeps nothing', async () => {
    const home = tempDir();
    const l = await listen(home);
    const forged = signedEvent({ event_id: 'EV-F1', event_type: 'payment.approved' }, 'not-the-key');
    const unsigned = JSON.stringify({
      ...JSON.parse(signedEvent({ event_id: 'EV-F2', event_type: 'payment.approved' })),
      encryption_data: undefined,
    });
    const tampered = signedEvent({ event_id: 'EV-F3', event_type: 'payment.approved' }).replace(
      '12.50',
      '1250.00',
    );
    const foreign = signedEvent({ event_id: 'EV-F4', event_type: 'payment.approved', merchant_id: '800002' });
    expect((await postEvent(l.url, forged)).status).toBe(401);
    expect((await postEvent(l.url, unsigned)).status).toBe(401);
    expect((await postEvent(l.url, tampered)).status).toBe(401);
    expect((await postEvent(l.url, foreign)).status).toBe(403);
    expect((await postEvent(l.url, 'not json')).status).toBe(400);
    expect(journalLines(home)).toEqual([]);
    await until('five warnings', () => (l.stderr().match(/refused an event/g) ?? []).length === 5);
    expect(l.stderr()).toMatch(/bad signature \(HTTP 401\); nothing kept/);
    expect(await l.stop()).toBe(0);
    expect(l.stdout()).toBe('');
  });

  it('on SIGTERM amid deliveries: every event answered 200 is journaled, and it exits 0', async () => {
    const home = tempDir();
    const l = await listen(home);
    const bodies = Array.from({ length: 200 }, (_, i) =>
      signedEvent({ event_id: `EV-T${i}`, event_type: 'payment.captured' }),
    );
    let stopped: Promise<number | null> | undefined;
    const answers = await Promise.all(
      bodies.map((b, i) =>
        postEvent(l.url, b).then(
          (r) => {
            // Stop once a few are in; the rest are in flight, or refused by a closed port.
            if (i >= 20 && !stopped) stopped = l.stop('SIGTERM');
            return r.status;
          },
          () => 0,
        ),
      ),
    );
    expect(await (stopped ?? l.stop('SIGTERM'))).toBe(0);
    const journaled = new Set(journalLines(home).map((r) => r.eventId));
    const acked = bodies.map((_, i) => `EV-T${i}`).filter((_, i) => answers[i] === 200);
    expect(acked.length).toBeGreaterThan(0);
    for (const id of acked) expect(journaled.has(id)).toBe(true);
    expect(l.stderr()).toMatch(/stopped: \d+ new events journaled/);
  });

  it('prints JSON lines with --output json', async () => {
    const home = tempDir();
    const l = await listen(home, [], {});
    l.proc.kill('SIGKILL');
    await l.exited;
    const j = await listen(home, ['--output', 'json']);
    await postEvent(
      j.url,
      signedEvent({
        event_id: 'EV-J1',
        event_type: 'payment.refunded',
        data: {
          order_no: 'O9',
          amount: '20.00',
          currency: 'USD',
          payment_status: '4100',
          refund_amount: '5.00',
          refund_reference_id: 'RR1',
        },
      }),
    );
    const line = await until('a JSON line', () => j.stdout().split('\n')[0] || undefined);
    expect(JSON.parse(line)).toMatchObject({
      event_id: 'EV-J1',
      event_type: 'payment.refunded',
      subject: 'O9',
      amount: '5.00',
      currency: 'USD',
      status: '4100 partially refunded',
    });
    expect(await j.stop('SIGINT')).toBe(0);
  });

  it('allows one listen per PAYOPS_HOME', async () => {
    const home = tempDir();
    await listen(home);
    const second = await runCli(['listen', '--port', '0'], { home });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/events journal .* (is|was) (locked|in use|being)/i);
  });
});

describe('payops listen --forward-to', () => {
  it('forwards every event to an app that fails its first answers, and the rest after a restart', async () => {
    const home = tempDir();
    let failFirst = 2;
    let down = false;
    const app: RecordingServer = await startRecordingServer(() => {
      if (down) return { status: 503 };
      if (failFirst-- > 0) return { status: 500 };
      return { status: 200 };
    });
    cleanups.push(() => app.close());
    const env = { PAYOPS_FORWARD_RETRY_MS: '20' };
    const l = await listen(home, ['--forward-to', `${app.url}/hooks`], env);
    const bodies = ['EV-1', 'EV-2', 'EV-3'].map((id, i) =>
      signedEvent({
        event_id: id,
        event_type: 'payment.captured',
        created_at: `2026-12-06T10:00:0${i}+0000`,
      }),
    );
    for (const b of bodies) expect((await postEvent(l.url, b)).status).toBe(200);
    const okIds = () =>
      new Set(app.requests.filter((_, i) => i >= 2).map((r) => r.headers['payops-event-id']));
    await until('three events at the app', () => okIds().size === 3);
    const first = app.requests[0]!;
    expect(first.path).toBe('/hooks');
    expect(first.body).toBe(bodies[0]);
    expect(first.headers['content-type']).toBe('application/json');
    expect(app.requests.slice(0, 3).map((r) => r.headers['payops-delivery'])).toEqual([
      'EV-1/1',
      'EV-1/2',
      'EV-1/3',
    ]);
    expect(app.requests.map((r) => r.headers['payops-event-id'])).toEqual([
      'EV-1',
      'EV-1',
      'EV-1',
      'EV-2',
      'EV-3',
    ]);
    await until('forwarded.jsonl', () => {
      const f = join(home, 'state', 'events', 'forwarded.jsonl');
      return existsSync(f) && readFileSync(f, 'utf8').trim().split('\n').length === 3;
    });
    // The app goes down; two more events are journaled but not forwarded; listen stops.
    down = true;
    const later = ['EV-5', 'EV-4'].map((id) =>
      signedEvent({
        event_id: id,
        event_type: 'payment.refunded',
        created_at: id === 'EV-4' ? '2026-12-06T11:00:00+0000' : '2026-12-06T11:00:05+0000',
      }),
    );
    for (const b of later) expect((await postEvent(l.url, b)).status).toBe(200);
    await until('a failed forward', () => /forward of EV-\d to .* failed \(HTTP 503/.test(l.stderr()));
    l.proc.kill('SIGKILL');
    await l.exited;
    down = false;
    const seen = app.requests.length;
    const m = await listen(home, ['--forward-to', `${app.url}/hooks`], env);
    expect(m.stderr()).toContain('2 journaled events not yet forwarded there');
    await until(
      'the backlog at the app',
      () => app.requests.filter((r, i) => i >= seen && r.headers['payops-event-id']).length >= 2,
    );
    // Earliest created_at first, and nothing forwarded before is sent again.
    expect(app.requests.slice(seen).map((r) => r.headers['payops-event-id'])).toEqual(['EV-4', 'EV-5']);
    // After the app's own de-duplication every event id arrived, once each.
    expect(
      new Set(
        app.requests.filter((r) => r.headers['payops-delivery']).map((r) => r.headers['payops-event-id']),
      ),
    ).toEqual(new Set(['EV-1', 'EV-2', 'EV-3', 'EV-4', 'EV-5']));
    expect(await m.stop()).toBe(0);
  });
});
