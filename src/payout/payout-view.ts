// Renders payouts: the plan shown before sending (and asked about), the dry run, and the results
// (a table for people; CSV, JSON or a workbook for scripts).

import type { GlobalOptions, Io, OutputFormat } from '../io.js';
import { formatAmount, formatMoneyTotals } from '../money/amount.js';
import { confirmOrExit } from '../output/confirm.js';
import { writeCsvRecords } from '../output/csv-writer.js';
import { shownUrl } from '../quote.js';
import { outputJsonReplacer } from '../redact.js';
import type { PayoutPlan, PayoutPlanSummary } from './plan.js';
import { PAYOUT_RESULT_COLUMNS } from './records.js';
import type { PayoutResultRow } from './send.js';

/** How the payouts are shown: --format and whether the terminal takes colour. */
interface ViewOptions {
  format: OutputFormat;
  color: boolean;
}

export const PAYOUT_COLUMNS = PAYOUT_RESULT_COLUMNS;

/**
 * Columns of the table on a terminal: the ones a person checks, and a note saying what a row's
 * outcome means when it is not plain (CSV and JSON carry every field and no note).
 */
const PAYOUT_TABLE_COLUMNS = [
  'line',
  'reference',
  'outcome',
  'status',
  'payment_amount',
  'payment_currency',
  'fee',
  'short_reference_id',
  'note',
] as const;

/**
 * The gateway's integer amounts (fee_amount …) are minor units of fee_currency (docs/payments.md):
 * shown as the amount they are, `12.50 EUR`, never `1250 EUR` beside `payment_amount 1250.00`.
 */
function minorUnits(amount: string, currency: string): string {
  if (!/^-?\d{1,18}$/.test(amount) || currency === '') return amount;
  try {
    return `${formatAmount(BigInt(amount), currency)} ${currency}`;
  } catch {
    return `${amount} minor units of ${currency}`; // a currency payops does not know the decimals of
  }
}

/** The table's note: why a payout failed, or what pending / unknown means and what comes next. */
export function payoutNote(row: PayoutResultRow): string {
  switch (row.outcome) {
    // Short enough for one table line; the summary below the table says the rest.
    case 'pending':
      return 'not finished by the gateway: --resume later (pays once)';
    case 'unknown':
      return `no trusted answer${row.failure_type ? ` (${row.failure_type})` : ''}: --resume later`;
    case 'failed':
      return row.failure_reason;
    default:
      return '';
  }
}

function planLines(summary: PayoutPlanSummary): string[] {
  const { plan } = summary;
  // What is sent now: a resumed run's payouts left, not the whole file (issue 27).
  const totals = summary.totalsToSend ?? plan.totals;
  const whole =
    summary.settled > 0 && summary.totalsToSend ? ` (the whole file: ${formatMoneyTotals(plan.totals)})` : '';
  const who = `merchant ${summary.merchantId ?? '?'} · account ${summary.accountId ?? '?'}`;
  const lines = [
    `${summary.toSend} payout${summary.toSend === 1 ? '' : 's'} from ${plan.displayFile}: ${formatMoneyTotals(totals)}${whole}`,
    !summary.profile
      ? `  in-process sandbox ${summary.baseUrl} (demo credentials; no profile used)`
      : summary.profileUsed === false
        ? `  gateway: ${shownUrl(summary.baseUrl)} · ${who} (settings from the environment and flags; no profile used)`
        : `  gateway: ${shownUrl(summary.baseUrl)} · ${who} · profile ${summary.profile}`,
  ];
  if (summary.settled > 0)
    lines.push(`  ${summary.settled} already settled in the resumed run (not sent again)`);
  if (summary.reusedFrom) {
    const { runId, createdAt, count } = summary.reusedFrom;
    lines.push(
      summary.resume
        ? `  resuming run ${runId}: the same request_ids are sent again`
        : `  ${count} of these payouts were sent before (run ${runId}, ${createdAt}): they keep their request_ids, ` +
            'so the gateway will not pay them twice (--new-request-ids sends new payouts)',
    );
  }
  const others = summary.fromEarlierRuns ?? 0;
  if (others > 0) {
    lines.push(
      `  ${others} payout${others === 1 ? '' : 's'} keep${others === 1 ? 's' : ''} the request_id${others === 1 ? '' : 's'} an earlier run of this home gave the same content: the gateway will not pay ${others === 1 ? 'it' : 'them'} twice`,
    );
  }
  const maybe = summary.possiblyDone ?? [];
  if (maybe.length > 0) {
    lines.push(
      `  ${maybe.length} payout${maybe.length === 1 ? '' : 's'} possibly done: an earlier payout of this home went to the same beneficiary account, amount, currency and payment date under another request_id:`,
      ...maybe.map((m) => `    line ${m.line}: ${m.earlier.join('; ')}`),
      summary.force || summary.newRequestIds
        ? `  ${summary.force ? '--force' : '--new-request-ids'}: ${maybe.length === 1 ? 'it is' : 'they are'} sent as new payouts`
        : '  a run refuses them (exit 2, nothing sent) unless --force',
    );
  }
  if (summary.newRequestIds) {
    const n = summary.newRequestIds.repeats;
    lines.push(
      n > 0
        ? `  --new-request-ids: ${n} payout${n === 1 ? ' is' : 's are'} sent again as NEW payouts (new request_ids): the gateway pays ${n === 1 ? 'it' : 'them'} again`
        : '  --new-request-ids: every payout gets a new request_id (none was paid before from this home)',
    );
  }
  return lines;
}

