// Issue 27, item 10: errors and warnings coloured on a terminal — `error:` red, `warning:` yellow,
// `hint:` cyan — and never with NO_COLOR or --no-color, nor into a pipe. The real binary, under a
// pseudo-terminal 80 columns wide (and piped).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasScript, underPty } from '../helpers/pty-screen.js';
import { PAYOPS_BIN, REPO_ROOT, runCli, tempDir } from '../helpers/run-cli.js';

const ESC = '\u001b[';

/** A person's environment: a home of its own, colour not turned off. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, PAYOPS_HOME: tempDir() };
  delete e.NO_COLOR;
  delete e.FORCE_COLOR;
  for (const k of Object.keys(e)) if (k.startsWith('PAYOPS_') && k !== 'PAYOPS_HOME') delete e[k];
  return { ...e, ...extra };
}

const missing = () => ['refund', '--file', join(tempDir(), 'missing.csv'), '--dry-run'];

describe.skipIf(!hasScript)('colour on a terminal', { timeout: 60_000 }, () => {
  it('an error is red', async () => {
    const r = await underPty(missing(), { columns: 80, env: env() });
    expect(r.code, r.raw).toBe(2);
    expect(r.raw).toContain(`${ESC}1;31merror:${ESC}0m`);
  });

  it('a warning is yellow', async () => {
    const r = await underPty(['config', 'set', 'sign_key', 'typed-secret-key-1'], {
      columns: 80,
      env: env(),
    });
    expect(r.code, r.raw).toBe(0);
    expect(r.raw).toContain(`${ESC}1;33mwarning:${ESC}0m a sign key on the command line`);
  });

  it('no colour with NO_COLOR or --no-color', async () => {
    for (const [args, e] of [
      [missing(), env({ NO_COLOR: '1' })],
      [['--no-color', ...missing()], env()],
      [['--no-color', 'config', 'set', 'sign_key', 'typed-secret-key-1'], env()],
    ] as const) {
      const r = await underPty([...args], { columns: 80, env: e });
      expect(r.raw).toMatch(/error:|warning:/);
      expect(r.raw).not.toContain(ESC);
    }
  });
});

describe.skipIf(!hasScript)('a table into a file while stderr is a terminal', { timeout: 60_000 }, () => {
  it('has no colour codes (the border colour followed stderr)', async () => {
    const file = join(tempDir(), 'plan.txt');
    const command = `'${process.execPath}' '${PAYOPS_BIN}' --sandbox --dry-run --output table payout --file samples/payouts.csv > '${file}'`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: env(),
      stdio: 'pipe',
    });
    let raw = '';
    child.stdout.on('data', (d: Buffer) => {
      raw += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, raw).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('INV-2026-201');
    expect(text).not.toContain(ESC);
  });
});

describe('colour never into a pipe', () => {
  it('an error and a warning piped are plain text', async () => {
    const err = await runCli(missing(), { env: env() });
    expect(err.stderr).toContain('error:');
    expect(err.stderr).not.toContain(ESC);
    const warn = await runCli(['config', 'set', 'sign_key', 'typed-secret-key-1'], { env: env() });
    expect(warn.stderr).toContain('warning:');
    expect(warn.stderr).not.toContain(ESC);
  });
});
