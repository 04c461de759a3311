// Completion offers what only this machine knows (issue 15 item 10): profile names after --profile
// and `config use`, run ids after `runs show|resume|verify`, and file names after a bulk command.
// The real bash runs the generated script, with `payops` on PATH as the real binary.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, PAYOPS_BIN, runCli, tempDir } from '../../helpers/run-cli.js';

const hasBash = spawnSync('bash', ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!hasBash)('bash completion', () => {
  const home = tempDir();
  const bin = tempDir();
  const cwd = tempDir();
  writeFileSync(join(bin, 'payops'), `#!/bin/sh\nexec '${process.execPath}' '${PAYOPS_BIN}' "$@"\n`);
  chmodSync(join(bin, 'payops'), 0o755);
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ current: 'live', profiles: { live: {}, support: { read_only: true } } }),
    { mode: 0o600 },
  );
  for (const id of ['20261120-101010-aaaa', '20261123-175049-cd1f']) {
    mkdirSync(join(home, 'state', 'runs', id), { recursive: true });
  }
  writeFileSync(join(cwd, 'refunds.csv'), 'transaction_id\n');
  const env = { ...cliEnv(home), PATH: `${bin}:${process.env.PATH}` };

  async function complete(line: string): Promise<string[]> {
    const script = (await runCli(['completion', 'bash'], { env: { PAYOPS_HOME: home } })).stdout;
    const words = line.split(' ');
    const program = `${script}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_payops_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['-c', program], { cwd, env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.split('\n').filter(Boolean);
  }

  it('offers profile names after --profile and `config use`', async () => {
    expect(await complete('payops query --profile ')).toEqual(['live', 'support']);
    expect(await complete('payops config use s')).toEqual(['support']);
  });

  it('offers run ids after `runs show`, newest first', async () => {
    expect(await complete('payops runs show 2026')).toEqual(['20261123-175049-cd1f', '20261120-101010-aaaa']);
  });

  it('offers files after a bulk command', async () => {
    expect(await complete('payops refund ref')).toEqual(['refunds.csv']);
  });

  it('offers inspect, its files, and the commands --for names', async () => {
    expect(await complete('payops insp')).toEqual(['inspect']);
    expect(await complete('payops inspect ref')).toEqual(['refunds.csv']);
    expect(await complete('payops inspect refunds.csv --for p')).toEqual(['payout']);
  });
});
