import type { Command } from 'commander';
import { OPERATIONS } from '../bulk/operations.js';
import { type App, collect, positiveInt } from './app.js';

export function registerBulk(program: Command, app: App): void {
  for (const { op, description, columns, flags, sample } of Object.values(OPERATIONS)) {
    const cmd = program
      .command(op)
      .description(description)
      .option(
        '--file <csv>',
        `orders to ${op}, one per row (columns ${[...columns.required, ...columns.optional].join(',')})`,
      );
    for (const f of flags) cmd.option(`${f.option} <${f.arg}>`, f.help);
    cmd
      .option('--resume', 'continue the unfinished run of this file (nothing is sent twice)')
      .option('--force', 'run a file again that an earlier run already processed')
      .option('--max-orders <n>', 'refuse a file with more orders than this', positiveInt('--max-orders'))
      .option(
        '--max-amount <CUR:AMOUNT>',
        'refuse a file whose total in CUR is above AMOUNT (repeatable)',
        collect,
      )
      .addHelpText(
        'after',
        `
Every row is checked before anything is sent (all problems listed with file:line; exit 2).
The plan (rows, requests, totals per currency, gateway) is shown and confirmed first; --yes skips the
question, --dry-run stops after the plan. Each request is journaled before it is sent, so a run that
is interrupted or loses answers can be resumed (--resume) without sending anything twice.
Results: one row per input row with outcome succeeded|failed|unknown (table on a terminal, CSV/JSON
with --out or when piped). Exit 0 all succeeded, 1 some failed, 3 some unknown, 2 invalid input.

Examples:
  payops ${op} --file ${sample} --dry-run
  payops ${op} --file ${op}.csv --yes --out ${op}-results.csv
  payops ${op} --file ${op}.csv --resume --yes --out ${op}-results.csv`,
      )
      .action(
        app.action(async (ctx, opts) => (await import('../bulk/run.js')).runBulk(ctx, op, opts as never)),
      );
  }
}
