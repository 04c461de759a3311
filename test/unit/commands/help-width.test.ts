// Help never breaks a word (issue 27, item 7): every command's --help, at 80 and 130 columns on a
// terminal and into a pipe (80), has no line wider than the screen — so the terminal never cuts a
// word — and holds the same words, in the same order, as the page laid out with room to spare:
// lines were broken only at spaces. In process; the pty test (test/integration/commands/
// help-screen.test.ts) shows the real terminal.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import type { App } from '../../../src/commands/app.js';
import { addAllOptions } from '../../../src/commands/on-demand.js';
import { displayWidth } from '../../../src/output/width.js';
import { Capture, fakeIo, runMain } from '../../helpers/in-process.js';
import { expectCleanProcess } from './support.js';

expectCleanProcess();

function commandPaths(): string[][] {
  const app: App = { action: () => async () => {} };
  const walk = (cmd: Command, path: string[]): string[][] =>
    cmd.commands.flatMap((c) => [[...path, c.name()], ...walk(c, [...path, c.name()])]);
  const program = buildProgram(fakeIo(), app);
  addAllOptions(program);
  return walk(program, []);
}

/** `payops …path --help` on a terminal `columns` wide (undefined: into a pipe), no pager. */
async function help(path: string[], columns: number | undefined): Promise<string> {
  const io = fakeIo({ env: { PAYOPS_PAGER: '' } });
  if (columns !== undefined) {
    const tty = new Capture(true) as Capture & { columns?: number };
    tty.columns = columns;
    io.stdout = tty;
  }
  const r = await runMain([...path, '--help'], io);
  expect(r.code).toBe(0);
  return r.stdout;
}

// A command's ` \` continuation is the one token wrapping may add.
const words = (text: string) => text.split(/\s+/).filter((w) => w !== '' && w !== '\\');

describe('every help page fits its width, broken only at spaces', () => {
  const paths = [[], ...commandPaths()];
  for (const path of paths) {
    it(`payops ${[...path, '--help'].join(' ')}`, async () => {
      const roomy = await help(path, 1000);
      for (const columns of [80, 130, undefined]) {
        const text = await help(path, columns);
        const width = columns ?? 80;
        const over = text.split('\n').filter((l) => displayWidth(l) > width);
        expect(over, `wider than ${width} columns`).toEqual([]);
        expect(words(text)).toEqual(words(roomy));
      }
    });
  }

  it('the top level lists the commands before the global options', async () => {
    const text = await help([], 80);
    expect(text.indexOf('Money movements')).toBeGreaterThan(0);
    expect(text.indexOf('Money movements')).toBeLessThan(text.indexOf('Global options'));
    expect(text.indexOf('Setup:')).toBeLessThan(text.indexOf('--profile <name>'));
  });

  it.each([
    [['refund'], ['--yes', '--out', '--dry-run', '--profile']],
    [
      ['runs', 'show'],
      ['--out', '--no-pager'],
    ],
    [['query'], ['--out', '--no-pager']],
  ])('payops %j --help lists the global flags it honours', async (path, flags) => {
    const text = await help(path, 80);
    const block = text.slice(text.indexOf('Global options it honours'));
    expect(block.length).toBeGreaterThan(0);
    for (const f of flags) expect(block).toMatch(new RegExp(`(^|\\s)${f}(\\s|$)`));
  });

  it('refund --help: the --file description stays in its column', async () => {
    const text = await help(['refund'], 80);
    const at = text.split('\n').findIndex((l) => l.startsWith('  --file <csv>'));
    const column = text.split('\n')[at]!.indexOf('orders');
    for (const l of text.split('\n').slice(at + 1, at + 4)) {
      if (l.startsWith('  --')) break;
      expect(l.slice(0, column).trim(), l).toBe('');
    }
  });
});
