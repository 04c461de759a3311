// Issue 24 item 9: card data never shown or stored, and the browser opener given only what it needs.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OddGateway, startOddGateway } from '../../helpers/odd-gateway.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { CARDS, filesUnder } from './support.js';

let sandbox: TestSandbox;
let odd: OddGateway;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  // A signed card answer that echoes a whole card number, and a note holding one and a security code.
  odd = await startOddGateway(sandbox.url, (req, answer) => {
    if (req.path !== '/v1/authorise' || answer.body?.card === undefined) return undefined;
    return {
      status: answer.status,
      body: { ...answer.body, card: '5555555555554444', note: 'card 5555-5555-5555-4444 cvv 7391' },
    };
  });
});
afterAll(async () => {
  await odd?.close();
  await sandbox?.close();
});

const LEAKS = [/5555[ -]?5555[ -]?5555[ -]?4444/, /7391/];

function expectMasked(text: string, where: string) {
  for (const re of LEAKS) expect(text, where).not.toMatch(re);
}

describe('pay card: card data in a signed answer is masked in every output (issue 24 item 9)', {
  timeout: 90_000,
}, () => {
  function pay(args: string[], home: string) {
    return runCli(
      ['--yes', ...args, 'pay', 'card', '--amount', '3.00', '--currency', 'USD', '--expiry', '12/2035'],
      { env: { ...sandbox.env, PAYOPS_BASE_URL: odd.url }, input: `${CARDS.approved}\n123\n`, home },
    );
  }

  it.each([
    ['table', ['--output', 'table']],
    ['csv', ['--output', 'csv']],
    ['json', ['--output', 'json']],
  ])('--output %s', async (_name, args) => {
    const home = tempDir();
    const r = await pay(args, home);
    expect(r.code, r.stderr).toBe(0);
    expectMasked(r.stdout + r.stderr, 'output');
    expect(r.stdout).toContain('555555******4444');
    expect(r.stdout).toMatch(/cvv \*{4}/);
    for (const f of filesUnder(home)) expectMasked(f.text, f.path);
  });

  it.each([['r.csv'], ['r.json']])('--out %s', async (name) => {
    const home = tempDir();
    const dir = tempDir();
    const out = join(dir, name);
    const r = await pay(['--out', out], home);
    expect(r.code, r.stderr).toBe(0);
    expectMasked(r.stdout + r.stderr, 'output');
    const text = readFileSync(out, 'utf8');
    expectMasked(text, out);
    expect(text).toContain('555555******4444');
  });
});

/** Resolves once `path` exists (the opener runs detached, after payops may have exited). */
async function fileAppears(path: string, ms = 30_000): Promise<string> {
  const until = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return readFileSync(path, 'utf8');
}

describe.runIf(process.platform === 'linux')(
  'pay apm --open: the opener’s environment (issue 24 item 9)',
  () => {
    it('gets PATH, HOME, DISPLAY and XDG_*, never PAYOPS_* (the sign key) or other secrets', async () => {
      const dir = tempDir();
      const dump = join(dir, 'env.txt');
      // A stand-in xdg-open on PATH that writes the environment it was given, then moves it into place.
      const opener = join(dir, 'xdg-open');
      writeFileSync(opener, `#!/bin/sh\nenv > "${dump}.tmp"\nmv "${dump}.tmp" "${dump}"\n`);
      chmodSync(opener, 0o755);
      const r = await runCli(
        ['--yes', '--output', 'table', 'pay', 'apm', '--request', 'samples/apm-request.json', '--open'],
        {
          env: {
            ...sandbox.env,
            PATH: `${dir}:${process.env.PATH ?? ''}`,
            DISPLAY: ':99',
            XDG_RUNTIME_DIR: dir,
            AWS_SECRET_ACCESS_KEY: 'aws-secret-canary',
            GITHUB_TOKEN: 'gh-token-canary',
          },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const env = await fileAppears(dump);
      expect(env).toMatch(/^PATH=/m);
      expect(env).toMatch(/^DISPLAY=:99$/m);
      expect(env).toMatch(/^XDG_RUNTIME_DIR=/m);
      expect(env).toMatch(/^HOME=/m);
      expect(env).not.toMatch(/^PAYOPS_/m);
      expect(env).not.toContain(sandbox.env.PAYOPS_SIGN_KEY);
      expect(env).not.toContain('aws-secret-canary');
      expect(env).not.toContain('gh-token-canary');
    });
  },
);
