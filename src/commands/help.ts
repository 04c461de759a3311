// The help as a person reads it at 80 columns (issue 27, item 7): the top level lists commands in
// groups by what they are for, then the global options, then a few real examples; a command's page
// lists its own options, then the global flags it honours (by name: `payops --help` says what each
// does). Every line is wrapped at spaces to the terminal, or to 80 columns into a pipe
// (output/help-fit.ts; the launcher's dist/help.txt is this text, piped).
import type { Command, Help } from 'commander';
import { wrapAtSpaces } from '../output/width.js';

/** Heading → the top-level commands under it, in the order shown. */
const GROUPS: ReadonlyArray<[heading: string, names: readonly string[]]> = [
  ['Money movements (asked to confirm first):', ['refund', 'capture', 'cancel', 'review', 'payout']],
  ['Look-ups (read-only):', ['query', 'refunds', 'inspect']],
  ['Payments:', ['pay']],
  ['Runs (results of bulk commands, resuming them):', ['runs']],
  ['Four eyes (signed plans, approvals):', ['plan', 'approve', 'keys']],
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

/** Where the request goes and how it is logged: every command that talks to the gateway. */
const GATEWAY = [
  '--profile',
  '--sandbox',
  '--base-url',
  '--merchant-id',
  '--account-id',
  '--sign-key',
  '--allow-insecure-http',
  '--timeout',
  '--rate',
  '--verbose',
  '--debug',
];
const MONEY = [...GATEWAY, '--output', '--out', '--wide', '--yes', '--dry-run', '--concurrency', '--quiet'];
const LOOKUP = [...GATEWAY, '--output', '--out', '--wide', '--concurrency', '--quiet', '--no-pager'];
/** `payops plan OP`: the gateway check's look-ups; --out is the plan file. */
const PLAN = [...GATEWAY.filter((f) => f !== '--sandbox'), '--out', '--quiet'];
const PAY = [...GATEWAY, '--output', '--out', '--yes', '--dry-run', '--quiet'];

/**
 * Command path → the global flags it honours, in the order listed. A command not here honours
 * none but --help (completion, help).
 */
const HONOURS: Readonly<Record<string, readonly string[]>> = {
  refund: MONEY,
  capture: MONEY,
  cancel: MONEY,
  review: MONEY,
  payout: MONEY,
  query: LOOKUP,
  'refunds search': LOOKUP,
  'pay card': PAY,
  'pay apm': PAY,
  'pay checkout': PAY,
  call: PAY,
  'runs list': ['--output', '--quiet', '--no-pager'],
  'runs show': ['--profile', '--output', '--out', '--wide', '--quiet', '--no-pager'],
  'runs verify': [...GATEWAY, '--output', '--quiet'],
  'runs resume': MONEY.filter((f) => f !== '--sandbox'),
  status: [...GATEWAY, '--output', '--quiet'],
  'config init': ['--profile', '--quiet'],
  'config get': ['--profile'],
  'config set': ['--profile'],
  'config list': ['--profile', '--output'],
  'config use': ['--quiet'],
  sandbox: ['--verbose', '--quiet'],
  'keys create': ['--quiet'],
  approve: ['--profile', '--quiet'],
  'plan refund': PLAN,
  'plan capture': PLAN,
  'plan cancel': PLAN,
  'plan review': PLAN,
  'plan payout': PLAN,
};

/** The global flags `cmd` honours, from HONOURS by its path under the root. */
export function honouredFlags(cmd: Command): readonly string[] {
  const path: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  return HONOURS[path.join(' ')] ?? [];
}

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

/** Set on the root before any command is made: subcommands inherit commander's help settings. */
export function helpLayout(program: Command): void {
  program.configureHelp({ formatHelp });
}

/**
 * commander's formatHelp with the sections in the order a person looks for them: usage, what it
 * does, arguments, its own options, its subcommands; the top level's options (global) after the
 * commands; a command's honoured global flags by name at the end.
 */
function formatHelp(cmd: Command, helper: Help): string {
  const termWidth = helper.padWidth(cmd, helper);
  const helpWidth = helper.helpWidth ?? 80;
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  let out = [`${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`, ''];
  const description = helper.commandDescription(cmd);
  if (description.length > 0)
    out.push(helper.boxWrap(helper.styleCommandDescription(description), helpWidth), '');
  const args = helper
    .visibleArguments(cmd)
    .map((a) =>
      item(
        helper.styleArgumentTerm(helper.argumentTerm(a)),
        helper.styleArgumentDescription(helper.argumentDescription(a)),
      ),
    );
  out = out.concat(helper.formatItemList('Arguments:', args, helper));

  const root = cmd.parent === null;
  const optionBlocks: string[] = [];
  const groups = helper.groupItems(
    [...cmd.options],
    helper.visibleOptions(cmd),
    (o) => o.helpGroupHeading ?? (root ? 'Global options (every command takes those it names):' : 'Options:'),
  );
  groups.forEach((options, heading) => {
    const list = options.map((o) =>
      item(
        helper.styleOptionTerm(helper.optionTerm(o)),
        helper.styleOptionDescription(helper.optionDescription(o)),
      ),
    );
    optionBlocks.push(...helper.formatItemList(heading, list, helper));
  });

  const commandBlocks: string[] = [];
  const commandGroups = helper.groupItems(
    [...cmd.commands],
    helper.visibleCommands(cmd),
    (sub) => sub.helpGroup() || 'Commands:',
  );
  commandGroups.forEach((commands, heading) => {
    const list = commands.map((sub) =>
      item(
        helper.styleSubcommandTerm(helper.subcommandTerm(sub)),
        helper.styleSubcommandDescription(helper.subcommandDescription(sub)),
      ),
    );
    commandBlocks.push(...helper.formatItemList(heading, list, helper));
  });

  if (root) return out.concat(commandBlocks, optionBlocks).join('\n');
  out = out.concat(optionBlocks, commandBlocks);
  const honoured = honouredFlags(cmd);
  if (honoured.length > 0) {
    out.push(
      'Global options it honours (payops --help says what each does):',
      ...wrapAtSpaces(`  ${honoured.join(' ')}`, helpWidth, '  '),
      '',
    );
  }
  return out.join('\n');
}
