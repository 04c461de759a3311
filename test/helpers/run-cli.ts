// Runs the real binary (`node bin/payops.js`, after `npm run build`) the way a user would, with a
// fresh PAYOPS_HOME so no test sees another's configuration, and without NODE_EXTRA_CA_CERTS
// (it adds ~45 ms to every node start on these machines).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** PAYOPS_TEST_BIN lets a developer point the tests at another build of the launcher. */
export const PAYOPS_BIN = process.env.PAYOPS_TEST_BIN ?? join(REPO_ROOT, 'bin', 'payops.js');

export interface RunOptions {
  /** Added to (or, when undefined, removed from) the environment. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. Without it stdin is closed at once. */
  input?: string;
  cwd?: string;
  /** PAYOPS_HOME; a new temporary folder by default. */
  home?: string;
  /** Kill the process after this many ms (default 60 s). */
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The PAYOPS_HOME the run used. */
  home: string;
}

export function tempDir(prefix = 'payops-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The environment of a run: the test process's minus anything PAYOPS_* or proxy-ish, plus overrides. */
export function cliEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('PAYOPS_') || k === 'NODE_EXTRA_CA_CERTS' || /^(https?|no|all)_proxy$/i.test(k))
      continue;
    if (k === 'NODE_OPTIONS' || k.startsWith('VITEST') || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  env.PAYOPS_HOME = home;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const home = opts.home ?? tempDir();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAYOPS_BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: cliEnv(home, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, home });
    });
    child.stdin.on('error', () => {
      // The CLI may exit before reading its input; that is not the test's failure.
    });
    child.stdin.end(opts.input ?? '');
  });
}
