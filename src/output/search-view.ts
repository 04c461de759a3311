// Output of `payops query` and `payops refunds search`: a card for one order on a terminal, a table
// for several, JSON or flattened CSV with every gateway field for scripts (stdout or --out FILE).
// The not-found list and notices go to stderr.
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { columnsOf, flatten } from '../query/flatten.js';
import type { StatusLabels } from '../query/labels.js';
import {
  type DataRow,
  notFoundLines,
  orderDataRows,
  orderTable,
  refundDataRows,
  refundTable,
  type TableData,
} from '../query/rows.js';
import type { QueryOutcome, RefundSearchOutcome } from '../query/search.js';
import { openCsvWriter } from './csv-writer.js';
import { formatForFile, type OutputFormat, resolveFormat } from './format.js';
import { openJsonWriter } from './json-writer.js';
import { renderOrderCard } from './order-card.js';

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
      ctx.io.stdout.write(renderOrderCard(order, { ...opts, color: stdoutColor(ctx) }));
    } else if (outcome.orders.length > 1) {
      ctx.io.stdout.write(await tableText(ctx, orderTable(outcome, labels)));
    }
  } else {
    await writeData(ctx, format, orderDataRows(outcome, labels));
  }
  notices(ctx, outcome, 'order', 'orders');
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
  },
  noun: string,
  missing: 'orders' | 'refunds',
): void {
  for (const line of notFoundLines(o.notFound, missing)) ctx.log.warn(line);
  if (o.mayHaveMore) {
    ctx.log.warn(
      `the gateway returned ${o.limit} ${noun}s, the most it sends for a date range: there may be more; narrow the range`,
    );
  }
  const written = ctx.globals.out ? ` · written to ${ctx.globals.out}` : '';
  // How many requests it took is a detail for --verbose (issue 15).
  const requests = ctx.globals.verbose || ctx.globals.debug ? ` · ${plural(o.requests, 'request')}` : '';
  ctx.log.info(`${plural(o.orders.length, noun)} found${requests}${written}`);
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
  // cli-table3 loads only when a table is printed.
  const { renderTable } = await import('./table.js');
  const rows = t.rows.map((cells) => Object.fromEntries(t.head.map((h, i) => [h, cells[i] ?? ''])));
  const width = ctx.io.stdout.columns;
  const color = stdoutColor(ctx);
  return renderTable(t.head, rows, width ? { color, width } : { color });
}

/** ctx.color follows stderr; these go to stdout, which may be a pipe even when stderr is a terminal. */
function stdoutColor(ctx: Context): boolean {
  const forced = ctx.io.env.FORCE_COLOR !== undefined && ctx.io.env.FORCE_COLOR !== '0';
  return ctx.color && (forced || Boolean(ctx.io.stdout.isTTY));
}
