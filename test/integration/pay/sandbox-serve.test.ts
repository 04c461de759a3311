// Issue 27: `--sandbox pay apm|checkout` printed URLs on a port that closed when payops exited.
// Without --serve it says so; with --serve the in-process sandbox answers them until Ctrl-C. The
// real binary; "answers" is a real request to the printed issuer_url.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliEnv, PAYOPS_BIN, REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';

const APM = [
  '--sandbox',
  '--yes',
  'pay',
  'apm',
  '--amount',
  '10',
  '--currency',
  'EUR',
  '--payment-method',
  'ideal',
];

describe('--sandbox APM and checkout URLs', { timeout: 60_000 }, () => {
  it('without --serve: says the URL stops answering when payops exits', async () => {
    const r = await runCli([...APM, '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /note: http:\/\/127\.0\.0\.1:\d+ is the in-process sandbox, which stops when payops exits/,
    );
    expect(r.stderr).toContain('--serve');
  });

  it('with --serve: the issuer_url answers until Ctrl-C, then payops ends (exit 0)', async () => {
    const child = spawn(process.execPath, [PAYOPS_BIN, ...APM, '--output', 'json', '--serve'], {
      cwd: REPO_ROOT,
      env: cliEnv(tempDir()),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const deadline = Date.now() + 30_000;
    while (!stderr.includes('until Ctrl-C') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(stderr).toContain('serving the in-process sandbox at');
    const url = (JSON.parse(stdout) as { issuer_url: string }).issuer_url;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(url)).rejects.toThrow();
  });
});
