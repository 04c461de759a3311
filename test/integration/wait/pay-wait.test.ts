// `pay apm|checkout|card --wait` through the real binary against a real sandbox: the test plays the
// shopper (the issuer page's complete / fail) once it sees the payment at the sandbox, and reads
// what payops was asked by the sandbox's request log. Money: the sandbox's ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalLines, startListen } from '../../helpers/listen.js';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, tempDir } from '../../helpers/run-cli.js';
import { admin, CARDS, ledger } from '../pay/support.js';
import {
  journalEvent,
  type LoggedSandbox,
  listenerHome,
  loggedSandbox,
  orderAtSandbox,
  QUERY_PATH,
  shopper,
  start,
  until,
} from './support.js';

let sandbox: LoggedSandbox;
beforeAll(async () => {
  sandbox = await loggedSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const apm = (orderNo: string, wait: string) => [
  '--yes',
  '--output',
  'json',
  'pay',
  'apm',
  '--payment-method',
  'ideal',
  '--amount',
  '25.00',
  '--currency',
  'EUR',
  '--order-no',
  orderNo,
  '--wait',
  wait,
];

interface WaitDoc {
  outcome: string;
  payment_status: string | null;
  via: string | null;
  order: { order_no: string; transaction_id: string; payment_status: string } | null;
}

/** A notify_url nobody answers: the payment's events can come (to a listener in real life). */
const NOTIFY = 'http://127.0.0.1:9/payops-events';

const queriesFor = (from: number) => sandbox.requests.slice(from).filter((r) => r.path === QUERY_PATH).length;

describe('pay --wait', { timeout: 120_000 }, () => {
  it('apm: the shopper completes; the wait ends with the captured order on stdout, exit 0', async () => {
    const r = start(apm('WAIT-OK-1', '60s'), tempDir(), sandbox.env);
    const order = await orderAtSandbox(sandbox.url, 'WAIT-OK-1');
    expect(order.payment_status).toBe('1000');
    await shopper(sandbox.url, order.transaction_id, 'complete');
    expect(await r.exited, r.out.stderr).toBe(0);
    const doc = JSON.parse(r.out.stdout) as WaitDoc;
    expect(doc).toMatchObject({ outcome: 'approved', payment_status: '3000', via: 'gateway' });
    expect(doc.order?.transaction_id).toBe(order.transaction_id);
    // The issuer address is for the person (stderr); stdout holds only the final document.
    expect(r.out.stderr).toContain(`/_sandbox/issuer/${order.transaction_id}`);
    expect(r.out.stderr).toContain('waiting for the shopper');
    expect((await ledger(sandbox.url)).filter((e) => e.transaction_id === order.transaction_id)).toHaveLength(
      1,
    );
  });

  it('apm: the shopper fails on the issuer page: declined, exit 1 (as pay card exits on a decline)', async () => {
    const r = start(apm('WAIT-DECLINE-1', '60s'), tempDir(), sandbox.env);
    const order = await orderAtSandbox(sandbox.url, 'WAIT-DECLINE-1');
    await shopper(sandbox.url, order.transaction_id, 'fail');
    expect(await r.exited, r.out.stderr).toBe(1);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ outcome: 'declined', payment_status: '6000' });
    expect((await ledger(sandbox.url)).filter((e) => e.transaction_id === order.transaction_id)).toHaveLength(
      0,
    );
  });

  it('checkout: completed on the hosted page, table output: the order card on stdout, exit 0', async () => {
    const r = start(
      [
        '--yes',
        'pay',
        'checkout',
        '--amount',
        '12.50',
        '--currency',
        'USD',
        '--order-no',
        'WAIT-CO-1',
        '--wait',
        '1m',
      ],
      tempDir(),
      sandbox.env,
    );
    const order = await orderAtSandbox(sandbox.url, 'WAIT-CO-1');
    await shopper(sandbox.url, order.transaction_id, 'complete');
    expect(await r.exited, r.out.stderr).toBe(0);
    expect(r.out.stdout).toContain('WAIT-CO-1');
    expect(r.out.stdout).toContain('captured');
    expect(r.out.stdout).not.toContain('<html');
  });

  it('nobody completes: at the deadline exit 3, still pending, with the command that looks again', async () => {
    const from = sandbox.requests.length;
    const r = start(apm('WAIT-LATE-1', '1s'), tempDir(), sandbox.env);
    expect(await r.exited, r.out.stderr).toBe(3);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ outcome: 'pending', payment_status: '1000' });
    expect(r.out.stderr).toMatch(/order WAIT-LATE-1 is not settled after 1s/);
    expect(r.out.stderr).toContain('payops query --order-no WAIT-LATE-1');
    // The gateway was asked at the deadline before "not settled" was said.
    expect(queriesFor(from)).toBeGreaterThan(0);
  });

  it('Ctrl-C stops waiting: exit 130, the payment stays pending at the gateway', async () => {
    const r = start(apm('WAIT-INT-1', '10m'), tempDir(), sandbox.env);
    await until('the waiting line', () => r.out.stderr.includes('waiting for the shopper'));
    r.child.kill('SIGINT');
    expect(await r.exited, r.out.stderr).toBe(130);
    expect(r.out.stderr).toMatch(/stopped waiting for order WAIT-INT-1 .*the payment stays as it is/);
    expect(r.out.stderr).toContain('payops query --order-no WAIT-INT-1');
    const orders = await admin<Array<{ order_no: string; payment_status: string }>>(
      sandbox.url,
      '/_sandbox/orders',
    );
    expect(orders.find((o) => o.order_no === 'WAIT-INT-1')?.payment_status).toBe('1000');
  });

  it('with an events journal (payops listen): the wait ends on the event, without asking the gateway', async () => {
    const home = tempDir();
    listenerHome(home);
    const from = sandbox.requests.length;
    const r = start([...apm('WAIT-EV-1', '60s'), '--notify-url', NOTIFY], home, sandbox.env);
    const order = await orderAtSandbox(sandbox.url, 'WAIT-EV-1');
    await shopper(sandbox.url, order.transaction_id, 'complete');
    // What the gateway sends, as listen journals it: first pending (not final: ignored), then captured.
    journalEvent(home, 'payment.pending', { ...order, payment_status: '1000' });
    journalEvent(home, 'payment.captured', { ...order, payment_status: '3000', query_result: '1' });
    expect(await r.exited, r.out.stderr).toBe(0);
    expect(JSON.parse(r.out.stdout)).toMatchObject({
      outcome: 'approved',
      payment_status: '3000',
      via: 'event',
    });
    expect(r.out.stderr).toContain('by its event (payops listen)');
    expect(queriesFor(from)).toBe(0);
  });

  it('a listener runs but the payment has no notify_url: no event can come, the gateway is asked at once', async () => {
    const home = tempDir();
    listenerHome(home);
    const from = sandbox.requests.length;
    const r = start(apm('WAIT-EV-3', '10m'), home, sandbox.env);
    const order = await orderAtSandbox(sandbox.url, 'WAIT-EV-3');
    await until('an order query', () => queriesFor(from) > 0);
    await shopper(sandbox.url, order.transaction_id, 'complete');
    expect(await r.exited, r.out.stderr).toBe(0);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ outcome: 'approved', via: 'gateway' });
    expect(r.out.stderr).toContain('created without a notify_url, so no event of it reaches payops listen');
    // The sandbox's clock: the first question came at the quick schedule (1 s ± 20 %), not the
    // listener's (15 s ± 20 %: never before 12 s).
    const seen = sandbox.requests.slice(from);
    const query = seen.find((q) => q.path === QUERY_PATH)!;
    expect(query.at.getTime() - seen[0]!.at.getTime()).toBeLessThan(12_000);
  });

  it('an event for another order, or one not final, does not end the wait', async () => {
    const home = tempDir();
    listenerHome(home);
    const r = start([...apm('WAIT-EV-2', '2s'), '--notify-url', NOTIFY], home, sandbox.env);
    const order = await orderAtSandbox(sandbox.url, 'WAIT-EV-2');
    journalEvent(home, 'payment.captured', { ...order, order_no: 'SOMEONE-ELSE', payment_status: '3000' });
    journalEvent(home, 'payment.pending', { ...order, payment_status: '1000' });
    expect(await r.exited, r.out.stderr).toBe(3);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ outcome: 'pending', via: null });
  });

  it('card with 3-D Secure: --wait waits for the challenge; completed → authorised, exit 0', async () => {
    const r = start(
      [
        '--yes',
        '--output',
        'json',
        'pay',
        'card',
        '--amount',
        '9.99',
        '--currency',
        'USD',
        '--expiry',
        '12/2030',
        '--order-no',
        'WAIT-3DS-1',
        '--wait',
        '60s',
      ],
      tempDir(),
      sandbox.env,
      `${CARDS.threeDs}\n123\n`,
    );
    const order = await orderAtSandbox(sandbox.url, 'WAIT-3DS-1');
    await shopper(sandbox.url, order.transaction_id, 'complete');
    expect(await r.exited, r.out.stderr).toBe(0);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ outcome: 'approved', payment_status: '2000' });
    expect(r.out.stderr).toContain('waiting for 3-D Secure');
    expect(`${r.out.stdout}${r.out.stderr}`).not.toContain(CARDS.threeDs);
  });

  it('a card approved at once does not wait: exit 0 as without --wait', async () => {
    const r = start(
      [
        '--yes',
        '--output',
        'json',
        'pay',
        'card',
        '--amount',
        '1.00',
        '--currency',
        'USD',
        '--expiry',
        '12/2030',
        '--wait',
      ],
      tempDir(),
      sandbox.env,
      `${CARDS.approved}\n123\n`,
    );
    expect(await r.exited, r.out.stderr).toBe(0);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ kind: 'card', outcome: 'approved' });
    expect(r.out.stderr).not.toContain('waiting');
  });
});

