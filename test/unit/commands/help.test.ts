// Every help page, in process, against the snapshot beside this file: declaring commands with
// defineCommand (and adding their options on demand) must not change a character of what users see.
// A deliberate change of help text updates the snapshot (`npx vitest run -u …`) in the same commit.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import type { App } from '../../../src/commands/app.js';
import { addAllOptions } from '../../../src/commands/on-demand.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { expectCleanProcess } from './support.js';

expectCleanProcess();

/** Every command path of the program (`['refunds', 'search']`, …). */
function commandPaths(): string[][] {
  const app: App = { action: () => async () => {} };
  const walk = (cmd: Command, path: string[]): string[][] =>
    cmd.commands.flatMap((c) => [[...path, c.name()], ...walk(c, [...path, c.name()])]);
  // Groups make their subcommands on demand (define.ts): all of them, to walk them all.
  const program = buildProgram(fakeIo(), app);
  addAllOptions(program);
  return walk(program, []);
}

describe('help pages', () => {
  const paths = [[], ...commandPaths()];

  it('covers every command', () => {
    expect(paths.map((p) => p.join(' '))).toContain('refunds search');
    expect(paths.length).toBeGreaterThan(20);
  });

  for (const path of paths) {
    it(`payops ${[...path, '--help'].join(' ')}`, async () => {
      const r = await runMain([...path, '--help']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatchSnapshot();
    });
  }

  it('`payops help refund` is the same page as `payops refund --help`', async () => {
    const viaHelp = await runMain(['help', 'refund']);
    const viaFlag = await runMain(['refund', '--help']);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });
});
