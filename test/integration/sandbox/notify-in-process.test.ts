// The in-process sandbox of `payops --sandbox <command>` delivers the events its command made
// before it stops with the command (the real binary; a receiver in this process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { signer } from './helpers.js';
import { Receiver } from './notify-receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  // A receiver a little slow to answer: the command is over by then, its sandbox must wait for it.
  receiver = await Receiver.start(() => ({ status: 200, afterMs: 300 }));
});
afterAll(() => receiver.close());

describe('payops --sandbox', () => {
  it('pay card and pay apm with --notify-url: their events arrive, signed, before payops exits', async () => {
    const card = await runCli(
      [
        '--sandbox',
        '--yes',
        '--output',
        'json',
        'pay',
        'card',
        '--amount',
        '12.50',
        '--currency',
        'USD',
      ].concat(['--expiry', '12/2035', '--notify-url', receiver.url]),
      { input: '4242424242424242\n123\n' },
    );
    expect(card.code, card.stderr).toBe(0);
    const apm = await runCli([
      '--sandbox',
      '--yes',
      '--output',
      'json',
      'pay',
      'apm',
      '--amount',
      '10',
      '--currency',
      'EUR',
      '--payment-method',
      'ideal',
      '--notify-url',
      receiver.url,
    ]);
    expect(apm.code, apm.stderr).toBe(0);
    // Both processes have exited: what they delivered is here already.
    expect(receiver.received.map((r) => r.body.event_type)).toEqual(['payment.approved', 'payment.pending']);
    for (const { body, aborted } of receiver.received) {
      expect(signer.verify(body, body.encryption_data as string)).toBe(true);
      expect(aborted).toBe(false);
    }
    expect((receiver.received[0]!.body.data as Record<string, string>).order_no).toBe(
      JSON.parse(card.stdout).order_no,
    );
  });
});
