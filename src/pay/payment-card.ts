// Renders a payment result (pay card|apm|checkout): a card for people, JSON or one CSV row for
// scripts. Data goes to stdout; the "outcome unknown" advice and APM summary go to stderr.

import { splitCodedMessage } from '../gateway/types.js';
import type { Io, OutputFormat } from '../io.js';
import { type CardSection, renderCard } from '../output/card.js';
import { writeCsvRecords } from '../output/csv-writer.js';
import { formatForFile } from '../output/format.js';
import { whenText } from '../query/order-card.js';
import { shellQuote, terminalLine } from '../quote.js';
import { outputJsonReplacer } from '../redact.js';
import type { PaymentKind } from './fields.js';
import type { PayResult } from './pay.js';

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

  // A card payment left pending gets what to do next (issue 27): a direct card payment cannot show a
  // 3-D Secure challenge to the shopper; a checkout page can.
  if (result.kind === 'card' && result.outcome === 'pending' && result.result) {
    const query = `payops query --order-no ${shellQuote(result.order_no)}`;
    const challenge = splitCodedMessage(s(result.result.result_info)).code === 'E3003';
    sections.push({
      heading: 'Next step',
      fields: rows(
        challenge
          ? [
              [
                'why',
                'the card needs a 3-D Secure challenge, which a direct card payment cannot show the shopper',
              ],
              [
                'to charge it',
                `payops pay checkout --amount ${result.amount} --currency ${result.currency} --open (the page runs the challenge)`,
              ],
              ['this order', `stays pending, nothing charged: ${query}`],
            ]
          : [
              ['why', 'the gateway holds the payment for review'],
              ['its outcome', `later with ${query}`],
            ],
      ),
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
          // A gateway time (YYYYMMDDhhmmss, UTC): local and ISO 8601 on the card (design.md §1.6).
          [
            'recurring_deduction_time',
            r.recurring_deduction_time ? whenText(r.recurring_deduction_time) : '',
          ],
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

/** Writes the result: JSON or one CSV row for scripts, otherwise the card (the APM's issuer_url alone on stdout). */
export async function writePayResult(io: Io, result: PayResult, opts: PayOutputOptions): Promise<void> {
  const card = () => renderCard(payTitle(result), paySections(result, opts), { color: opts.color });
  const row = payResultRow(result, opts.savedTo);
  if (opts.resultFile !== undefined) {
    // --out for card and APM: the data goes to the file, the card to stderr.
    const json = formatForFile(opts.resultFile) === 'json';
    const { writeWholeFile } = await import('../output/sink.js');
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
