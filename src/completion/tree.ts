// A plain description of the commander tree, from which the shell scripts are generated: every
// command, subcommand and option, with the values an option or argument accepts.
import type { Command, Option } from 'commander';

export interface CompletionOption {
  long?: string;
  short?: string;
  description: string;
  takesValue: boolean;
  choices?: readonly string[];
  /** Value is a file name. */
  file: boolean;
  /** Values only this machine knows, from `payops __complete KIND`. */
  dynamic?: 'profiles';
}

/** What a command's positional argument completes to: local values or file names. */
export type ArgKind = 'profiles' | 'runs' | 'files';

export interface CompletionCommand {
  /** Space-free path from the root: '' for the program, 'config/set' for `config set`. */
  path: string;
  name: string;
  description: string;
  options: CompletionOption[];
  subcommands: CompletionCommand[];
  /** Choices of the first positional argument, if it has any. */
  argChoices?: readonly string[];
  /** What the first positional argument completes to, when not choices. */
  argKind?: ArgKind;
}

/** By the argument's name: `profile` (config use), `id` (runs …), `csv` (bulk commands, payout), `file` (inspect). */
const ARG_KINDS: Record<string, ArgKind> = { profile: 'profiles', id: 'runs', csv: 'files', file: 'files' };

const FILE_VALUE = /file|csv|dir|path|json/i;

function optionSpec(o: Option): CompletionOption {
  const takesValue = o.required || o.optional;
  return {
    ...(o.long ? { long: o.long } : {}),
    ...(o.short ? { short: o.short } : {}),
    description: o.description,
    takesValue,
    ...(o.argChoices ? { choices: o.argChoices } : {}),
    file: takesValue && !o.argChoices && FILE_VALUE.test(o.flags.replace(/^[^<[]*/, '')),
    ...(o.long === '--profile' ? { dynamic: 'profiles' as const } : {}),
  };
}

export function describeTree(cmd: Command, parentPath = ''): CompletionCommand {
  const path = parentPath === undefined ? '' : parentPath;
  const firstArg = cmd.registeredArguments[0];
  const helpOption: CompletionOption = {
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
    ...(firstArg && !firstArg.argChoices && ARG_KINDS[firstArg.name()]
      ? { argKind: ARG_KINDS[firstArg.name()] }
      : {}),
  };
}

export function everyCommand(spec: CompletionCommand): CompletionCommand[] {
  return [spec, ...spec.subcommands.flatMap(everyCommand)];
}