/** Shows the plan, then asks (--yes answers; without a terminal --yes is required). */
export async function confirmPayouts(
  io: Io,
  globals: GlobalOptions,
  summary: PayoutPlanSummary,
): Promise<void> {
  if (!(globals.quiet && globals.yes)) io.stderr.write(`${planLines(summary).join('\n')}\n`);
  await confirmOrExit(io, globals, `Send ${summary.toSend} payout${summary.toSend === 1 ? '' : 's'}?`);
}

export function payoutRecord(row: PayoutResultRow): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of PAYOUT_COLUMNS) out[c] = String(row[c]);
  return out;
}

async function table(
  io: Io,
  columns: readonly string[],
  records: Array<Record<string, string>>,
  color: boolean,
) {
  // The table renderer (output/table.ts) is loaded only when a table is actually shown.
  const { renderTable } = await import('../output/table.js');
  return renderTable([...columns], records, {
    color,
    ...(io.stdout.columns ? { width: io.stdout.columns } : {}),
  });
}

/** --dry-run: what would be sent, one line per payout (account numbers masked to their last 4). */
export async function writePayoutPlan(
  io: Io,
  summary: PayoutPlanSummary,
  /** `document`: --output json's run document takes the planned payouts as its rows. */
  opts: ViewOptions & { document?: { row(r: Record<string, string>): Promise<void> | undefined } },
): Promise<void> {
  // A request_id made at random when the payout is sent is not shown: the run would send another
  // one (issue 27). Ids from the input, an earlier run or derived from the payout's meaning are the
  // ones the run sends.
  const later = summary.plan.items.filter((i) => i.requestIdFrom === 'generated').length;
  const note =
    later > 0
      ? `\n  ${later} request_id${later === 1 ? ' is' : 's are'} made when the payout${later === 1 ? ' is' : 's are'} sent (not shown: a dry run cannot know ${later === 1 ? 'it' : 'them'})`
      : '';
  io.stderr.write(
    `${planLines(summary).join('\n')}${note}\nDry run: nothing was sent and nothing journaled.\n`,
  );
  const records = summary.plan.items.map((item) => {
    const bank = (item.request.beneficiary as { bank_details?: Record<string, string> } | undefined)
      ?.bank_details;
    const account = bank?.iban ?? bank?.account_number ?? '';
    return {
      line: String(item.line),
      reference: String(item.request.reference ?? ''),
      request_id: item.requestIdFrom === 'generated' ? '' : String(item.request.request_id),
      request_id_from: item.requestIdFrom === 'generated' ? 'made when sent' : item.requestIdFrom,
      payment_amount: String(item.request.payment_amount),
      payment_currency: item.currency,
      payment_method: String(item.request.payment_method ?? ''),
      account_name: bank?.account_name ?? '',
      account: account.length > 4 ? `…${account.slice(-4)}` : account,
    };
  });
  const columns = Object.keys(records[0] ?? {});
  if (opts.document) {
    for (const r of records) await opts.document.row(r);
  } else if (opts.format === 'json')
    io.stdout.write(
      `${JSON.stringify({ dry_run: true, payouts: records, ...(summary.possiblyDone?.length ? { possibly_done: summary.possiblyDone } : {}) }, null, 2)}\n`,
    );
  else if (opts.format === 'csv') await writeCsvRecords(io.stdout, columns, records);
  else io.stdout.write(await table(io, columns, records, opts.color));
}

