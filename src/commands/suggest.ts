// Forgiving typos between a group and a command of nearly the same name: `payops refunds --file x`
// means `payops refund --file x`, but commander, inside the `refunds` group, suggests the closest
// flag it knows there (`--profile`). A group that is sent a flag or a word it does not know, and
// that has a sibling command one or two letters away, suggests that command instead.
import type { Command } from 'commander';
import { isGroup } from './on-demand.js';

/** Edit distance (insert, delete, substitute), small words only. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** A command beside `group` (not a group itself) whose name is one or two edits from the group's. */
function nearSibling(group: Command): Command | undefined {
  const siblings = group.parent?.commands ?? [];
  return siblings.find((c) => c !== group && !isGroup(c) && distance(c.name(), group.name()) <= 2);
}

function path(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Makes each of `groups` suggest a near sibling command for a flag or word it does not know. The
 * sibling is looked for only then, not at every start (the edit distances were ~1 ms of `--help`).
 */
export function suggestNearCommands(groups: readonly Command[]): void {
  for (const group of groups) {
    if (!isGroup(group)) continue;
    const rest = (cmd: Command) => cmd.args.join(' ');
    // unknownOption and unknownCommand are commander's own (left out of its typings): replaced here.
    const originalOption = Reflect.get(group, 'unknownOption') as (flag: string) => never;
    Reflect.set(group, 'unknownOption', function unknownOption(this: Command, flag: string): never {
      const sibling = nearSibling(group);
      if (sibling === undefined) return originalOption.call(this, flag);
      return this.error(
        `error: unknown option '${flag}' for '${path(group)}'\n(Did you mean \`${path(sibling)} ${flag} …\`?)`,
        { code: 'commander.unknownOption' },
      );
    });
    const original = Reflect.get(group, 'unknownCommand') as () => never;
    Reflect.set(group, 'unknownCommand', function unknownCommand(this: Command): never {
      const sibling = nearSibling(group);
      const word = this.args[0] ?? '';
      // A word close to one of the group's own commands is a typo of that: commander's suggestion.
      if (sibling === undefined || this.commands.some((c) => distance(c.name(), word) <= 2)) {
        return original.call(this);
      }
      return this.error(
        `error: unknown command '${word}' for '${path(group)}'\n(Did you mean \`${path(sibling)} ${rest(this)}\`?)`,
        { code: 'commander.unknownCommand' },
      );
    });
  }
}
