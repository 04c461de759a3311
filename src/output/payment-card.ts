// Renders a payment result (pay card|apm|checkout): a card for people, JSON or one CSV row for
// scripts. Data goes to stdout; the "outcome unknown" advice and APM summary go to stderr.

import { splitCodedMessage } from '../gateway/types.js';
import type { GlobalOptions, Io, OutputFormat } from '../io.js';
import { formatAmount, formatMoneyTotals } from '../money/amount.js';
import type { PaymentKind } from '../pay/fields.js';
import type { PayResult } from '../pay/pay.js';
import type { PayoutPlan, PayoutPlanSummary } from '../payout/plan.js';
import { PAYOUT_RESULT_COLUMNS } from '../payout/records.js';
import type { PayoutResultRow } from '../payout/send.js';
import { shownUrl, terminalLine } from '../quote.js';
import { outputJsonReplacer } from '../redact.js';
import { type CardSection, renderCard } from './card.js';
import { confirmOrExit } from './confirm.js';
import { openCsvWriter } from './csv-writer.js';
import { formatForFile } from './format.js';

export interface PayOutputOptions {
  format: OutputFormat;
  color: boolean;
  /** payment_status / order_status label overrides of the profile. */
  statusLabels?: Record<string, string>;
  /** Where the checkout page was written. */
  savedTo?: string;
  /** Card and APM: --out FILE receives the result data (JSON when it ends in .json, else CSV). */
  resultFile?: string;
}

type CardRow = [label: string, value: string];

const ORDER_STATUS_LABEL: Record<string, string> = { '1': 'approved', '0': 'declined', '2': 'pending' };

const TITLES: Record<PayResult['outcome'], string> = {
  approved: 'Payment approved',
  declined: 'Payment declined',
  pending: 'Payment pending',
  unknown: 'Payment outcome UNKNOWN',
};

