// `payops --version` is answered by the launcher (bin/payops.js) with the version alone;
// `--version --verbose` adds node's version and the packages bundled inside dist/, with the versions
// the build recorded: what an audit of node_modules cannot show.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PAYOPS_BIN } from '../helpers/run-cli.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const payops = (...args: string[]) =>
  spawnSync(process.execPath, [PAYOPS_BIN, ...args], { encoding: 'utf8' });

it('--version and -V print the version alone', () => {
  for (const flag of ['--version', '-V']) {
    const r = payops(flag);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${pkg.version}\n`);
  }
});

it('--version --verbose names the bundled packages and their versions, in either order', () => {
  const bundled = JSON.parse(readFileSync(join(root, 'dist', 'bundled.json'), 'utf8')) as Record<
    string,
    string
  >;
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  for (const args of [
    ['--version', '--verbose'],
    ['--verbose', '-V'],
  ]) {
    const r = payops(...args);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`payops ${pkg.version}`);
    expect(lines[1]).toBe(`node ${process.version}`);
    for (const name of ['commander', 'undici']) {
      // The version the lock file installs, which is what the build bundled.
      const locked = lock.packages[`node_modules/${name}`].version;
      expect(bundled[name]).toBe(locked);
      expect(lines).toContain(`  ${name} ${locked}`);
    }
    expect(lines.filter((l) => l.startsWith('  '))).toHaveLength(Object.keys(bundled).length);
  }
});
