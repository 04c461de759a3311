import { positiveInt } from './app.js';
import { HIDDEN_OPTIONS } from './bulk.js';
import { defineCommand } from './define.js';

/** The commands whose reading of a file inspect shows (--for). */
export const INSPECT_FOR = ['refund', 'capture', 'cancel', 'review', 'payout', 'query'] as const;

export const registerInspect = defineCommand({
  name: 'inspect',
  description: 'show what payops sees in a CSV file or .xlsx workbook, before anything runs',
  args: { file: { description: 'the CSV file or .xlsx workbook' } },
  options: {
    sheet: {
      type: 'string',
      value: 'name',
      description: 'the sheet of a workbook to show (default: the one a command would read)',
    },
    for: {
      type: 'string',
      value: 'command',
      description: 'read the file as this command would: its columns, its header (default: refund)',
      choices: INSPECT_FOR,
    },
    columns: {
      type: 'string',
      value: 'COL=HEADER,…',
      description: "the file's headers for columns it names otherwise, as the command's --columns",
    },
    'header-row': {
      type: 'number',
      value: 'n',
      description: 'the row (line) that holds the header (default: the first with the columns, within 20)',
      parse: positiveInt,
    },
    rows: {
      type: 'number',
      value: 'n',
      description: 'show the first N rows as read (default 5)',
      parse: positiveInt,
    },
    cells: {
      type: 'boolean',
      description:
        'every cell of every sheet as the reader turns it into a field (with --output json: for tests)',
    },
    encoding: {
      type: 'string',
      value: 'name',
      description: 'encoding of a CSV file: utf-8 (default), windows-1252, latin1, utf-16le, utf-16be',
    },
    ...HIDDEN_OPTIONS,
  },
  help: `
Reads the file as a command would and sends nothing (no gateway, no profile needed): its kind and
encoding, its sheets (hidden or not), the sheet and header row a command reads, the header each
column was matched to, the rows (hidden and filtered ones counted), merged ranges, and the first
rows as read. --for names the command (default refund). --cells shows every cell of every sheet
instead; with --output json it prints
  {"file": …, "sheets": [{"name": …, "hidden": false, "rows": [["cell", …], …]}]}
A file payops refuses exits 2 with the reason.

Examples:
  payops inspect refunds.xlsx
  payops inspect export.csv --for query --columns 'order_no=Invoice'
  payops inspect payouts.xlsx --for payout --sheet Payouts --rows 10
  payops inspect refunds.xlsx --cells --output json | jq '.sheets[0].rows[1]'`,
  run: async (ctx, opts, { file }) => (await import('../inspect/run-inspect.js')).runInspect(ctx, file, opts),
});
