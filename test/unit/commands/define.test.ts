// defineCommand and defineGroup: the declarations build commander's options and arguments, and the
// handler receives exactly what they declare, typed from them (the expectTypeOf lines are checked by
// `npm run typecheck`).
import { Command, CommanderError } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type App, positiveInt } from '../../../src/commands/app.js';
import { defineCommand, defineGroup, type OptionsOf } from '../../../src/commands/define.js';
import type { GLOBAL_OPTIONS } from '../../../src/commands/globals.js';
import { addAllOptions, isGroup } from '../../../src/commands/on-demand.js';
import { type Context, createContext } from '../../../src/context.js';
import type { GlobalOptions } from '../../../src/io.js';
import { fakeIo } from '../../helpers/in-process.js';

/** Runs commands with a real Context over a fake Io, and keeps the exit code they return. */
function testApp() {
  const state = { code: undefined as number | undefined };
  const app: App = {
    action: (run) =>
      async function (this: Command) {
        state.code = await run(createContext(fakeIo(), {}), this);
      },
  };
  return { app, state };
}

function program(): Command {
  return new Command('payops').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
}

const EXAMPLE_OPTIONS = {
  file: { type: 'string', value: 'csv', description: 'the file' },
  force: { type: 'boolean', description: 'again' },
  'max-orders': { type: 'number', value: 'n', description: 'at most', parse: positiveInt },
  'max-amount': { type: 'string[]', value: 'CUR:AMOUNT', description: 'repeatable' },
  mode: { type: 'string', value: 'm', description: 'how', choices: ['fast', 'safe'], default: 'safe' },
  name: { type: 'string', value: 'n', description: 'who', required: true },
} as const;

describe('defineCommand', () => {
  it('declares the flags as commander would from the same text', () => {
    const { app } = testApp();
    const root = program();
    const cmd = defineCommand({
      name: 'x',
      description: 'an example',
      options: EXAMPLE_OPTIONS,
      run: async () => 0,
    })(root, app);
    addAllOptions(root);
    expect(cmd.options.map((o) => o.flags)).toEqual([
      '--file <csv>',
      '--force',
      '--max-orders <n>',
      '--max-amount <CUR:AMOUNT>',
      '--mode <m>',
      '--name <n>',
    ]);
    const mode = cmd.options.find((o) => o.long === '--mode')!;
    expect(mode.defaultValue).toBe('safe');
    expect(mode.argChoices).toEqual(['fast', 'safe']);
    expect(cmd.options.find((o) => o.long === '--name')!.mandatory).toBe(true);
    expect(cmd.options.find((o) => o.long === '--file')!.mandatory).toBe(false);
  });

  it('hands the handler its typed options, its named arguments and the command', async () => {
    const { app, state } = testApp();
    let seen: unknown[] = [];
    const root = program();
    defineCommand({
      name: 'x',
      description: 'an example',
      args: {
        id: { description: 'run id' },
        shell: { description: 'shell', choices: ['bash', 'zsh'], optional: true },
      },
      options: EXAMPLE_OPTIONS,
      run: async (ctx, opts, args, cmd) => {
        expectTypeOf(ctx).toEqualTypeOf<Context>();
        expectTypeOf(opts).toEqualTypeOf<{
          file?: string;
          force?: boolean;
          maxOrders?: number;
          maxAmount?: string[];
          mode: 'fast' | 'safe';
          name: string;
        }>();
        expectTypeOf(args).toEqualTypeOf<{ id: string; shell: 'bash' | 'zsh' | undefined }>();
        seen = [opts, args, cmd.name()];
        return 7;
      },
    })(root, app);
    await root.parseAsync(
      ['x', 'R-1', '--max-orders', '3', '--max-amount', 'USD:1', '--max-amount', 'EUR:2', '--name', 'a'],
      { from: 'user' },
    );
    expect(state.code).toBe(7);
    expect(seen).toEqual([
      { maxOrders: 3, maxAmount: ['USD:1', 'EUR:2'], mode: 'safe', name: 'a' },
      { id: 'R-1', shell: undefined },
      'x',
    ]);
  });

  it('a value the parser refuses is a usage error (exit 2) naming the flag', async () => {
    const { app, state } = testApp();
    const root = program();
    defineCommand({ name: 'x', description: '', options: EXAMPLE_OPTIONS, run: async () => 0 })(root, app);
    const err = await root
      .parseAsync(['x', '--name', 'a', '--max-orders', '0'], { from: 'user' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).exitCode).toBe(2);
    expect((err as CommanderError).message).toContain('--max-orders must be a whole number ≥ 1, not "0"');
    expect(state.code).toBeUndefined();
  });

  it('a required option left out, or an argument outside its choices, stops before the handler', async () => {
    const { app, state } = testApp();
    const root = program();
    defineCommand({
      name: 'x',
      description: '',
      args: { shell: { description: '', choices: ['bash'] } },
      options: EXAMPLE_OPTIONS,
      run: async () => 0,
    })(root, app);
    const missing = await root.parseAsync(['x', 'bash'], { from: 'user' }).catch((e: unknown) => e);
    expect((missing as CommanderError).code).toBe('commander.missingMandatoryOptionValue');
    const wrong = await root
      .parseAsync(['x', 'tcsh', '--name', 'a'], { from: 'user' })
      .catch((e: unknown) => e);
    expect((wrong as CommanderError).code).toBe('commander.invalidArgument');
    expect(state.code).toBeUndefined();
  });
});

