// Typed command declarations. A command file declares its flags as a const object; the types of the
// `opts` its handler receives are inferred from that object, and the same object builds commander's
// options, so the two cannot drift apart and no command casts its options.
//
//   options: { file: { type: 'string', value: 'csv', description: 'orders to refund' },
//              force: { type: 'boolean', description: 'run it again' } }
//   run: async (ctx, opts) => …   // opts: { file?: string; force?: boolean }
//
// Keys are the long flags as typed (`'max-orders'` for `--max-orders <n>`); `opts` has them in
// commander's camelCase (`opts.maxOrders`). This module is part of the start-up shell: it imports
// commander only, and does nothing until a command is registered.
//
// Options and a group's subcommands are built only when their command is about to run or show
// its help: on-demand.ts, a start-up saving (~1.3 ms and ~2 ms) kept out of the declarations.
import { Argument, type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { type App, collect } from './app.js';
import { deferOptions, deferSubcommands } from './on-demand.js';

interface OptionBase {
  description: string;
  /** One letter: `short: 'y'` makes `-y, --yes`. */
  short?: string;
}

/** `--name <value>`; `choices` narrow the type to their union. */
export interface StringOption extends OptionBase {
  type: 'string';
  /** The placeholder in the help: `value: 'csv'` shows `--file <csv>`. */
  value: string;
  choices?: readonly string[];
  default?: string;
  required?: true;
  /**
   * `--name [value]`: the value may be left out, and the flag is then `true` (`--wait` alone waits
   * the default time). A word after the flag is taken as its value, so a positional argument goes
   * before it; the command's parser says so when that word is not a value.
   */
  optionalValue?: true;
}

/** `--name`, true when given. */
export interface BooleanOption extends OptionBase {
  type: 'boolean';
}

/** `--name <value>` read by `parse`, which throws a CommanderError (exit 2) for a bad value. */
export interface NumberOption extends OptionBase {
  type: 'number';
  value: string;
  parse: (value: string, flag: string) => number;
  default?: number;
  required?: true;
}

/** `--name <value>`, repeatable: every value given, in order. */
export interface ListOption extends OptionBase {
  type: 'string[]';
  value: string;
}

export type OptionSpec = StringOption | BooleanOption | NumberOption | ListOption;
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface ArgSpec {
  description: string;
  /** `[name]` instead of `<name>`. */
  optional?: true;
  /** `[name...]`: every remaining word, as a list (the last argument only). */
  variadic?: true;
  choices?: readonly string[];
}
export type ArgSpecs = Readonly<Record<string, ArgSpec>>;

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

type ValueOf<S> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'number' }
    ? number
    : S extends { type: 'string[]' }
      ? string[]
      : S extends { choices: readonly (infer C extends string)[] }
        ? C
        : S extends { optionalValue: true }
          ? string | true
          : string;

/** Present whenever the command runs: required, or defaulted. */
type Always<S> = S extends { required: true } ? true : S extends { default: string | number } ? true : false;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The `opts` a command with these option declarations receives. */
export type OptionsOf<O extends OptionSpecs> = Flatten<
  { -readonly [K in keyof O & string as Always<O[K]> extends true ? CamelCase<K> : never]: ValueOf<O[K]> } & {
    -readonly [K in keyof O & string as Always<O[K]> extends true ? never : CamelCase<K>]?: ValueOf<O[K]>;
  }
>;

/** The positional arguments, by name: a string (or one of its choices); undefined when optional and absent. */
export type ArgsOf<A extends ArgSpecs> = Flatten<{
  -readonly [K in keyof A]: A[K] extends { variadic: true }
    ? string[]
    :
        | (A[K] extends { choices: readonly (infer C extends string)[] } ? C : string)
        | (A[K] extends { optional: true } ? undefined : never);
}>;

export interface CommandSpec<O extends OptionSpecs, A extends ArgSpecs> {
  name: string;
  description: string;
  /** Positional arguments in order (object keys keep their order). */
  args?: A;
  options?: O;
  /** Shown after the options in `--help`: details, exit codes, examples. */
  help?: string;
  /** Parses nothing itself: imports the implementation lazily and returns its exit code. */
  run: (ctx: Context, opts: OptionsOf<O>, args: ArgsOf<A>, cmd: Command) => Promise<number>;
}

/** Adds the declared command (or group) under `parent`; main() builds one program per invocation. */
export type Register = (parent: Command, app: App) => Command;

/** Adds the declared options to `cmd` in declaration order, exactly as `cmd.option(...)` would. */
export function addOptions(cmd: Command, options: OptionSpecs): Command {
  for (const [name, spec] of Object.entries(options)) {
    const long = `--${name}`;
    const short = spec.short ? `-${spec.short}, ` : '';
    const flags =
      spec.type === 'boolean'
        ? `${short}${long}`
        : `${short}${long} ${spec.type === 'string' && spec.optionalValue ? `[${spec.value}]` : `<${spec.value}>`}`;
    const option = new Option(flags, spec.description);
    if (spec.type === 'number') option.argParser((v: string) => spec.parse(v, long));
    if (spec.type === 'string[]') option.argParser(collect);
    if (spec.type === 'string' && spec.choices) option.choices(spec.choices);
    if ((spec.type === 'string' || spec.type === 'number') && spec.default !== undefined) {
      option.default(spec.default);
    }
    if ((spec.type === 'string' || spec.type === 'number') && spec.required) option.makeOptionMandatory();
    cmd.addOption(option);
  }
  return cmd;
}

export function defineCommand<
  const O extends OptionSpecs = Record<never, never>,
  const A extends ArgSpecs = Record<never, never>,
>(spec: CommandSpec<O, A>): Register {
  return (parent, app) => {
    const cmd = parent.command(spec.name).description(spec.description);
    const argNames = Object.keys(spec.args ?? {});
    for (const [name, a] of Object.entries(spec.args ?? {})) {
      const dots = a.variadic ? '...' : '';
      const arg = new Argument(a.optional ? `[${name}${dots}]` : `<${name}${dots}>`, a.description);
      cmd.addArgument(a.choices ? arg.choices(a.choices) : arg);
    }
    const options = spec.options;
    if (options && Object.keys(options).length > 0) deferOptions(parent, cmd, () => addOptions(cmd, options));
    if (spec.help !== undefined) cmd.addHelpText('after', spec.help);
    return cmd.action(
      app.action((ctx, c) => {
        // Commander checked the arguments (count, choices) against the same declarations.
        // A variadic argument commander leaves undefined when absent is an empty list here.
        const args = Object.fromEntries(
          argNames.map((name, i) => [
            name,
            c.processedArgs[i] ?? (spec.args?.[name]?.variadic ? [] : undefined),
          ]),
        );
        return spec.run(ctx, c.opts<OptionsOf<O>>(), args as ArgsOf<A>, c);
      }),
    );
  };
}

export interface GroupSpec {
  name: string;
  description: string;
  help?: string;
  /** Registered in this order, which is their order in the help. */
  commands: readonly Register[];
  /** Anything commander needs beyond the declarations (a hook); runs before the subcommands are added. */
  setup?: (group: Command) => void;
}

/**
 * A command that only holds subcommands (`payops config set`). They are made when the group is
 * about to run or show its help, like options (on-demand.ts). addAllOptions makes them all.
 */
export function defineGroup(spec: GroupSpec): Register {
  return (parent, app) => {
    const group = parent.command(spec.name).description(spec.description);
    if (spec.help !== undefined) group.addHelpText('after', spec.help);
    deferSubcommands(parent, group, () => {
      spec.setup?.(group);
      for (const register of spec.commands) register(group, app);
    });
    return group;
  };
}
