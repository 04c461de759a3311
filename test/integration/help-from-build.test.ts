// `payops --help` into a pipe is answered by the launcher from dist/help.txt, the text the build
// had the shell print (bin/payops.js), without loading the shell. It must be the shell's text of
// this very build, and end as the shell would on a closed reader or a full disk.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { fakeIo, runMain } from '../helpers/in-process.js';
import { PAYOPS_BIN } from '../helpers/run-cli.js';

it('prints exactly what the shell prints for --help and -h into a pipe', async () => {
  const shell = await runMain(['--help'], fakeIo());
  expect(shell.code).toBe(0);
  for (const flag of ['--help', '-h']) {
    const r = spawnSync(process.execPath, [PAYOPS_BIN, flag], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(shell.stdout);
  }
});

it('a reader that went away ends it quietly with 141', async () => {
  const child = spawn(process.execPath, [PAYOPS_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Closed before the child can have written: its write meets a pipe with no reader (EPIPE).
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(stderr).toBe('');
  expect(code).toBe(141);
});

it.runIf(existsSync('/dev/full'))('a full disk behind > file is said, exit 4, as the shell says it', () => {
  const r = spawnSync('sh', ['-c', `"${process.execPath}" "${PAYOPS_BIN}" --help > /dev/full`], {
    encoding: 'utf8',
  });
  expect(r.status).toBe(4);
  expect(r.stderr).toMatch(/standard output could not be written \(ENOSPC\)/);
});
