// Issue 24 item 9: card data never shown or stored, and the browser opener given only what it needs.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Resolves once `path` exists (the opener runs detached, after payops may have exited). */
async function fileAppears(path: string, ms = 10_000): Promise<string> {
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
