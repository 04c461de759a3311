#!/usr/bin/env node
// `npm run demo` (build, then this): refunds samples/refunds.csv with the real binary against an
// in-process sandbox gateway — a fresh one every time, so the demo works on every run and on a fresh
// machine. Configuration and journals go to a temporary PAYOPS_HOME, removed at the end, so the
// demo neither reads nor changes your own profiles and runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'payops.js');
const home = mkdtempSync(join(tmpdir(), 'payops-demo-'));

const env = { ...process.env, PAYOPS_HOME: home };
// Settings from the caller's environment must not point the demo at a real gateway.
for (const name of Object.keys(env))
  if (name.startsWith('PAYOPS_') && name !== 'PAYOPS_HOME') delete env[name];

function step(title, args, expected = [0]) {
  const bold = process.stderr.isTTY && !process.env.NO_COLOR ? (s) => `\x1b[1m${s}\x1b[0m` : (s) => s;
  process.stderr.write(`\n${bold(`▶ ${title}`)}\n$ payops ${args.join(' ')}\n\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, stdio: 'inherit' });
  if (r.error) throw r.error;
  if (!expected.includes(r.status)) {
    throw new Error(`payops ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  }
}

let code = 0;
try {
  step('Check the file and show the plan, sending nothing', [
    '--sandbox',
    'refund',
    '--file',
    'samples/refunds.csv',
    '--dry-run',
  ]);
  step('Refund every row (each request journaled before it is sent)', [
    '--sandbox',
    'refund',
    '--file',
    'samples/refunds.csv',
    '--yes',
  ]);
  step(
    'A file with mistakes is refused as a whole, every problem listed (exit 2)',
    ['--sandbox', 'refund', '--file', 'samples/refunds-with-mistakes.csv', '--yes'],
    [2],
  );
  step('Every run is journaled: runs list shows it (this demo removes its own journals at the end)', [
    'runs',
    'list',
  ]);
  process.stderr.write(
    `\nDone; the demo's configuration and journals (${home}) are removed now. See docs/bulk.md for files, resuming and exit codes.\n`,
  );
} catch (err) {
  process.stderr.write(`\ndemo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  code = 1;
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exitCode = code;
