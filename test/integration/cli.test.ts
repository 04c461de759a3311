import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PAYOPS_BIN, runCli } from '../helpers/run-cli.js';

// design.md §2, in order.
const COMMANDS = [
  'config',
  'pay',
  'query',
  'capture',
  'cancel',
  'review',
  'refund',
  'refunds',
  'payout',
  'runs',
  'call',
  'sandbox',
  'completion',
];
const SUBCOMMANDS = [
  'init',
  'set',
  'get',
  'list',
  'use',
  'card',
  'apm',
  'checkout',
  'show',
  'resume',
  'search',
];

describe('payops command line', () => {
  it('loads no child_process, net or stream module just to start (they cost --help ~4 ms)', () => {
    const shell = join(dirname(PAYOPS_BIN), '..', 'dist', 'cli.cjs');
    const probe = `const before = new Set(process.moduleLoadList); require(${JSON.stringify(shell)});
      console.log(JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m))));`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const loaded = JSON.parse(r.stdout) as string[];
    expect(loaded.filter((m) => /\b(child_process|net|dgram|stream)\b/.test(m))).toEqual([]);
  });

  it('keeps commander in the shell only: no implementation bundle carries a copy of it', () => {
    const dist = join(dirname(PAYOPS_BIN), '..', 'dist');
    const copies = readdirSync(dist).filter(
      (f) => f.endsWith('.js') && readFileSync(join(dist, f), 'utf8').includes('commander/lib/'),
    );
    expect(copies).toEqual([]);
  });

  // `instanceof PayopsError` in the shell (exit codes, error reports) holds for errors thrown by an
  // implementation only while both halves share one build of src/errors.ts.
  it('builds src/errors.ts once, as dist/errors.cjs, which the shell and the implementations both load', () => {
    const dist = join(dirname(PAYOPS_BIN), '..', 'dist');
    const files = readdirSync(dist).filter((f) => /\.(c?js)$/.test(f));
    const text = (f: string) => readFileSync(join(dist, f), 'utf8');
    // esbuild keeps the class names (the build leaves out blanks and comments: no spaces to rely on).
    const copies = files.filter((f) => /\/\/ src\/errors\.ts\n|\bPayopsError\s*=\s*class\b/.test(text(f)));
    expect(copies).toEqual(['errors.cjs']);
    expect(text('cli.cjs')).toContain('require("./errors.cjs")');
    // The implementations reach it through a stand-in that requires it (not an import of CommonJS,
    // which node would scan again): one in dist/lookup.js, one in a chunk of the rest, which
    // bulk-run-bulk.js, for one, imports.
    const requirers = files.filter((f) => f.endsWith('.js') && text(f).includes('("./errors.cjs")'));
    expect(requirers).toHaveLength(2);
    expect(requirers).toContain('lookup.js');
    const chunk = requirers.find((f) => f !== 'lookup.js');
    expect(text('bulk-run-bulk.js')).toContain(`"./${chunk}"`);

    // An ES module importing the file the shell has required gets the very same classes.
    const errors = join(dist, 'errors.cjs');
    const probe = `const shell = require(${JSON.stringify(errors)});
      import(${JSON.stringify(pathToFileURL(errors).href)}).then((esm) => {
        const e = new esm.UsageError('x');
        console.log(JSON.stringify([esm.PayopsError === shell.PayopsError, e instanceof shell.PayopsError, shell.exitCodeFor(e)]));
      });`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([true, true, 2]);
  });

  it('--help lists every command of design.md §2', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const name of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('never echoes a card number typed where a command or option was expected', async () => {
    // Where no command runs, commander's own error (masked); where one would, the argument guard
    // refuses first, naming the flag (issue 13: the guard covers every command).
    for (const [args, said] of [
      [['4242424242424242'], /unknown command '424242\*{6}4242'/],
      [['query', '--bogus', '4000000000000002'], /argument #3 \(--bogus\) looks like a card number/],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(/4242424242424242|4000000000000002/);
      expect(r.stderr).toMatch(said);
    }
  });

  it('has no colour codes when not on a terminal, or with NO_COLOR', async () => {
    for (const env of [{}, { NO_COLOR: '1' }]) {
      const r = await runCli(['call', '/v1/capture', '--data', 'x'], { env });
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).not.toMatch(/\x1b\[/);
    }
  });

  for (const shell of ['bash', 'zsh', 'fish']) {
    it(`completion ${shell} covers every command, subcommand and option`, async () => {
      const r = await runCli(['completion', shell]);
      expect(r.code).toBe(0);
      for (const name of [...COMMANDS, ...SUBCOMMANDS]) expect(r.stdout).toContain(name);
      for (const option of [
        'profile',
        'sandbox',
        'output',
        'dry-run',
        'allow-insecure-http',
        'json',
        'data',
        'form',
      ]) {
        expect(r.stdout).toContain(option);
      }
    });
  }

  it('completion rejects an unknown shell (exit 2)', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
  });
});
