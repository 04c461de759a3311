import { positiveInt } from './app.js';
import { SHEET_OPTION } from './bulk.js';
import { defineCommand } from './define.js';

/**
 * `payops query ORD-1001 ORD-1002`: bare words are order numbers, always. Transaction ids have no
 * shape of their own in the spec, so guessing between the two could look up the wrong order;
 * they keep their flag (--transaction-id).
 */
export const ORDER_ARGS = {
  'order-nos': {
    description: 'order numbers to look up (the same as --order-no; use --transaction-id for ids)',
    optional: true,
    variadic: true,
  },
} as const;

/** The positional order numbers joined to --order-no, in the order typed. */
export function withPositional<T extends { orderNo?: string[] }>(opts: T, orderNos: string[]): T {
  return orderNos.length === 0 ? opts : { ...opts, orderNo: [...(opts.orderNo ?? []), ...orderNos] };
}

/** The selectors `payops query` and `payops refunds search` share (design.md §1.2). */
export function selectorOptions(dateField: string) {
  return {
    'order-no': {
      type: 'string[]',
      value: 'no',
      description: 'order number; repeat it or separate with commas',
    },
    'transaction-id': {
      type: 'string[]',
      value: 'id',
      description: 'transaction id; repeat it or separate with commas',
    },
    file: {
      type: 'string',
      value: 'file',
      description: 'a CSV file or an .xlsx workbook with a column order_no or transaction_id',
    },
    ...SHEET_OPTION,
    columns: {
      type: 'string',
      value: 'COL=HEADER,…',
      description:
        "--file's header for a column it names otherwise, e.g. 'order_no=Invoice' (default: the profile's columns.query)",
    },
    'header-row': {
      type: 'number',
      value: 'n',
      description:
        'the row (line) of --file that holds the header (default: the first naming order_no or transaction_id, within the first 20)',
      parse: positiveInt,
    },
    'include-hidden': {
      type: 'boolean',
      description:
        "read a workbook's hidden first sheet (its hidden rows are looked up too unless --skip-hidden)",
    },
    'skip-hidden': {
      type: 'boolean',
      description: "leave out a workbook's hidden and filtered-out rows, and a hidden first sheet",
    },
    from: {
      type: 'string',
      value: 'date',
      description: `earliest ${dateField}: YYYY-MM-DD, "YYYY-MM-DD hh:mm:ss" or YYYYMMDDhhmmss (local time unless --utc)`,
    },
    to: {
      type: 'string',
      value: 'date',
      description: `latest ${dateField}, inclusive; a bare date means to the end of that day`,
    },
    utc: { type: 'boolean', description: 'read --from/--to as UTC instead of local time' },
    all: {
      type: 'boolean',
      description: 'every record of the date range, however many (asks in smaller windows as needed)',
    },
  } as const;
}

export const registerQuery = defineCommand({
  name: 'query',
  description: 'look up orders by order number, transaction id, file (CSV or .xlsx) or date range',
  args: ORDER_ARGS,
  options: {
    ...selectorOptions('transaction date'),
    'with-refunds': { type: 'boolean', description: 'also search the refunds of the orders shown' },
  },
  help: `
One order on a terminal is shown as a card; several as a table. --output json|csv (or --out FILE)
gives every field the gateway returned. Orders asked for but not returned are listed as not found
and the exit code is 1. A date range without a list returns the gateway's 100 newest orders in it;
--all fetches every order of the range (see docs/query.md).

Words after \`query\` are order numbers: \`payops query ORD-1001 ORD-1002\` is
\`payops query --order-no ORD-1001,ORD-1002\`. Transaction ids always need --transaction-id.

Examples:
  payops query ORD-1001 ORD-1002
  payops query --transaction-id T123 --with-refunds
  payops query --file orders.csv --output csv --out statuses.csv
  payops query --from 2026-11-01 --to 2026-11-07 --output json | jq '.[] | select(.payment_status=="2000")'
  payops query --from 2026-11-01 --to 2026-11-30 --all --out november-orders.csv`,

  run: async (ctx, opts, args) =>
    (await import('../query/command.js')).runQuery(ctx, withPositional(opts, args['order-nos'])),
});
