// Canary: every pay path runs with a card number and security code that appear nowhere else, with
// --debug, and neither may show up in stdout, stderr or any file under PAYOPS_HOME (journals,
// config) — while the masked form does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunResult, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { filesUnder, setFaults } from './support.js';

/** Luhn-valid, not a sandbox test card (so the sandbox approves it). */
const CANARY_PAN = '4111111111111111';
const CANARY_CODE = '987';
const MASKED = '411111******1111';
const SIGN_KEY = 'sandbox-sign-key';
const INPUT = `${CANARY_PAN}\n${CANARY_CODE}\n`;

/** The PAN in any grouping, and the code as a token of its own (hex signatures and ids may contain "987"). */
const PAN_PATTERN = /4111[ -]?1111[ -]?1111[ -]?1111/;
const CODE_PATTERN = /(?<![0-9A-Za-z])987(?![0-9A-Za-z])/;

let sandbox: TestSandbox;
let home: string;
const runs: Array<{ name: string; result: RunResult }> = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  home = tempDir();
});
afterAll(async () => {
  await sandbox?.close();
});

async function run(name: string, args: string[], input = INPUT): Promise<RunResult> {
  const result = await runCli(['--debug', '--yes', ...args], { env: sandbox.env, home, input });
  runs.push({ name, result });
  return result;
}

const ORDER = ['--amount', '12.50', '--currency', 'USD', '--expiry', '12/2035'];

// Many whole-process runs in one test: give it room on a loaded two-core machine.
describe('canary card number and security code', { timeout: 180_000 }, () => {
  it('runs every pay path with --debug', async () => {
    // A config file in PAYOPS_HOME, so the config folder is checked too.
    expect((await runCli(['config', 'set', 'timeout', '20000'], { env: sandbox.env, home })).code).toBe(0);

    for (const format of ['json', 'table', 'csv']) {
      const r = await run(`card ${format}`, ['--output', format, 'pay', 'card', ...ORDER]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(MASKED);
    }
    const verbose = await run('card verbose, request file', [
      '--verbose',
      '--output',
      'json',
      'pay',
      'card',
      '--request',
      'samples/card-request.json',
      ...ORDER,
    ]);
    expect(verbose.code, verbose.stderr).toBe(0);
    // --debug really logs the request and response bodies: the canary check below is not vacuous.
    expect(verbose.stderr).toMatch(/authorise/);
    expect(verbose.stderr).toContain('shopper_email');

    const dry = await run('card dry run', ['--dry-run', 'pay', 'card', ...ORDER]);
    expect(dry.code).toBe(0);

    const expired = await run('card expired', [
      '--output',
      'json',
      'pay',
      'card',
      '--amount',
      '3',
      '--currency',
      'USD',
      '--expiry',
      '01/2020',
    ]);
    // Refused before the card is read (issue 27): nothing sent, and no card anywhere.
    expect(expired.code, expired.stderr).toBe(2);
    expect(expired.stderr).toContain('the card expired at the end of 01/2020; nothing was sent');

    for (const mode of ['drop_after_commit', 'bad_signature', 'error500', 'garbage']) {
      await setFaults(sandbox.url, { mode, rate: 1, paths: ['/v1/authorise'] });
      try {
        const r = await run(`card fault ${mode}`, ['--output', 'json', 'pay', 'card', ...ORDER]);
        expect(r.code, `${mode}: ${r.stderr}`).toBe(3);
        expect(r.stdout).toContain(MASKED);
      } finally {
        await setFaults(sandbox.url, { mode: 'none' });
      }
    }

    const argv = await run('card as argument', ['pay', 'card', ...ORDER, CANARY_PAN]);
    expect(argv.code).toBe(2);

    const dir = tempDir();
    const file = join(dir, 'with-card.json');
    writeFileSync(
      file,
      JSON.stringify({ amount: '1', currency: 'USD', card: CANARY_PAN, security_code: CANARY_CODE }),
    );
    const inFile = await run('card in --request', ['pay', 'card', '--request', file, '--expiry', '12/2035']);
    expect(inFile.code).toBe(2);

    const badCode = await run('invalid code', ['pay', 'card', ...ORDER], `${CANARY_PAN}\n98\n`);
    expect(badCode.code).toBe(2);

    const apm = await run('apm', ['pay', 'apm', '--request', 'samples/apm-request.json']);
    expect(apm.code, apm.stderr).toBe(0);
    const checkout = await run('checkout', [
      '--output',
      'json',
      '--out',
      join(home, 'checkout.html'),
      'pay',
      'checkout',
      '--request',
      'samples/checkout-request.json',
    ]);
    expect(checkout.code, checkout.stderr).toBe(0);
  });

  it('never shows the card number, security code or sign key', () => {
    expect(runs.length).toBeGreaterThan(10);
    for (const { name, result } of runs) {
      for (const [stream, text] of [
        ['stdout', result.stdout],
        ['stderr', result.stderr],
      ] as const) {
        expect(text, `${name} ${stream}`).not.toMatch(PAN_PATTERN);
        expect(text, `${name} ${stream}`).not.toMatch(CODE_PATTERN);
        expect(text, `${name} ${stream}`).not.toContain(SIGN_KEY);
      }
    }
  });

  it('never writes them to a file under PAYOPS_HOME', () => {
    const files = filesUnder(home);
    expect(files.some((f) => f.path.endsWith('config.json'))).toBe(true);
    for (const f of files) {
      expect(f.text, f.path).not.toMatch(PAN_PATTERN);
      expect(f.text, f.path).not.toMatch(CODE_PATTERN);
    }
  });
});
