// Implementations of `payops query` and `payops refunds search`: flags → Selection → core search →
// output. Loaded only when one of these commands runs.
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { ENDPOINTS } from '../gateway/endpoints.js';
import { resolveFormat } from '../output/format.js';
import { checkOutFile } from '../output/safe-file.js';
import { formatIsoUtc, formatLocal } from './dates.js';
import { planRequests } from './plan.js';
import { queryOrders, type SearchDeps, searchRefunds } from './search.js';
import { buildSelection, type Selection, type SelectorFlags } from './selection.js';
import { readSelectorFile } from './selector-file.js';

export interface SearchFlags extends SelectorFlags {
  file?: string;
}

export interface QueryFlags extends SearchFlags {
  withRefunds?: boolean;
}

/** Everything the user typed is checked (exit 2) before configuration is read or anything is sent. */
async function selectionOf(ctx: Context, flags: SearchFlags): Promise<Selection> {
  await checkOutFile(ctx.io.cwd, ctx.globals.out, [{ flag: '--file', path: flags.file }], ctx.io.env);
  const fromFile = flags.file === undefined ? undefined : await readSelectorFile(flags.file, ctx.io.cwd);
  const sel = buildSelection(flags, fromFile);
  if (sel.start || sel.end) {
    // Say which instants the typed dates became: local vs UTC is the classic surprise.
    const show = (d: Date | undefined) => (d ? `${formatLocal(d)} (${formatIsoUtc(d)})` : '…');
    ctx.log.info(`range: ${show(sel.start)} → ${show(sel.end)}`);
  }
  return sel;
}

/** --dry-run: say what would be sent, send nothing, read no configuration. */
function dryRun(ctx: Context, sel: Selection, op: 'query' | 'refundSearch'): number {
  const { path, limit } = ENDPOINTS[op];
  const plans = planRequests(sel, limit);
  ctx.log.info(`dry run: ${plans.length} request${plans.length === 1 ? '' : 's'} to ${path}, nothing sent`);
  for (const [i, p] of plans.entries()) {
    const what = p.field ? `${p.values.length} × ${p.field}` : 'date range only';
    const range = [p.body.start_date, p.body.end_date].some(Boolean)
      ? ` (${p.body.start_date ?? '…'} → ${p.body.end_date ?? '…'} UTC)`
      : '';
    ctx.log.info(`  ${i + 1}. ${what}${range}`);
  }
  return ExitCode.ok;
}

async function depsOf(ctx: Context): Promise<{ deps: SearchDeps; labels: Record<string, string> }> {
  const config = await ctx.config();
  const client = await ctx.client();
  return {
    deps: { client, concurrency: ctx.globals.concurrency ?? config.concurrency, log: ctx.log },
    labels: config.statusLabels ?? {},
  };
}

export async function runQuery(ctx: Context, flags: QueryFlags): Promise<number> {
  const sel = await selectionOf(ctx, flags);
  if (ctx.globals.dryRun) return dryRun(ctx, sel, 'query');
  const { deps, labels } = await depsOf(ctx);
  // One order on a terminal is a card, which shows the order's refunds when it has any.
  const refundsForCard = !ctx.globals.out && resolveFormat(ctx.globals, ctx.io) === 'table';
  const outcome = await queryOrders(deps, sel, { withRefunds: Boolean(flags.withRefunds), refundsForCard });
  const { writeQueryResult } = await import('../output/search-view.js');
  await writeQueryResult(ctx, outcome, labels);
  return outcome.notFound.length > 0 ? ExitCode.someFailed : ExitCode.ok;
}

export async function runRefundSearch(ctx: Context, flags: SearchFlags): Promise<number> {
  const sel = await selectionOf(ctx, flags);
  if (ctx.globals.dryRun) return dryRun(ctx, sel, 'refundSearch');
  const { deps, labels } = await depsOf(ctx);
  const outcome = await searchRefunds(deps, sel);
  const { writeRefundResult } = await import('../output/search-view.js');
  await writeRefundResult(ctx, outcome, labels);
  return outcome.notFound.length > 0 ? ExitCode.someFailed : ExitCode.ok;
}
