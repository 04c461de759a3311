// One way to cancel (issue 15 item 5) and a config init that leaves a working setup (item 6), under
// a pseudo-terminal 80 columns wide: Ctrl-C at any prompt is exit 130 "cancelled — nothing was
// sent" (or saved), No is exit 2 "nothing was sent", and no prompt ever ends as "unexpected".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFUND_HEADER, refundRows, useBulkSuite, writeCsv } from '../bulk/support.js';
import { CTRL_C, hasScript, underPty } from './pty.js';

const suite = useBulkSuite();

/** The environment of a person at a terminal: PAYOPS_HOME, but no gateway settings. */
function homeOnly(): NodeJS.ProcessEnv {
  const env = suite.gw.env(suite.dir);
  for (const k of Object.keys(env)) if (k.startsWith('PAYOPS_') && k !== 'PAYOPS_HOME') delete env[k];
  return env;
}

function configOf(): { current?: string; profiles?: Record<string, Record<string, unknown>> } {
  return JSON.parse(readFileSync(join(suite.dir, 'config.json'), 'utf8'));
}

function expectNoUnexpected(out: string): void {
  expect(out).not.toContain('unexpected');
  expect(out).not.toContain('ExitPromptError');
}

describe.skipIf(!hasScript)('cancelling at a prompt', () => {
  it('Ctrl-C at the refund confirmation: exit 130, "cancelled — nothing was sent", nothing sent', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const r = await underPty(['refund', file], [['(y/N)', CTRL_C]], suite.gw.env(suite.dir));
    expect(r.unanswered).toEqual([]);
    expect(r.code, r.out).toBe(130);
    expect(r.out).toContain('cancelled — nothing was sent');
    expectNoUnexpected(r.out);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('No at the refund confirmation: exit 2, "nothing was sent"', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const r = await underPty(['refund', file], [['(y/N)', 'n']], suite.gw.env(suite.dir));
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('nothing was sent');
    expect(r.out).not.toContain('cancelled');
    expectNoUnexpected(r.out);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('Ctrl-C at the card number prompt: exit 130, nothing charged', async () => {
    const r = await underPty(
      ['pay', 'card', '--amount', '3.00', '--currency', 'USD', '--expiry', '12/2035'],
      [['Card number', CTRL_C]],
      suite.gw.env(suite.dir),
    );
    expect(r.code, r.out).toBe(130);
    expect(r.out).toContain('cancelled — nothing was sent');
    expectNoUnexpected(r.out);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('Ctrl-C in config init: exit 130, "cancelled — nothing was saved", no config file', async () => {
    const r = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'live'],
        ['sandbox', CTRL_C],
      ],
      homeOnly(),
    );
    expect(r.code, r.out).toBe(130);
    expect(r.out).toContain('cancelled — nothing was saved');
    expectNoUnexpected(r.out);
    expect(existsSync(join(suite.dir, 'config.json'))).toBe(false);
  });
});

describe.skipIf(!hasScript)('payops config init', () => {
  it('offers the built-in sandbox with its demo values and asks before making it current', async () => {
    const r = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'demo'],
        ['built-in sandbox', 'y'],
        ['Read-only', 'n'],
        ['current profile', 'y'],
      ],
      homeOnly(),
    );
    expect(r.unanswered).toEqual([]);
    expect(r.code, r.out).toBe(0);
    const config = configOf();
    expect(config.current).toBe('demo');
    expect(config.profiles?.demo).toMatchObject({
      base_url: 'sandbox',
      merchant_id: '800001',
      read_only: false,
    });
  });

  it('tests the new profile with read-only look-ups, and keeps the current profile on No', async () => {
    const env = homeOnly();
    // A first profile, current.
    const first = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'demo'],
        ['built-in sandbox', 'y'],
        ['Read-only', 'n'],
        ['current profile', 'y'],
      ],
      env,
    );
    expect(first.code, first.out).toBe(0);
    const gw = suite.gw.env(suite.dir);
    const r = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'live'],
        ['built-in sandbox', 'n'],
        ['Gateway address', gw.PAYOPS_BASE_URL!],
        ['Merchant id', gw.PAYOPS_MERCHANT_ID!],
        ['Account id', gw.PAYOPS_ACCOUNT_ID!],
        ['Sign key', gw.PAYOPS_SIGN_KEY!],
        ['Read-only', 'y'],
        ['current profile', 'n'],
      ],
      env,
    );
    expect(r.unanswered).toEqual([]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/the gateway answers: yes/);
    expect(r.out).toMatch(/accepts the key, merchant and account: yes/);
    expect(r.out).toMatch(/query calls from this machine's IP address: yes/);
    expect(r.out).not.toContain(gw.PAYOPS_SIGN_KEY!);
    const config = configOf();
    expect(config.current).toBe('demo');
    expect(config.profiles?.live).toMatchObject({ base_url: gw.PAYOPS_BASE_URL, read_only: true });
    expect(r.out).toContain('payops config use live');
  });

  it('refuses plain http:// to another host at the prompt', async () => {
    const r = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'live'],
        ['built-in sandbox', 'n'],
        ['Gateway address', 'http://gateway.example.com'],
        ['plain http://', CTRL_C],
      ],
      homeOnly(),
    );
    expect(r.unanswered).toEqual([]);
    expect(r.code, r.out).toBe(130);
    expect(r.out).toContain('use https://');
    expect(existsSync(join(suite.dir, 'config.json'))).toBe(false);
  });

  it('a refused key is reported with what to do, and No to "save anyway" saves nothing (exit 2)', async () => {
    const gw = suite.gw.env(suite.dir);
    const r = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'live'],
        ['built-in sandbox', 'n'],
        ['Gateway address', gw.PAYOPS_BASE_URL!],
        ['Merchant id', gw.PAYOPS_MERCHANT_ID!],
        ['Account id', gw.PAYOPS_ACCOUNT_ID!],
        ['Sign key', 'wrong-key-12345678'],
        ['Read-only', 'n'],
        // Asked again (issue 27); Enter stops asking.
        ['type it again', ''],
        ['anyway', 'n'],
      ],
      homeOnly(),
    );
    expect(r.unanswered).toEqual([]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('what to do: the sign key does not match');
    expect(r.out).toMatch(/accepts the key, merchant and account: no/);
    expect(r.out).toContain('nothing was saved');
    expect(existsSync(join(suite.dir, 'config.json'))).toBe(false);
  });

  it('a refused key is asked for again, every other answer kept, and the profile saved (issue 27)', async () => {
    const gw = suite.gw.env(suite.dir);
    const r = await underPty(
      ['config', 'init'],
      [
        ['Profile name', 'live'],
        ['built-in sandbox', 'n'],
        ['Gateway address', gw.PAYOPS_BASE_URL!],
        ['Merchant id', gw.PAYOPS_MERCHANT_ID!],
        ['Account id', gw.PAYOPS_ACCOUNT_ID!],
        ['Sign key', 'wrong-key-12345678'],
        ['Read-only', 'y'],
        ['type it again', gw.PAYOPS_SIGN_KEY!],
        ['current profile', 'y'],
      ],
      homeOnly(),
    );
    expect(r.unanswered).toEqual([]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/accepts the key, merchant and account: no/);
    expect(r.out).toMatch(/accepts the key, merchant and account: yes/);
    expect(r.out).not.toContain(gw.PAYOPS_SIGN_KEY!);
    expect(configOf().profiles?.live).toEqual({
      base_url: gw.PAYOPS_BASE_URL,
      merchant_id: gw.PAYOPS_MERCHANT_ID,
      account_id: gw.PAYOPS_ACCOUNT_ID,
      sign_key: gw.PAYOPS_SIGN_KEY,
      read_only: true,
    });
  });
});