function s(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function rows(pairs: Array<[string, unknown]>): CardRow[] {
  return pairs.filter(([, v]) => s(v) !== '').map(([k, v]) => [k, s(v)]);
}

/** `E3001:declined` → `E3001 declined`. */
function codedText(message: string): string {
  const { code, text } = splitCodedMessage(message);
  return code === undefined ? message : `${code} ${text}`;
}

export function payTitle(result: PayResult): string {
  if (result.outcome === 'unknown') return TITLES.unknown;
  if (result.kind === 'apm') return 'APM payment created: send the shopper to the issuer_url';
  if (result.kind === 'checkout') return 'Checkout page created';
  return TITLES[result.outcome];
}

/** The sections of the result card, in the order a person reads them. */
export function paySections(
  result: PayResult,
  opts: Pick<PayOutputOptions, 'statusLabels' | 'savedTo'> = {},
): CardSection[] {
  const labels = { ...ORDER_STATUS_LABEL, ...(opts.statusLabels ?? {}) };
  const sections: CardSection[] = [];
  const order: Array<[string, unknown]> = [
    ['order_no', result.generated_order_no ? `${result.order_no} (generated)` : result.order_no],
    ['amount', `${result.currency} ${result.amount}`],
  ];
  if (result.kind === 'card' && result.result) {
    const r = result.result;
    const status = s(r.order_status);
    order.push(
      ['transaction_id', r.transaction_id],
      ['order_status', status === '' ? '' : `${status} ${labels[status] ?? ''}`.trim()],
      ['result_info', codedText(s(r.result_info))],
    );
  }
  if (result.kind === 'apm')
    order.push(['payment_method', result.payment_method], ['issuer_url', result.issuer_url]);
  sections.push({ fields: rows(order) });
  // Every answer field of the spec is on the card too (issue 24), the account it was made on included.
  const answer = result.kind === 'checkout' ? undefined : result.result;
  if (answer) {
    sections.push({
      heading: 'Merchant',
      fields: rows([
        ['merchant_id', answer.merchant_id],
        ['account_id', answer.account_id],
      ]),
    });
  }

  if (result.unknown) {
    sections.push({
      heading: 'Outcome unknown',
      fields: rows([
        ['reason', result.unknown.reason],
        ['what happened', result.unknown.message],
        ['find out with', result.unknown.queryCommand],
        ['do not', 'send this payment again before the query says it failed'],
      ]),
    });
  }

  if (result.kind === 'card') {
    const r = result.result;
    sections.push({
      heading: 'Card',
      fields: rows([
        ['card', result.masked_card],
        ['token_id', r?.token_id],
        ['connector', r?.connector],
      ]),
    });
    if (r) {
      sections.push({ heading: '3-D Secure', fields: rows([['threeds_result', r.threeds_result]]) });
      const reasons = r.risk_reasons.map((x) => `${s(x.name)}${x.status ? `: ${x.status}` : ''}`).join(', ');
      sections.push({
        heading: 'Risk',
        fields: rows([
          ['risk_action', r.risk_action],
          ['risk_score', r.risk_score],
          ['risk_reasons', reasons],
        ]),
      });
      sections.push({
        heading: 'Recurring',
        fields: rows([
          ['contract_name', r.contract_name],
          ['recurring_id', r.recurring_id],
          ['recurring_deduction_period', r.recurring_deduction_period],
          ['recurring_deduction_time', r.recurring_deduction_time],
        ]),
      });
      sections.push({ heading: 'Note', fields: rows([['note', r.note]]) });
    }
  }

  if (result.kind === 'checkout' && result.form) {
    sections.push({
      heading: 'Form',
      fields: rows([
        ['action', result.form.action],
        ['method', result.form.method],
        ['page written to', opts.savedTo],
      ]),
    });
    sections.push({
      heading: 'Form fields',
      fields: Object.entries(result.form.fields).map(([k, v]): CardRow => [k, v]),
    });
  }
  return sections.filter((sec) => sec.fields.length > 0);
}

/** The result as plain data for JSON and CSV: no HTML page, risk reasons as a list. */
export function payResultData(result: PayResult, savedTo?: string): Record<string, unknown> {
  const { html: _html, ...rest } = result as PayResult & { html?: string };
  const data: Record<string, unknown> = { ...rest };
  if (savedTo !== undefined) data.saved_to = savedTo;
  return data;
}

/** One flat row for --output csv. */
export function payResultRow(result: PayResult, savedTo?: string): Record<string, string> {
  const r = result.kind === 'card' ? result.result : undefined;
  const answer = result.kind === 'checkout' ? undefined : result.result;
  return {
    kind: result.kind,
    outcome: result.outcome,
    order_no: result.order_no,
    amount: result.amount,
    currency: result.currency,
    transaction_id: s(r?.transaction_id),
    order_status: s(r?.order_status),
    result_info: s(r?.result_info),
    card: result.kind === 'card' ? result.masked_card : '',
    threeds_result: s(r?.threeds_result),
    risk_action: s(r?.risk_action),
    risk_score: s(r?.risk_score),
    risk_reasons: (r?.risk_reasons ?? []).map((x) => `${s(x.name)}:${s(x.status)}`).join(';'),
    contract_name: s(r?.contract_name),
    recurring_id: s(r?.recurring_id),
    recurring_deduction_period: s(r?.recurring_deduction_period),
    recurring_deduction_time: s(r?.recurring_deduction_time),
    issuer_url: result.kind === 'apm' ? s(result.issuer_url) : '',
    form_action: result.kind === 'checkout' ? s(result.form?.action) : '',
    saved_to: s(savedTo),
    unknown_reason: s(result.unknown?.reason),
    query_command: s(result.unknown?.queryCommand),
    // Added after the columns scripts already read by position (issue 24: the CSV lost these, so a
    // token made with token_flag YES was gone unless JSON was asked).
    merchant_id: s(answer?.merchant_id),
    account_id: s(answer?.account_id),
    token_id: s(r?.token_id),
    connector: s(r?.connector),
    note: s(r?.note),
    payment_method: result.kind === 'apm' ? result.payment_method : '',
    form_method: result.kind === 'checkout' ? s(result.form?.method) : '',
    encryption_data: s(r?.encryption_data),
  };
}

/** One CSV record (header and row) through the shared Excel-safe writer, to a stream or a file. */
async function writeCsvRecords(
  dest: NodeJS.WritableStream | string,
  columns: readonly string[],
  records: ReadonlyArray<Record<string, string>>,
): Promise<void> {
  const writer = await openCsvWriter(dest, [...columns]);
  for (const r of records) await writer.write(r);
  await writer.end();
}

/** Writes the result: JSON or one CSV row for scripts, otherwise the card (the APM's issuer_url alone on stdout). */
export async function writePayResult(io: Io, result: PayResult, opts: PayOutputOptions): Promise<void> {
  const card = () => renderCard(payTitle(result), paySections(result, opts), { color: opts.color });
  const row = payResultRow(result, opts.savedTo);
  if (opts.resultFile !== undefined) {
    // --out for card and APM: the data goes to the file, the card to stderr.
    const json = formatForFile(opts.resultFile) === 'json';
    const { writeWholeFile } = await import('./sink.js');
    if (json) await writeWholeFile(opts.resultFile, payJson(result, opts.savedTo));
    else await writeCsvRecords(opts.resultFile, Object.keys(row), [row]);
    io.stderr.write(card());
    io.stderr.write(`result written to ${opts.resultFile}\n`);
  } else if (opts.format === 'json') {
    io.stdout.write(payJson(result, opts.savedTo));
  } else if (opts.format === 'csv') {
    await writeCsvRecords(io.stdout, Object.keys(row), [row]);
  } else if (result.kind === 'apm' && result.issuer_url !== undefined) {
    // The address is the data (pipe it anywhere); the summary is for the person.
    io.stdout.write(`${terminalLine(result.issuer_url)}\n`);
    io.stderr.write(card());
  } else {
    io.stdout.write(card());
  }
  if (result.unknown) {
    io.stderr.write(
      `warning: the gateway's answer for order ${result.order_no} was lost (${result.unknown.reason}); ` +
        `the payment may or may not have gone through. It was NOT sent again.\n` +
        `  find out with: ${result.unknown.queryCommand}\n`,
    );
  }
}

function payJson(result: PayResult, savedTo: string | undefined): string {
  return `${JSON.stringify(payResultData(result, savedTo), outputJsonReplacer, 2)}\n`;
}

/** --dry-run: the request that would be sent, card data absent (it is not even read). */
export function writePayPlan(
  io: Io,
  kind: PaymentKind,
  body: Record<string, unknown>,
  opts: Pick<PayOutputOptions, 'format' | 'color'>,
): void {
  // The body holds no card data: it is refused in files and flags, and read only when sending.
  const request = body;
  if (opts.format === 'json') {
    io.stdout.write(`${JSON.stringify({ dry_run: true, kind, request }, null, 2)}\n`);
    return;
  }
  const flat: CardRow[] = Object.entries(request)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  if (kind === 'card') flat.push(['card', 'read from the prompt or stdin when sent (not read in a dry run)']);
  io.stdout.write(
    renderCard(`Dry run: pay ${kind} — nothing was sent`, [{ fields: flat }], { color: opts.color }),
  );
}

// ---------------------------------------------------------------- payouts

export const PAYOUT_COLUMNS = PAYOUT_RESULT_COLUMNS;

/**
 * Columns of the table on a terminal: the ones a person checks, and a note saying what a row's
 * outcome means when it is not plain (CSV and JSON carry every field and no note).
 */
const PAYOUT_TABLE_COLUMNS = [
  'line',
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
  const lines = [
    `${summary.toSend} payout${summary.toSend === 1 ? '' : 's'} from ${plan.displayFile}: ${formatMoneyTotals(plan.totals)}`,
    summary.profile
      ? `  profile ${summary.profile} · ${shownUrl(summary.baseUrl)}`
      : `  in-process sandbox ${summary.baseUrl} (demo credentials; no profile used)`,
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

function payoutRecord(row: PayoutResultRow): Record<string, string> {
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
  const { renderTable } = await import('./table.js');
  return renderTable([...columns], records, {
    color,
    ...(io.stdout.columns ? { width: io.stdout.columns } : {}),
  });
}

/** --dry-run: what would be sent, one line per payout (account numbers masked to their last 4). */
export async function writePayoutPlan(
  io: Io,
  summary: PayoutPlanSummary,
  opts: Pick<PayOutputOptions, 'format' | 'color'>,
): Promise<void> {
  io.stderr.write(`${planLines(summary).join('\n')}\nDry run: nothing was sent and nothing journaled.\n`);
  const records = summary.plan.items.map((item) => {
    const bank = (item.request.beneficiary as { bank_details?: Record<string, string> } | undefined)
      ?.bank_details;
    const account = bank?.iban ?? bank?.account_number ?? '';
    return {
      line: String(item.line),
      request_id: String(item.request.request_id),
      request_id_from: item.requestIdFrom,
      payment_amount: String(item.request.payment_amount),
      payment_currency: item.currency,
      payment_method: String(item.request.payment_method ?? ''),
      account_name: bank?.account_name ?? '',
      account: account.length > 4 ? `…${account.slice(-4)}` : account,
    };
  });
  const columns = Object.keys(records[0] ?? {});
  if (opts.format === 'json')
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
  opts: Pick<PayOutputOptions, 'format' | 'color'> & { out?: string },
): Promise<void> {
  const records = rows.map(payoutRecord);
  const dest = opts.out === undefined ? undefined : (await import('node:path')).resolve(io.cwd, opts.out);
  if (opts.format === 'csv' && dest !== undefined && dest.toLowerCase().endsWith('.xlsx')) {
    // --out payouts.xlsx: a workbook, ids as text and amounts as numbers (loaded only for one).
    const writer = await (await import('./xlsx-writer.js')).openXlsxWriter(dest, [...PAYOUT_COLUMNS]);
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
    else await (await import('./sink.js')).writeWholeFile(dest, text);
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
