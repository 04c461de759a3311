// A checkout used before it was built (`node bin/payops.js` right after cloning) says what to do,
// without a stack trace.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PAYOPS_BIN, tempDir } from '../helpers/run-cli.js';

it('says it is not built yet, exit 4, no stack trace', () => {
  const root = tempDir('payops-unbuilt-');
  mkdirSync(join(root, 'bin'));
  copyFileSync(PAYOPS_BIN, join(root, 'bin', 'payops.js'));
  copyFileSync(join(PAYOPS_BIN, '..', 'package.json'), join(root, 'bin', 'package.json'));
  for (const args of [['query', 'ORD-1'], ['--help']]) {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'payops.js'), ...args], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `payops is not built yet (no ${root}/dist): run \`npm install\` or \`npm run build\``,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }
});
