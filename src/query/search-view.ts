// Output of `payops query` and `payops refunds search`: a card for one order on a terminal, a table
// for several, JSON or flattened CSV with every gateway field for scripts (stdout or --out FILE).
// The not-found list and notices go to stderr.

import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { openCsvWriter } from '../output/csv-writer.js';
import { formatForFile, type OutputFormat, resolveFormat } from '../output/format.js';
import { openJsonWriter } from '../output/json-writer.js';
import { stdoutColor } from '../output/stdout-color.js';
import { fitLines } from '../output/summary.js';
import { shellQuote } from '../quote.js';
import { columnsOf, flatten } from './flatten.js';
import type { StatusLabels } from './labels.js';
import { renderOrderCard } from './order-card.js';
import {
  type DataRow,
  notFoundLines,
  orderDataRows,
  orderTable,
  refundDataRows,
  refundTable,
  type TableData,
} from './rows.js';
import type { QueryOutcome, RefundSearchOutcome, Saturated } from './search.js';

/**
 * Seconds `--all` could not prove complete: each held more records than one answer carries, and the
 * gateway cannot list records of orders it did not show. Said on stderr, always (exit code 1).
 */
function saturatedLines(saturated: Saturated, noun: string): string[] {
  if (saturated.length === 0) return [];
  const those = saturated.length === 1 ? 'that second' : 'those seconds';
  // Refunds were asked again by the orders shown; orders cannot be (each order is one record).
  const what =
    noun === 'order'
      ? `other orders created in ${those} may be missing:`
      : `payops fetched every ${noun} of the orders it showed, but ${noun}s of other orders in ${those} may be missing:`;
  return [
    `${plural(saturated.length, 'second')} of the range held more ${noun}s than the gateway returns in one answer; ${what}`,
    ...saturated.map(
      (s) =>
        `  ${new Date(s.second).toISOString().replace('.000Z', 'Z')}: ${plural(s.found, `${noun} found`, `${noun}s found`)}`,
    ),
    noun === 'order'
      ? `to be sure of ${those}, look the orders up by list: --file with their transaction_id or order_no`
      : 'check them by order: --file with the orders of that second (their transaction_id or order_no)',
  ];
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export async function writeQueryResult(
  ctx: Context,
  outcome: QueryOutcome,
  labels: StatusLabels,
): Promise<void> {
  const format = formatOf(ctx);
  if (format === 'table') {
    if (outcome.orders.length === 1) {
      const order = outcome.orders[0]!;
      const refunds = outcome.refunds?.get(order.transaction_id) ?? [];
      // Refunds looked up for the card are shown when there are any; asked for, "none" too.
      const shown = outcome.refunds && (refunds.length > 0 || !outcome.refundsForCard);
      const opts = shown ? { labels, refunds } : { labels };
      const width = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
      ctx.io.stdout.write(
        renderOrderCard(order, { ...opts, color: stdoutColor(ctx), ...(width ? { width } : {}) }),
      );
    } else if (outcome.orders.length > 1) {
      ctx.io.stdout.write(await tableText(ctx, orderTable(outcome, labels)));
    }
  } else {
    await writeData(ctx, format, orderDataRows(outcome, labels));
  }
  notices(ctx, outcome, 'order', 'orders');
}

/**
 * `--all`'s progress on stderr: one line rewritten in place for a person at a terminal; with
 * --verbose and stderr not a terminal, a log line per request; otherwise (and with --quiet) nothing.
 */
export function wholeRangeProgress(
  ctx: Context,
  noun: 'orders' | 'refunds',
): { update: (s: { records: number; requests: number; pending: number }) => void; stop: () => void } {
  const stderr = ctx.io.stderr;
  const live = Boolean(stderr.isTTY) && !ctx.globals.quiet;
  const logged = !live && !ctx.globals.quiet && Boolean(ctx.globals.verbose);
  let shown = false;
  const text = (s: { records: number; requests: number; pending: number }) =>
    `fetching the whole range: ${plural(s.records, noun.slice(0, -1), noun)} · ${plural(s.requests, 'request')} · ${plural(s.pending, 'window')} to ask`;
  return {
    update(s) {
      if (live) {
        stderr.write(`\r\u001b[2K${text(s)}`);
        shown = true;
      } else if (logged) ctx.log.verbose(text(s));
    },
    stop() {
      if (shown) stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}

export async function writeRefundResult(
  ctx: Context,
  outcome: RefundSearchOutcome,
  labels: StatusLabels,
): Promise<void> {
  const format = formatOf(ctx);
  if (format === 'table') {
    if (outcome.refunds.length > 0) ctx.io.stdout.write(await tableText(ctx, refundTable(outcome, labels)));
  } else {
    await writeData(ctx, format, refundDataRows(outcome, labels));
  }
  notices(ctx, { ...outcome, orders: outcome.refunds }, 'refund record', 'refunds');
}

function notices(
  ctx: Context,
  o: {
    orders: readonly unknown[];
    notFound: QueryOutcome['notFound'];
    requests: number;
    mayHaveMore: boolean;
    limit: number;
    saturated?: Saturated;
  },
  noun: string,
  missing: 'orders' | 'refunds',
): void {
  const { profile, sandbox } = ctx.globals;
  const payops = `payops${sandbox ? ' --sandbox' : ''}${profile ? ` --profile ${shellQuote(profile)}` : ''}`;
  const hints = notFoundLines(o.notFound, missing, payops);
  // The hint after the count that ends the output: the last line is the command to run.
  const hint = hints.length > 0 && hints.at(-1)!.startsWith('hint:') ? hints.pop() : undefined;
  for (const line of hints) ctx.log.warn(line);
  // Fitted to the terminal at spaces: a second's line is never broken mid-word.
  for (const line of fitLines(saturatedLines(o.saturated ?? [], noun), ctx.io.stderr.columns))
    ctx.log.warn(line);
  if (o.mayHaveMore) {
    const line = `the gateway returned ${o.limit} ${noun}s, the most it sends for a date range: there may be more; add --all to fetch the whole range`;
    for (const part of fitLines([line], ctx.io.stderr.columns)) ctx.log.warn(part);
  }
  const written = ctx.globals.out ? ` · written to ${ctx.globals.out}` : '';
  // How many requests it took is a detail for --verbose (issue 15).
  const requests = ctx.globals.verbose || ctx.globals.debug ? ` · ${plural(o.requests, 'request')}` : '';
  const missed = o.notFound.length;
  const notFound =
    missed === 0 ? '' : `, ${missed} ${missing === 'orders' ? 'not found' : 'without refund records'}`;
  ctx.log.info(`${plural(o.orders.length, noun)} found${notFound}${requests}${written}`);
  if (hint) ctx.log.warn(hint);
}

async function writeData(ctx: Context, format: OutputFormat, rows: DataRow[]): Promise<void> {
  const dest = ctx.globals.out ? resolve(ctx.io.cwd, ctx.globals.out) : ctx.io.stdout;
  if (format === 'json') {
    const w = await openJsonWriter(dest);
    for (const row of rows) await w.write(row);
    await w.end();
    return;
  }
  // Every row gets every column, so the union of the flattened paths is known before the header.
  const flat = rows.map((r) => flatten(r));
  const w = await openCsvWriter(dest, columnsOf(flat));
  for (const row of flat) await w.write(row);
  await w.end();
}

/** --out FILE takes data, never a table: JSON for *.json, CSV otherwise. */
function formatOf(ctx: Context): OutputFormat {
  const format = resolveFormat(ctx.globals, ctx.io);
  if (format === 'table' && ctx.globals.out) return formatForFile(ctx.globals.out);
  return format;
}

async function tableText(ctx: Context, t: TableData): Promise<string> {
  // The table renderer (output/table.ts) loads only when a table is printed.
  const { renderTable } = await import('../output/table.js');
  const rows = t.rows.map((cells) => Object.fromEntries(t.head.map((h, i) => [h, cells[i] ?? ''])));
  const width = ctx.io.stdout.columns;
  const color = stdoutColor(ctx);
  const wide = Boolean(ctx.globals.wide);
  // 3-D Secure and fraud screening go before the block layout: one order's card shows them.
  const drop = ['fraud', '3DS'];
  return renderTable(t.head, rows, width ? { color, width, wide, drop } : { color, wide, drop });
}
