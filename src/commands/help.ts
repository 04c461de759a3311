// The top-level help as a finance person reads it: commands in groups by what they are for, and a
// few real examples to start from.
import type { Command } from 'commander';

/** Heading → the top-level commands under it, in the order shown. */
const GROUPS: ReadonlyArray<[heading: string, names: readonly string[]]> = [
  ['Money movements (asked to confirm first):', ['refund', 'capture', 'cancel', 'review', 'payout']],
  ['Look-ups (read-only):', ['query', 'refunds', 'inspect']],
  ['Payments:', ['pay']],
  ['Runs (results of bulk commands, resuming them):', ['runs']],
  ['Setup:', ['status', 'config', 'sandbox', 'completion', 'call', 'help']],
];

const EXAMPLES = `
Examples:
  payops status                                      is the setup working?
  payops query ORD-1001 ORD-1002                     look up two orders
  payops refund refunds.csv --dry-run                check a file and see the plan, send nothing
  payops refund refunds.csv --out results.csv        refund every row, results to a file
  payops runs show --only failed,not_sent --out fix.csv   the rows to correct and run again
  payops runs resume                                 finish an interrupted run
  payops --sandbox refund samples/refunds.csv        try it all on the built-in sandbox

Run \`payops COMMAND --help\` for a command's options and examples.`;

export function groupHelp(program: Command): void {
  const order = GROUPS.flatMap(([, names]) => names);
  for (const [heading, names] of GROUPS) {
    for (const cmd of program.commands) if (names.includes(cmd.name())) cmd.helpGroup(heading);
  }
  // Groups appear in the order of their first command: sort the list (dispatch goes by name).
  const rank = (c: Command) => (order.includes(c.name()) ? order.indexOf(c.name()) : order.length);
  (program.commands as Command[]).sort((a, b) => rank(a) - rank(b));
  // commander's own `help` command takes the group in force when it is made: Setup.
  program.commandsGroup('Setup:');
  program.helpCommand('help [command]', 'show the help of a command');
  program.addHelpText('after', EXAMPLES);
}
