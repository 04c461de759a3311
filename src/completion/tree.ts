// A plain description of the commander tree, from which the shell scripts are generated: every
// command, subcommand and option, with the values an option or argument accepts.
import type { Command, Option } from 'commander';

export interface OptionSpec {
  long?: string;
  short?: string;
  description: string;
  takesValue: boolean;
  choices?: readonly string[];
  /** Value is a file name. */
  file: boolean;
}

export interface CommandSpec {
  /** Space-free path from the root: '' for the program, 'config/set' for `config set`. */
  path: string;
  name: string;
  description: string;
  options: OptionSpec[];
  subcommands: CommandSpec[];
  /** Choices of the first positional argument, if it has any. */
  argChoices?: readonly string[];
}

const FILE_VALUE = /file|csv|dir|path|json/i;

function optionSpec(o: Option): OptionSpec {
  const takesValue = o.required || o.optional;
  return {
    ...(o.long ? { long: o.long } : {}),
    ...(o.short ? { short: o.short } : {}),
    description: o.description,
    takesValue,
    ...(o.argChoices ? { choices: o.argChoices } : {}),
    file: takesValue && !o.argChoices && FILE_VALUE.test(o.flags.replace(/^[^<[]*/, '')),
  };
}

export function describeTree(cmd: Command, parentPath = ''): CommandSpec {
  const path = parentPath === undefined ? '' : parentPath;
  const firstArg = cmd.registeredArguments[0];
  const helpOption: OptionSpec = {
    long: '--help',
    short: '-h',
    description: 'show help',
    takesValue: false,
    file: false,
  };
  return {
    path,
    name: cmd.name(),
    description: cmd.description(),
    options: [...cmd.options.filter((o) => !o.hidden).map(optionSpec), helpOption],
    subcommands: cmd.commands
      .filter((c) => !(c as Command & { _hidden?: boolean })._hidden)
      .map((c) => describeTree(c, path ? `${path}/${c.name()}` : c.name())),
    ...(firstArg?.argChoices ? { argChoices: firstArg.argChoices } : {}),
  };
}

export function flatten(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(flatten)];
}