describe('pay --wait with the real payops listen', { timeout: 120_000 }, () => {
  it('the sandbox notifies listen, listen journals, the wait ends on that event: no order query sent', async () => {
    const home = tempDir();
    const listener = await startListen(home, [], sandbox.env);
    try {
      const from = sandbox.requests.length;
      const r = start([...apm('WAIT-LISTEN-1', '60s'), '--notify-url', listener.url], home, sandbox.env);
      const order = await orderAtSandbox(sandbox.url, 'WAIT-LISTEN-1');
      await shopper(sandbox.url, order.transaction_id, 'complete');
      expect(await r.exited, r.out.stderr).toBe(0);
      expect(JSON.parse(r.out.stdout)).toMatchObject({
        outcome: 'approved',
        payment_status: '3000',
        via: 'event',
        order: { order_no: 'WAIT-LISTEN-1', transaction_id: order.transaction_id },
      });
      expect(queriesFor(from)).toBe(0);
      expect(journalLines(home).some((l) => l.eventType === 'payment.captured')).toBe(true);
    } finally {
      await listener.stop();
    }
  });
});

describe.skipIf(!hasScript)('pay --wait on a terminal', { timeout: 120_000 }, () => {
  it('one line on stderr counts the time waited, and Ctrl-C ends the wait (exit 130) with the line cleared', async () => {
    const run = await underPty(
      apm('WAIT-TTY-1', '10m').filter((a) => a !== '--output' && a !== 'json'),
      {
        env: cliEnv(tempDir(), sandbox.env),
        columns: 100,
        interruptWhen: (raw) => /waiting for the shopper… 0:01 \(up to 10m; Ctrl-C stops waiting\)/.test(raw),
        timeoutMs: 60_000,
      },
    );
    expect(run.code, run.raw).toBe(130);
    // Redrawn in place (a carriage return before each state), never a new line per second.
    expect(run.raw).toMatch(/\rwaiting for the shopper… 0:00 .*\rwaiting for the shopper… 0:01 /s);
    const screen = screenOf(run.raw, 100).lines.join('\n');
    expect(screen).not.toContain('waiting for the shopper…');
    expect(screen).toContain('stopped waiting for order WAIT-TTY-1');
  });
});
