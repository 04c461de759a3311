// --wait's value is checked before anything is read or sent (main(argv, io), in-process): bad
// durations refused with exit 2 and nothing sent (no gateway is even configured here).
import { describe, expect, it } from 'vitest';
import { DEFAULT_WAIT_MS, durationText, parseWaitFlag } from '../../../src/wait/duration.js';
import { runMain } from '../../helpers/in-process.js';

const APM = ['--yes', 'pay', 'apm', '--payment-method', 'ideal', '--amount', '10', '--currency', 'EUR'];

describe('--wait [DURATION]', () => {
  it('reads durations; --wait alone is the default; absent is no wait', () => {
    expect(parseWaitFlag(undefined)).toBeUndefined();
    expect(parseWaitFlag(true)).toBe(DEFAULT_WAIT_MS);
    expect(parseWaitFlag('90s')).toBe(90_000);
    expect(parseWaitFlag('5m')).toBe(300_000);
    expect(parseWaitFlag('1h')).toBe(3_600_000);
    expect(parseWaitFlag('45')).toBe(45_000);
    expect(durationText(90_000)).toBe('1m30s');
    expect(durationText(DEFAULT_WAIT_MS)).toBe('10m');
  });

  it.each(['5x', '0', '0s', '-1m', '25h', 'soon', ''])('refuses %j', (value) => {
    expect(() => parseWaitFlag(value)).toThrow(/--wait: .* is not a duration; nothing was sent/);
  });

  it.each([
    ['pay apm', [...APM, '--wait', '5x']],
    ['pay checkout', ['--yes', 'pay', 'checkout', '--amount', '10', '--currency', 'EUR', '--wait', '0']],
    [
      'pay card',
      ['--yes', 'pay', 'card', '--amount', '10', '--currency', 'EUR', '--expiry', '12/2030', '--wait', '2d'],
    ],
    ['payout', ['--yes', 'payout', '--request', 'p.json', '--wait', 'later']],
  ])('%s: a bad --wait is refused before anything (exit 2)', async (_name, argv) => {
    const r = await runMain(argv);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--wait: .* is not a duration; nothing was sent/);
    expect(r.stderr).toMatch(/90s, 5m or 1h/);
  });

  it('payout FILE after --wait: the file was taken as the duration, and the hint says so', async () => {
    const r = await runMain(['--yes', 'payout', '--wait', 'payouts.csv']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('put the file before --wait');
  });

  it('--wait alone before another flag takes no value (commander leaves --payment-method alone)', async () => {
    const r = await runMain([
      '--dry-run',
      '--output',
      'json',
      'pay',
      'apm',
      '--wait',
      '--payment-method',
      'ideal',
      '--amount',
      '10',
      '--currency',
      'EUR',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).request.payment_method).toBe('ideal');
  });

  it('the help of each command names --wait [duration]', async () => {
    for (const argv of [['pay', 'apm'], ['pay', 'checkout'], ['pay', 'card'], ['payout']]) {
      const r = await runMain([...argv, '--help']);
      expect(r.stdout).toContain('--wait [duration]');
    }
  });
});
