// A start-up saving, kept out of define.ts: a command's options become commander Options only when
// that command is about to run or show its help (a preSubcommand hook on its parent, or its own
// beforeHelp event), as the pay commands' generated flags always did. Building all ~90 at every
// start cost ~1.3 ms of CPU more than the chained `.option()` calls defineCommand replaced; built on
// demand, `payops --help` costs what it did. A group's subcommands are made on demand the same way
// (~2 ms of every start: `payops --help` and the other commands do not build them). Completion,
// which lists every option, calls addAllOptions first. Imports commander only (start-up shell).
import { type Command, Help } from 'commander';

/** What adds the options of commands not yet about to run, by command. */
const deferred = new WeakMap<Command, () => void>();
/** Parents whose subcommands get their options on dispatch. */
const hooked = new WeakSet<Command>();
/** Groups whose subcommands are not made yet, with what makes them. */
const unbuilt = new WeakMap<Command, () => void>();

/** `cmd` (a subcommand of `parent`) gets its options from `add` when it runs or shows its help. */
export function deferOptions(parent: Command, cmd: Command, add: () => void): void {
  addOptionsOnDispatch(parent);
  deferred.set(cmd, add);
  // `payops help refund` shows the help without dispatching to refund.
  cmd.on('beforeHelp', () => addDeferredOptions(cmd));
}

/** `group` (a subcommand of `parent`) gets its subcommands from `build` when it runs or shows its help. */
export function deferSubcommands(parent: Command, group: Command, build: () => void): void {
  addOptionsOnDispatch(parent);
  unbuilt.set(group, () => {
    // Before build's hooks: the declared options come first, as they did when added at once.
    addOptionsOnDispatch(group);
    build();
  });
  // `payops help runs` shows the help without dispatching to runs.
  group.on('beforeHelp', () => addDeferredCommands(group));
}

/** Adds `cmd`'s declared options if they are still waiting; a no-op afterwards. */
export function addDeferredOptions(cmd: Command): void {
  const add = deferred.get(cmd);
  if (add === undefined) return;
  deferred.delete(cmd);
  add();
}

/** Makes `group`'s subcommands if they are still waiting; a no-op afterwards. */
export function addDeferredCommands(group: Command): void {
  const build = unbuilt.get(group);
  if (build === undefined) return;
  unbuilt.delete(group);
  build();
}

/** A command that holds subcommands (`payops runs`), whether they are made yet or not. */
export function isGroup(cmd: Command): boolean {
  return cmd.commands.length > 0 || unbuilt.has(cmd);
}

/** Makes every subcommand under `root` and adds every declared option (`payops completion`, tests). */
export function addAllOptions(root: Command): void {
  addDeferredCommands(root);
  addDeferredOptions(root);
  for (const sub of root.commands) addAllOptions(sub);
}

/** Before `parent` hands over to a subcommand, that subcommand gets its options (and subcommands). */
function addOptionsOnDispatch(parent: Command): void {
  if (hooked.has(parent)) return;
  hooked.add(parent);
  parent.hook('preSubcommand', (_parent, sub) => {
    addDeferredCommands(sub);
    addDeferredOptions(sub);
  });
  // The parent's list of subcommands says "[options]" for one with options, as commander would
  // once they are added. Subcommands created from here on inherit this configuration.
  parent.configureHelp({
    ...parent.configureHelp(),
    subcommandTerm(this: Help, cmd: Command): string {
      const term = Help.prototype.subcommandTerm.call(this, cmd);
      if (cmd.options.length > 0 || !deferred.has(cmd)) return term;
      return `${cmd.name()} [options]${term.slice(cmd.name().length)}`;
    },
  });
}
