// The hidden prompt on a terminal: the real binary under a pseudo-terminal (util-linux `script`),
// answering the prompts as a person would, and checking that what was typed is never echoed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasScript, underPty as onTerminal } from '../../helpers/pty-screen.js';
import { cliEnv, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

const CANARY_PAN = '4111111111111111';
const CANARY_CODE = '9731';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Runs the command under a pty; `answers` are typed when their prompt text shows up. */
async function underPty(
  args: string[],
  answers: Array<[prompt: string, text: string]>,
): Promise<{ code: number | null; out: string }> {
  const env = cliEnv(tempDir(), sandbox.env);
  const { code, raw } = await onTerminal(args, { env, term: 'dumb', answers, timeoutMs: 20_000 });
  return { code, out: raw };
}

// `script` (util-linux) provides the terminal; without it there is no way to get one from Node alone.
describe.skipIf(!hasScript)('pay card on a terminal', () => {
  it('asks for card number and security code without echoing them', async () => {
    const r = await underPty(
      ['--output', 'json', 'pay', 'card', '--amount', '3.00', '--currency', 'USD', '--expiry', '12/2035'],
      [
        ['Card number', CANARY_PAN],
        ['Security code', CANARY_CODE],
        // Added on purpose (issue 15): a terminal confirms amount, currency and masked card.
        ['Charge USD 3.00 to card 411111******1111 (expires 12/2035)?', 'y'],
      ],
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('"outcome": "approved"');
    expect(r.out).toContain('411111******1111');
    expect(r.out).not.toContain(CANARY_PAN);
    // As a token of its own: hex signatures may contain the digits by chance.
    expect(r.out).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${CANARY_CODE}(?![0-9A-Za-z])`));
  });

  it('asks for the expiry when no flag gives it, and charges nothing when the answer is No', async () => {
    const before = await ledgerSize();
    const r = await underPty(
      ['--output', 'json', 'pay', 'card', '--amount', '4.00', '--currency', 'USD'],
      [
        ['Card number', CANARY_PAN],
        ['Security code', CANARY_CODE],
        ['Expiry (MM/YYYY)', '11/2034'],
        ['Charge USD 4.00 to card 411111******1111 (expires 11/2034)?', 'n'],
      ],
    );
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain('nothing was sent');
    expect(r.out).not.toContain(CANARY_PAN);
    expect(await ledgerSize()).toBe(before);
  });

  it('charges with the expiry typed at the prompt', async () => {
    const r = await underPty(
      ['--output', 'json', 'pay', 'card', '--amount', '5.00', '--currency', 'USD'],
      [
        ['Card number', CANARY_PAN],
        ['Security code', CANARY_CODE],
        ['Expiry (MM/YYYY)', '11/2034'],
        ['Charge USD 5.00', 'y'],
      ],
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('"outcome": "approved"');
  });
});

async function ledgerSize(): Promise<number> {
  const res = await fetch(`${sandbox.url}/_sandbox/ledger`);
  return ((await res.json()) as unknown[]).length;
}