describe('options added on demand', () => {
  function tree() {
    const { app, state } = testApp();
    const root = program();
    let help = '';
    root.configureOutput({ writeOut: (s) => (help += s), writeErr: () => {} });
    const cmd = defineCommand({
      name: 'x',
      description: 'an example',
      args: { id: { description: 'run id' } },
      options: { force: { type: 'boolean', description: 'again' } },
      run: async (_ctx, opts) => (opts.force ? 1 : 0),
    })(root, app);
    const bare = defineCommand({ name: 'y', description: 'no options', run: async () => 0 })(root, app);
    return { root, cmd, bare, state, help: () => help };
  }

  it('none are built until the command runs, and then its own only', async () => {
    const t = tree();
    expect(t.cmd.options).toEqual([]);
    await t.root.parseAsync(['x', 'R-1', '--force'], { from: 'user' });
    expect(t.state.code).toBe(1);
    expect(t.cmd.options.map((o) => o.long)).toEqual(['--force']);
  });

  it("the parent's list says [options] for a command whose options are not built yet", async () => {
    const t = tree();
    await t.root.parseAsync(['--help'], { from: 'user' }).catch(() => {});
    expect(t.help()).toMatch(/\n {2}x \[options\] <id> +an example\n/);
    expect(t.help()).toMatch(/\n {2}y +no options\n/);
    expect(t.cmd.options).toEqual([]);
  });

  it('`help x` shows them although x is not dispatched', async () => {
    const t = tree();
    await t.root.parseAsync(['help', 'x'], { from: 'user' }).catch(() => {});
    expect(t.help()).toMatch(/^Usage: payops x \[options\] <id>/);
    expect(t.help()).toContain('--force');
  });
});

describe('defineGroup', () => {
  const gSpec = (onSetup: (cmd: Command) => void) =>
    defineGroup({
      name: 'g',
      description: 'a group',
      help: '\nafter the help',
      setup: onSetup,
      commands: [
        defineCommand({ name: 'b', description: '', run: async () => 1 }),
        defineCommand({ name: 'a', description: '', run: async () => 2 }),
      ],
    });

  // Subcommands are made on demand (not at every start), as options are.
  it('makes its subcommands and runs its setup only when the group is about to run', async () => {
    const { app, state } = testApp();
    const root = program();
    let setUp: Command | undefined;
    const group = gSpec((cmd) => {
      setUp = cmd;
    })(root, app);
    expect(setUp).toBeUndefined();
    expect(group.commands).toEqual([]);
    expect(isGroup(group)).toBe(true);
    expect(group.helpInformation()).toContain('a group');
    await root.parseAsync(['g', 'a'], { from: 'user' });
    expect(state.code).toBe(2);
    expect(setUp).toBe(group);
    expect(group.commands.map((c) => c.name())).toEqual(['b', 'a']);
    expect(isGroup(group)).toBe(true);
  });

  it('makes its subcommands before its help, which lists them in order with its help text', () => {
    const { app } = testApp();
    const group = gSpec(() => {})(program(), app);
    let help = '';
    group.configureOutput({ writeOut: (s) => (help += s) }).outputHelp();
    expect(help).toMatch(/Commands:\n\s+b\s*\n\s+a\s*\n/);
    expect(help).toMatch(/after the help\n$/);
  });

  it('makes every subcommand for addAllOptions (completion lists them all)', () => {
    const { app } = testApp();
    const root = program();
    const group = gSpec(() => {})(root, app);
    addAllOptions(root);
    expect(group.commands.map((c) => c.name())).toEqual(['b', 'a']);
    expect(isGroup(defineCommand({ name: 'c', description: '', run: async () => 0 })(root, app))).toBe(false);
  });
});

describe('the global options', () => {
  it('are typed exactly as GlobalOptions', () => {
    expectTypeOf<OptionsOf<typeof GLOBAL_OPTIONS>>().toEqualTypeOf<GlobalOptions>();
  });
});
