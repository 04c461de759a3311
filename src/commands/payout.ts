import { positiveInt } from './app.js';
import { FILE_ARG, HIDDEN_OPTIONS, PLAN_OPTION, SHEET_OPTION, withFileArg } from './bulk.js';
import { defineCommand } from './define.js';

/** How a payout file's header is matched (the payout command's and `payops plan payout`'s). */
export const PAYOUT_COLUMN_OPTIONS = {
  columns: {
    type: 'string',
    value: 'map',
    description:
      "the file's headers for fields it names otherwise, e.g. 'payment_amount=Amount,beneficiary.bank_details.iban=IBAN'",
  },
  'header-row': {
    type: 'number',
    value: 'n',
    description:
      'the row (line) of --file that holds the header (default: the first naming a payout field, within the first 20)',
    parse: positiveInt,
  },
} as const;

/** How a payout file's amounts and text are read. */
export const PAYOUT_MARK_OPTIONS = {
  'decimal-comma': {
    type: 'boolean',
    description:
      'amounts of --file use a decimal comma (49,99); detected by itself in ;- or tab-separated files',
  },
  encoding: {
    type: 'string',
    value: 'name',
    description: 'encoding of --file: utf-8 (default), windows-1252, latin1, utf-16le, utf-16be',
  },
} as const;

export const registerPayout = defineCommand({
  name: 'payout',
  description: 'create payouts from a JSON request, a CSV file or a workbook (idempotent on request_id)',
  args: FILE_ARG,
  options: {
    request: {
      type: 'string',
      value: 'file',
      description: 'one payout request as JSON (beneficiary and payer objects)',
    },
    file: {
      type: 'string',
      value: 'csv',
      description:
        'one payout per row (a CSV file or an .xlsx workbook); columns are field paths such as beneficiary.bank_details.iban',
    },
    ...SHEET_OPTION,
    ...PAYOUT_COLUMN_OPTIONS,
    resume: {
      type: 'boolean',
      description:
        'continue the unfinished run of this input: settled payouts are skipped, the rest re-sent with the same request_ids',
    },
    force: {
      type: 'boolean',
      description:
        'send payouts refused as changed since their earlier run or possibly done (a new payout each); journaled request_ids are kept',
    },
    'new-request-ids': {
      type: 'boolean',
      description:
        'pay these payouts again on purpose: new request_ids for every payout without its own (NEW payouts)',
    },
    wait: {
      type: 'string',
      value: 'duration',
      optionalValue: true,
      description:
        'wait for PENDING payouts to complete or fail, up to DURATION (default 10m); put it after the file',
    },
    ...PAYOUT_MARK_OPTIONS,
    ...HIDDEN_OPTIONS,
    ...PLAN_OPTION,
  },
  help: `
Every payout is validated before anything is sent (file:line, field; exit 2); the same payout twice
in one file is refused. request_id comes from the input, from an earlier run of the same payout, or is
derived from what the payout means (the same on every machine), and is journaled before sending: the
same payouts again (any copy of the file, --resume, another PAYOPS_HOME) send the same request_ids,
and the gateway never pays one request_id twice. A changed row whose payout already completed, and a
payout matching an earlier one's account, amount and date ("possibly done"), are refused (exit 2)
unless --force; --new-request-ids pays again on purpose. A workbook's hidden rows (by hand or by a
filter) and a hidden first sheet are refused unless --include-hidden (paid too) or --skip-hidden (left out).
Confirm with the totals per currency, or --yes; --dry-run shows the plan. Exit 0 all COMPLETED,
1 some failed, 3 some without an answer (resume them), 130 stopped by Ctrl-C (resume it).
With --wait [DURATION] (default 10m) payouts answered PENDING are waited for: by the payout events a
running \`payops listen\` journals, else by sending the same request_id again with backoff (the
gateway never pays it twice); exit 3 if some are still pending at the deadline.
--plan runs only an approved plan of these payouts at this gateway; a profile with approval_required
refuses a run above it without one, --yes included (docs/approvals.md).

Examples:
  payops payout --request samples/payout-request.json
  payops payout samples/payouts.csv --dry-run
  payops payout samples/payouts.csv --yes --wait 30m
  payops payout samples/payouts.csv --yes --output csv --out payout-results.csv
  payops payout payouts.csv --plan payouts.plan --yes`,
  run: async (ctx, opts, args) =>
    (await import('../payout/run-payout.js')).runPayout(ctx, withFileArg(opts, args.csv)),
});
