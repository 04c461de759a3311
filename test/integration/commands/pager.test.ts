// Long output through a pager on a terminal (issue 27, item 6): the help and `runs show` of a run
// longer than the screen go to $PAYOPS_PAGER (a script here that notes it ran, then shows its
// input), as gh does; --no-pager and an empty PAYOPS_PAGER turn it off; never into a pipe; output
// that fits the screen is not paged; a missing pager leaves the text written plainly. Under a
// pseudo-terminal (util-linux `script`).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';

const dir = tempDir('payops-pager-');
const mark = join(dir, 'pager-used');
const recorder = join(dir, 'pager.sh');
const LAST_HELP_LINE = "Run `payops COMMAND --help` for a command's options and examples.";

beforeAll(() => {
  writeFileSync(recorder, `#!/bin/sh\necho used >> '${mark}'\ncat\n`);
  chmodSync(recorder, 0o755);
});

function pagerRuns(): number {
  return existsSync(mark) ? readFileSync(mark, 'utf8').split('\n').filter(Boolean).length : 0;
}

async function onTerminal(args: string[], env: Record<string, string | undefined>, rows = 30) {
  const home = tempDir();
  const before = pagerRuns();
  const r = await underPty(args, { columns: 80, rows, env: cliEnv(home, env) });
  return { ...r, paged: pagerRuns() - before, text: screenOf(r.raw, 80).lines.join('\n') };
}

describe.skipIf(!hasScript)('a pager for long output on a terminal (issue 27, item 6)', () => {
  it('the help, longer than the screen, goes through $PAYOPS_PAGER', async () => {
    const r = await onTerminal(['--help'], { PAYOPS_PAGER: recorder });
    expect(r.code).toBe(0);
    expect(r.paged).toBe(1);
    expect(r.text).toContain(LAST_HELP_LINE);
  });

  it('$PAGER when PAYOPS_PAGER is not set', async () => {
    const r = await onTerminal(['help'], { PAYOPS_PAGER: undefined, PAGER: recorder });
    expect(r.paged).toBe(1);
  });

  it.each([
    ['--no-pager', ['--help', '--no-pager'], { PAYOPS_PAGER: recorder }],
    ['an empty PAYOPS_PAGER', ['--help'], { PAYOPS_PAGER: '', PAGER: recorder }],
  ])('%s: no pager, the whole text written', async (_what, args, env) => {
    const r = await onTerminal(args, env);
    expect(r.code).toBe(0);
    expect(r.paged).toBe(0);
    expect(r.text).toContain(LAST_HELP_LINE);
  });

  it('output that fits the screen is not paged', async () => {
    const r = await onTerminal(['runs', 'list'], { PAYOPS_PAGER: recorder }, 30);
    expect(r.paged).toBe(0);
  });

  it('a pager that is missing: the text is written plainly', async () => {
    const r = await onTerminal(['--help'], { PAYOPS_PAGER: join(dir, 'no-such-pager') });
    expect(r.code).toBe(0);
    expect(r.text).toContain(LAST_HELP_LINE);
    expect(r.text).toContain('Money movements');
  });

  it('runs show of a run longer than the screen is paged', async () => {
    const home = tempDir();
    const made = await runCli(
      ['--sandbox', 'refund', 'samples/refunds.csv', '--yes', '--out', join(home, 'r.csv')],
      {
        home,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    const id = /run (\d{8}-\d{6}-[0-9a-f]+)/.exec(made.stderr)![1]!;
    const before = pagerRuns();
    // 12 rows of table are more than a 10-line screen.
    const r = await underPty(['runs', 'show', id], {
      columns: 80,
      rows: 10,
      env: cliEnv(home, { PAYOPS_PAGER: recorder }),
    });
    expect(r.code).toBe(0);
    expect(pagerRuns() - before).toBe(1);
    expect(r.raw).toContain('ORD-1001');
    // The summary (stderr) went into the pager after the table, not above it or over the pager.
    const lines = screenOf(r.raw, 80).lines;
    const table = lines.findIndex((l) => l.includes('ORD-1001'));
    const summary = lines.findIndex((l) => l.startsWith('refund run '));
    expect([table >= 0, summary > table], lines.join('\n')).toEqual([true, true]);
  });

  it('output that fits the screen keeps its order: the table, then the summary under it', async () => {
    const home = tempDir();
    const dir = tempDir();
    const rows = readFileSync(join(REPO_ROOT, 'samples', 'refunds.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    writeFileSync(join(dir, 'three.csv'), `${rows.slice(0, 4).join('\n')}\n`);
    const made = await runCli(['--sandbox', 'refund', 'three.csv', '--yes', '--out', join(home, 'r.csv')], {
      home,
      cwd: dir,
    });
    expect(made.code, made.stderr).toBe(0);
    const before = pagerRuns();
    const r = await underPty(['runs', 'show'], {
      columns: 80,
      rows: 30,
      env: cliEnv(home, { PAYOPS_PAGER: recorder, NO_COLOR: '1' }),
    });
    expect(r.code).toBe(0);
    expect(pagerRuns()).toBe(before);
    const lines = screenOf(r.raw, 80).lines;
    const last = lines.findIndex((l) => l.includes('ORD-1003'));
    const summary = lines.findIndex((l) => l.startsWith('refund run '));
    expect([last >= 0, summary > last], lines.join('\n')).toEqual([true, true]);
  });
});

describe('never into a pipe', () => {
  it('piped help is written as it is, without the pager', async () => {
    const before = pagerRuns();
    const r = await runCli(['help'], { env: { PAYOPS_PAGER: recorder } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(LAST_HELP_LINE);
    expect(pagerRuns()).toBe(before);
  });
});
