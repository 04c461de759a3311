import { positiveInt } from './app.js';
import { defineCommand } from './define.js';

export const registerApprove = defineCommand({
  name: 'approve',
  description: "approve (or reject) someone else's plan: checks every signature, shows it, adds yours",
  args: { plan: { description: 'the plan file (payops plan … --out X.plan)' } },
  options: {
    rows: {
      type: 'number',
      value: 'n',
      description: "the plan's row count, without a terminal to type it at (must equal the plan's)",
      parse: positiveInt,
    },
    reject: {
      type: 'boolean',
      description: 'record a refusal instead (with --reason): the plan can no longer run',
    },
    reason: { type: 'string', value: 'text', description: 'why you reject it (with --reject)' },
    file: {
      type: 'string',
      value: 'file',
      description:
        "your own copy of the planned file: read as the plan says, refused unless its rows are the plan's",
    },
    list: { type: 'boolean', description: 'with --file: show its rows before you decide' },
  },
  help: `
Needs no gateway credentials and asks nothing of the gateway. Checks the maker's signature and every
signature already there against your profile's approvers file (approvers_file); refuses a plan
changed after it was signed, an expired one, your own plan, a key not in the approvers file, and
a second signature by the same person. Shows the totals per currency, the largest rows, what the
gateway already showed done, the maker and when, the file and its content key, and the expiry;
then asks you to type the row count. Your signature is added to the plan file itself.

With --file, your own copy of the file (from wherever you keep it, not from the maker) is read as
the plan says (encoding, decimal mark, sheet, columns) and validated, without the gateway; unless
its rows digest is the plan's, nothing is signed. --list shows its rows before you decide.

Examples:
  payops approve refunds.plan
  payops approve refunds.plan --rows 1250
  payops approve refunds.plan --file ~/checks/refunds.csv --list
  payops approve refunds.plan --reject --reason "row 7 refunds an order twice"`,
  run: async (ctx, opts, { plan }) =>
    (await import('../approval/run-approve.js')).runApprove(ctx, plan, {
      ...(opts.rows !== undefined ? { rows: opts.rows } : {}),
      ...(opts.reject ? { reject: true } : {}),
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
      ...(opts.file !== undefined ? { file: opts.file } : {}),
      ...(opts.list ? { list: true } : {}),
    }),
});
