import type { Command } from 'commander';
import { OPERATIONS, type OrderFlag } from '../bulk/operations.js';
import { UsageError } from '../errors.js';
import { type App, attempts, positiveInt, settleTime } from './app.js';
import { defineCommand, type StringOption } from './define.js';

/** The single-order flags any operation has, as typed flags; each command declares its own. */
type OrderOption =
  | 'transaction-id'
  | 'order-no'
  | 'currency'
  | 'amount'
  | 'refund-amount'
  | 'refund-reason'
  | 'review-flag';

function orderOptions(flags: readonly OrderFlag[]): { [K in OrderOption]?: StringOption } {
  return Object.fromEntries(
    flags.map((f) => [f.option.slice(2), { type: 'string', value: f.arg, description: f.help }]),
  );
}

/** --sheet, for every command that reads a table file (bulk operations, payouts, query --file). */
export const SHEET_OPTION = {
  sheet: {
    type: 'string',
    value: 'name',
    description: 'the sheet of an .xlsx --file to read (default: its first)',
  },
} as const;

/** What to do with a workbook's rows and sheets a person cannot see (bulk operations and payouts). */
export const HIDDEN_OPTIONS = {
  'include-hidden': {
    type: 'boolean',
    description: "send a workbook's hidden and filtered-out rows too, and read a hidden first sheet",
  },
  'skip-hidden': {
    type: 'boolean',
    description:
      "leave out a workbook's hidden and filtered-out rows (reported skipped) and a hidden first sheet",
  },
} as const;

/** --plan: the approved plan a money-moving run must be (bulk operations and payouts; docs/approvals.md). */
export const PLAN_OPTION = {
  plan: {
    type: 'string',
    value: 'file',
    description:
      'run only as this approved plan says (payops plan, payops approve): refused unless it is for this file and gateway, approved and unused',
  },
} as const;

/** --columns of a bulk operation (and of `payops plan OP`). */
export function columnsOption(op: string) {
  return {
    columns: {
      type: 'string',
      value: 'COL=HEADER,…',
      description: `the file's headers for columns it names otherwise, e.g. 'transaction_id=Txn Ref,order_no=Invoice' (default: the profile's columns.${op})`,
    },
  } as const;
}

/** --header-row of a bulk operation's --file. */
export const HEADER_ROW_OPTION = {
  'header-row': {
    type: 'number',
    value: 'n',
    description:
      'the row (line) of --file that holds the header (default: the first that has the columns, within the first 20)',
    parse: positiveInt,
  },
} as const;

/** --skip-done of a bulk operation (and of `payops plan OP`). */
export const SKIP_DONE_OPTION = {
  'skip-done': {
    type: 'boolean',
    description: 'leave out the rows the gateway already shows done (reported already_done)',
  },
} as const;

/** --decimal-comma of a bulk operation's --file. */
export const DECIMAL_COMMA_OPTION = {
  'decimal-comma': {
    type: 'boolean',
    description:
      'amounts use a decimal comma (49,99 or 1.234,56); detected by itself in ;- or tab-separated files',
  },
} as const;

/** --encoding of a bulk operation's --file. */
export const ENCODING_OPTION = {
  encoding: {
    type: 'string',
    value: 'name',
    description: 'encoding of --file: utf-8 (default), windows-1252, latin1, utf-16le, utf-16be',
  },
} as const;

/** The order flag --refund-reason when the operation has it: the reason for rows whose cell is empty. */
export function refundReasonOption(flags: readonly OrderFlag[]): { 'refund-reason'?: StringOption } {
  const { 'refund-reason': reason } = orderOptions(flags);
  return reason ? { 'refund-reason': reason } : {};
}

/** `payops refund refunds.csv`: a file named without a flag is --file. */
export const FILE_ARG = {
  csv: { description: 'the CSV file (the same as --file)', optional: true },
} as const;

/** The positional file as --file; both given and different is a usage error (exit 2). */
export function withFileArg<T extends { file?: string }>(opts: T, file: string | undefined): T {
  if (file === undefined) return opts;
  if (opts.file !== undefined && opts.file !== file) {
    throw new UsageError(`two files given: "${file}" and --file "${opts.file}"`, {
      hint: 'name one file: `payops refund FILE.csv` or `payops refund --file FILE.csv`',
    });
  }
  return { ...opts, file };
}

