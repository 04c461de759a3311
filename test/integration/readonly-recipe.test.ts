// Issue 24, item 2, with the real binary: the read-only recipe of docs/configuration.md, line by
// line as written there. Its first form (`config set read_only true`, then a query) printed a sample
// order from the built-in sandbox, exit 0 — made-up data for a support agent to read to a customer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CREDENTIALS, SANDBOX_SAMPLE_ORDERS } from '../../src/sandbox/index.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  // The sample orders: ORD-1001 of the recipe exists at this gateway too.
  sandbox = await startTestSandbox({ seedFiles: [SANDBOX_SAMPLE_ORDERS] });
});
afterAll(() => sandbox.close());

/** The `payops …` lines of the sh block under "## read_only profiles", with their comments. */
function recipe(): Array<{ argv: string[]; comment: string }> {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## read_only profiles'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .trim()
    .split('\n')
    .map((line) => {
      const [cmd, comment = ''] = line.split(/\s+#\s*/);
      return { argv: cmd!.trim().split(/\s+/).slice(1), comment };
    });
}

const SAMPLE = /ORD-1001/;

describe("docs/configuration.md's read-only recipe, with the real binary", () => {
  it('without a gateway: refused (exit 4) naming the profile and the command that sets one; no sample order shown', async () => {
    const home = tempDir();
    const steps = recipe().filter((s) => !s.argv.includes('init'));
    expect(steps.map((s) => s.argv[2])).toEqual(['config', 'query', 'refund']);
    const set = await runCli(steps[0]!.argv, { home });
    expect(set.code, set.stderr).toBe(0);
    const q = await runCli(steps[1]!.argv, { home });
    expect(q.code, q.stderr).toBe(4);
    expect(q.stdout).not.toMatch(SAMPLE);
    expect(q.stderr).toMatch(/profile "support" has no base_url/);
    expect(q.stderr).toContain('payops --profile support config set base_url URL');
  });

  it('as written, with the gateway set up: the query works, the refund is refused without saying how to lift it', async () => {
    const home = tempDir();
    const steps = recipe();
    expect(steps[0]!.argv).toEqual(['--profile', 'support', 'config', 'init']);
    // `config init` asks at a terminal: the same values, set one by one.
    for (const [key, value, input] of [
      ['base_url', sandbox.url],
      ['merchant_id', SANDBOX_CREDENTIALS.merchantId],
      ['account_id', SANDBOX_CREDENTIALS.accountId],
      ['sign_key', undefined, `${SANDBOX_CREDENTIALS.signKey}\n`],
    ] as const) {
      const r = await runCli(['--profile', 'support', 'config', 'set', key, ...(value ? [value] : [])], {
        home,
        ...(input ? { input } : {}),
      });
      expect(r.code, r.stderr).toBe(0);
    }
    for (const step of steps.slice(1)) {
      const r = await runCli(step.argv, { home });
      const line = `payops ${step.argv.join(' ')}  # ${step.comment}`;
      if (/refused, exit 4/.test(step.comment)) {
        expect(r.code, `${line}\n${r.stderr}`).toBe(4);
        expect(r.stderr).toMatch(/profile "support" is read-only/);
        expect(r.stderr).toMatch(/hint: .*profile "support"/);
        expect(r.stderr).not.toMatch(/read_only false|config set read_only/);
      } else {
        expect(r.code, `${line}\n${r.stderr}`).toBe(0);
        if (step.argv.includes('query')) expect(r.stdout).toMatch(SAMPLE);
      }
    }
  });
});
