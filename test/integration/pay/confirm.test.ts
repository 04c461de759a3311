// Every payment confirms (issue 23 item 9): on a terminal it asks, showing what it is about to
// charge; without one it needs --yes, and is refused before card data is even read (exit 2, naming
// --yes, nothing sent). Judged by the sandbox's ledger, orders and request log.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_TEST_TOKEN } from '../../../src/sandbox/index.js';
import type { SandboxRequestEntry } from '../../../src/sandbox/request-log.js';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { CARDS, health, ledger } from './support.js';

let sandbox: TestSandbox;
const seen: SandboxRequestEntry[] = [];
beforeAll(async () => {
  sandbox = await startTestSandbox({
    onRequest: (e) => {
      if (!e.path.startsWith('/_sandbox/')) seen.push(e);
    },
  });
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  seen.length = 0;
});

const COLUMNS = 100;
const CHARGE = ['--amount', '7.00', '--currency', 'USD'];

/** What the gateway holds: orders made and money moved. */
async function state() {
  return { orders: (await health(sandbox.url)).orders, ledger: (await ledger(sandbox.url)).length };
}

describe('a payment without a terminal needs --yes (issue 23 item 9)', () => {
  it.each([
    [
      'pay card, card data piped',
      ['pay', 'card', ...CHARGE, '--expiry', '12/2030'],
      `${CARDS.approved}\n123\n`,
    ],
    ['pay card --token-id', ['pay', 'card', ...CHARGE, '--token-id', SANDBOX_TEST_TOKEN], ''],
    ['pay apm', ['pay', 'apm', '--request', 'samples/apm-request.json'], ''],
    ['pay checkout', ['pay', 'checkout', '--request', 'samples/checkout-request.json'], ''],
  ])('%s: exit 2 naming --yes, nothing sent', async (_name, args, input) => {
    const before = await state();
    const r = await runCli(args, { env: sandbox.env, input });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(r.stderr).toMatch(/nothing was sent/);
    expect(r.stderr + r.stdout).not.toContain(CARDS.approved);
    expect(seen).toEqual([]);
    expect(await state()).toEqual(before);
  });

  it('with --yes the piped card is charged, once', async () => {
    const before = await state();
    const r = await runCli(['--yes', '--output', 'json', 'pay', 'card', ...CHARGE, '--expiry', '12/2030'], {
      env: sandbox.env,
      input: `${CARDS.approved}\n123\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).outcome).toBe('approved');
    expect((await state()).orders).toBe(before.orders + 1);
  });
});

describe.skipIf(!hasScript)('a payment on a terminal asks first (issue 23 item 9)', () => {
  const onTerminal = (args: string[], answers: Array<[string, string]>) =>
    underPty(args, { env: cliEnv(tempDir(), sandbox.env), columns: COLUMNS, answers, timeoutMs: 20_000 });

  it('pay card --token-id asks, showing amount and token; No charges nothing (exit 2)', async () => {
    const before = await state();
    const question = `Charge USD 7.00 to the stored card of token ${SANDBOX_TEST_TOKEN}?`;
    const r = await onTerminal(
      ['pay', 'card', ...CHARGE, '--token-id', SANDBOX_TEST_TOKEN],
      [[question, 'n']],
    );
    const screen = screenOf(r.raw, COLUMNS);
    expect(r.code, screen.lines.join('\n')).toBe(2);
    expect(screen.lines.some((l) => l.includes(question))).toBe(true);
    expect(screen.lines.join('\n')).toContain('nothing was sent');
    expect(screen.wraps).toEqual([]);
    expect(seen).toEqual([]);
    expect(await state()).toEqual(before);
  });

  it('pay card --token-id: Yes charges the stored card once', async () => {
    const before = await state();
    const r = await onTerminal(
      ['--output', 'json', 'pay', 'card', ...CHARGE, '--token-id', SANDBOX_TEST_TOKEN],
      [['to the stored card of token', 'y']],
    );
    expect(r.code, r.raw).toBe(0);
    expect(r.raw).toContain('"outcome": "approved"');
    expect((await state()).orders).toBe(before.orders + 1);
  });

  it('pay apm asks before starting the payment; No sends nothing', async () => {
    const before = await state();
    const r = await onTerminal(
      ['pay', 'apm', '--request', 'samples/apm-request.json'],
      [['Start a payment of BRL 150.00 by PIX?', 'n']],
    );
    expect(r.code, r.raw).toBe(2);
    expect(seen).toEqual([]);
    expect(await state()).toEqual(before);
  });
});