export function registerBulk(program: Command, app: App): void {
  for (const { op, description, columns, flags, sample } of Object.values(OPERATIONS)) {
    defineCommand({
      name: op,
      description,
      args: FILE_ARG,
      options: {
        file: {
          type: 'string',
          value: 'csv',
          description: `orders to ${op}, one per row (columns ${[...columns.required, ...columns.optional].join(', ')}): a CSV file or an .xlsx workbook`,
        },
        ...SHEET_OPTION,
        ...columnsOption(op),
        ...HEADER_ROW_OPTION,
        ...orderOptions(flags),
        resume: {
          type: 'boolean',
          description: 'continue the unfinished run of this file (nothing is sent twice)',
        },
        force: {
          type: 'boolean',
          description:
            'send every row, even of a file an earlier run processed or rows the gateway shows done',
        },
        ...SKIP_DONE_OPTION,
        'no-check': {
          type: 'boolean',
          description:
            'capture, cancel, review: send without asking the gateway first (its order query answers registered IP addresses only); not for refunds',
        },
        'settle-time': {
          type: 'number',
          value: 'duration',
          description:
            "after a lost request, wait this long before concluding from the gateway that it was not applied and sending it again (default 30s, or the profile's settle_time)",
          parse: settleTime,
        },
        'max-attempts': {
          type: 'number',
          value: 'n',
          description: 'requests per row at most in this run before leaving it for --resume (default 3)',
          parse: attempts,
        },
        'max-orders': {
          type: 'number',
          value: 'n',
          description: 'refuse a file with more orders than this',
          parse: positiveInt,
        },
        'max-amount': {
          type: 'string[]',
          value: 'CUR:AMOUNT',
          description: 'refuse a file whose total in CUR is above AMOUNT (repeatable)',
        },
        ...DECIMAL_COMMA_OPTION,
        ...ENCODING_OPTION,
        ...HIDDEN_OPTIONS,
        ...PLAN_OPTION,
      },
      help: `
Every row is checked before anything is sent (all problems listed with file:line; exit 2).
The plan (rows, requests, totals per currency, gateway) is shown and confirmed first; --yes skips the
question, --dry-run stops after the plan. Each request is journaled before it is sent, so a run that
is interrupted or loses answers can be resumed (--resume) without sending anything twice.
Before the plan, the gateway is asked which rows it already shows done: those are refused unless
--skip-done or --force. A request whose answer is lost (a 500, a dropped connection, a timeout) is
settled by asking the gateway; rows it shows not applied after --settle-time are sent again.
A workbook's hidden rows (by hand or by a filter) and a hidden first sheet are refused unless
--include-hidden or --skip-hidden (the plan lists each row by its cell and names the sheet read).
Results: one row per input row with outcome succeeded|already_done|skipped|failed|not_sent|unknown|duplicated
(table on a terminal, CSV/JSON with --out or when piped). Exit 0 all succeeded, 1 some refused by the
gateway (failed), 3 some unknown, not sent or duplicated (--resume finishes them), 2 invalid input.
Four eyes: --plan runs only an approved plan for this very file and gateway; a profile with
approval_required refuses a run above it without one, --yes included (docs/approvals.md).

Examples:
  payops ${op} ${sample} --dry-run
  payops ${op} ${op}.csv --yes --out ${op}-results.csv
  payops ${op} --file ${op}.csv --resume --yes --out ${op}-results.csv
  payops ${op} ${op}.csv --plan ${op}.plan --yes`,
      run: async (ctx, opts, args) => {
        // commander keeps `--no-check` as `check: false`.
        const { check, ...rest } = opts as typeof opts & { check?: boolean };
        const flags = { ...rest, ...(check === false ? { noCheck: true } : {}) };
        return (await import('../bulk/run-bulk.js')).runBulk(ctx, op, withFileArg(flags, args.csv));
      },
    })(program, app);
  }
}