/** Results to --out FILE when given (mode 0600), else to stdout. */
export async function writePayoutResults(
  io: Io,
  rows: readonly PayoutResultRow[],
  opts: ViewOptions & { out?: string },
): Promise<void> {
  const records = rows.map(payoutRecord);
  const dest = opts.out === undefined ? undefined : (await import('node:path')).resolve(io.cwd, opts.out);
  if (opts.format === 'csv' && dest !== undefined && dest.toLowerCase().endsWith('.xlsx')) {
    // --out payouts.xlsx: a workbook, ids as text and amounts as numbers (loaded only for one).
    const writer = await (await import('../output/xlsx-writer.js')).openXlsxWriter(dest, [...PAYOUT_COLUMNS]);
    for (const r of records) await writer.write(r);
    await writer.end();
  } else if (opts.format === 'csv') {
    await writeCsvRecords(dest ?? io.stdout, PAYOUT_COLUMNS, records);
  } else {
    const text =
      opts.format === 'json'
        ? `${JSON.stringify(records, outputJsonReplacer, 2)}\n`
        : await table(
            io,
            PAYOUT_TABLE_COLUMNS,
            rows.map((row, i) => ({
              ...records[i],
              fee: minorUnits(row.fee_amount, row.fee_currency),
              note: payoutNote(row),
            })),
            opts.color,
          );
    if (dest === undefined) io.stdout.write(text);
    else await (await import('../output/sink.js')).writeWholeFile(dest, text);
  }
  if (opts.out !== undefined) io.stderr.write(`results written to ${opts.out}\n`); // as the user named it
}

export function writePayoutSummary(
  io: Io,
  rows: readonly PayoutResultRow[],
  info: { runId: string; plan: PayoutPlan; unsent?: number },
): void {
  const count = (o: PayoutResultRow['outcome']) => rows.filter((r) => r.outcome === o).length;
  const [completed, failed, pending, unknown] = [
    count('completed'),
    count('failed'),
    count('pending'),
    count('unknown'),
  ];
  const unsent = info.unsent ?? 0;
  const lines = [
    `payouts: ${completed} completed, ${failed} failed, ${pending > 0 ? `${pending} pending, ` : ''}${unknown} unknown${unsent > 0 ? `, ${unsent} not sent` : ''} · run ${info.runId}`,
  ];
  const input =
    info.plan.kind === 'csv' ? `--file ${info.plan.displayFile}` : `--request ${info.plan.displayFile}`;
  const plural = (n: number) => (n === 1 ? '' : 's');
  if (pending > 0) {
    const these = pending === 1 ? 'this payout' : 'these payouts';
    lines.push(
      `  ${pending} payout${plural(pending)} pending: the gateway has not finished ${these}; run`,
      `  \`payops payout ${input} --resume --yes\` later to get ${pending === 1 ? 'its' : 'their'} final status — it will not pay twice`,
      '  (the same request_id is sent again, and the gateway pays a request_id once). Do not use --new-request-ids for them.',
    );
  }
  if (unknown + unsent > 0) {
    // Printed to be run as it stands, from a script too: --yes, as the bulk summary's resume line.
    const what = [
      ...(unknown > 0 ? [`${unknown} payout${plural(unknown)} without a definite answer`] : []),
      ...(unsent > 0 ? [`${unsent} not sent yet`] : []),
    ].join(' and ');
    lines.push(
      `  ${what}: send ${unknown + unsent === 1 ? 'it' : 'them'} safely (same request_ids) with`,
      `  payops payout ${input} --resume --yes`,
    );
  }
  if (failed > 0) {
    lines.push(
      `  ${failed} payout${plural(failed)} failed: the gateway did not pay ${failed === 1 ? 'it' : 'them'}; failure_reason says why`,
    );
  }
  io.stderr.write(`${lines.join('\n')}\n`);
}
