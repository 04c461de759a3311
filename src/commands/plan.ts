import { OPERATIONS } from '../bulk/operations.js';
import {
  columnsOption,
  DECIMAL_COMMA_OPTION,
  ENCODING_OPTION,
  HEADER_ROW_OPTION,
  HIDDEN_OPTIONS,
  refundReasonOption,
  SHEET_OPTION,
  SKIP_DONE_OPTION,
} from './bulk.js';
import { defineCommand, defineGroup } from './define.js';
import { PAYOUT_COLUMN_OPTIONS, PAYOUT_MARK_OPTIONS } from './payout.js';

const EXPIRES_OPTION = {
  expires: {
    type: 'string',
    value: 'duration',
    description: 'how long the plan can be approved and run: 7d (default), 36h, 90m … at most 90d',
  },
} as const;

/** `payops plan refund FILE --out X.plan`: one subcommand per bulk operation, read as its run reads. */
const BULK_PLANS = Object.values(OPERATIONS).map(({ op, columns, flags }) =>
  defineCommand({
    name: op,
    description: `plan a ${op} of FILE`,
    args: {
      file: {
        description: `orders to ${op}, one per row (columns ${[...columns.required, ...columns.optional].join(', ')}): a CSV file or an .xlsx workbook`,
      },
    },
    options: {
      ...SHEET_OPTION,
      ...columnsOption(op),
      ...HEADER_ROW_OPTION,
      ...refundReasonOption(flags),
      ...SKIP_DONE_OPTION,
      ...DECIMAL_COMMA_OPTION,
      ...ENCODING_OPTION,
      ...HIDDEN_OPTIONS,
      ...EXPIRES_OPTION,
    },
    help: `
Writes the plan to --out (required; never over an existing file), signed with your key (payops keys
create). It holds the operation, the gateway, the file's name, SHA-256 and content key, the rows,
the totals per currency, the 5 largest rows, what the gateway already shows done, how the file was
read, you, and when it expires. A file its run would refuse is refused the same way (exit 2).
The gateway must outlive the plan: a real one, or \`payops sandbox\` — not --sandbox.

Examples:
  payops plan ${op} ${op}.csv --out ${op}.plan
  payops plan ${op} ${op}.csv --out ${op}.plan --expires 24h`,
    run: async (ctx, opts, { file }) =>
      (await import('../approval/make-plan.js')).runMakePlan(ctx, op, { ...opts, file }),
  }),
);

const PAYOUT_PLAN = defineCommand({
  name: 'payout',
  description: 'plan the payouts of FILE',
  args: {
    file: {
      description:
        'one payout per row (a CSV file or an .xlsx workbook); columns are field paths such as beneficiary.bank_details.iban',
    },
  },
  options: {
    ...SHEET_OPTION,
    ...PAYOUT_COLUMN_OPTIONS,
    ...PAYOUT_MARK_OPTIONS,
    ...HIDDEN_OPTIONS,
    ...EXPIRES_OPTION,
  },
  help: `
Every payout is validated as \`payops payout\` validates it (exit 2, nothing written). What a payout
run checks besides (request_ids and payouts possibly done, in the journals of the home that runs it)
is checked when the plan runs. --out is required; the plan is signed with your key.

Examples:
  payops plan payout payouts.csv --out payouts.plan`,
  run: async (ctx, opts, { file }) =>
    (await import('../approval/make-plan.js')).runMakePayoutPlan(ctx, { ...opts, file }),
});

export const registerPlan = defineGroup({
  name: 'plan',
  description: 'check a file as its run would and write a plan signed by you, for someone else to approve',
  help: `
Four eyes (docs/approvals.md): you make the plan, someone else in your team's approvers file
approves it (payops approve), and the run is held to it. Nothing that moves money is sent: the file
is checked row by row and the gateway is asked which rows it already shows done, as the run would.

Examples:
  payops plan refund refunds.csv --out refunds.plan
  payops plan capture captures.xlsx --sheet May --out captures.plan --expires 2d`,
  commands: [...BULK_PLANS, PAYOUT_PLAN],
});
