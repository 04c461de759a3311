// Implementations of `payops query` and `payops refunds search`: flags → Selection → core search →
// output. Loaded only when one of these commands runs.
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { ENDPOINTS } from '../gateway/endpoints.js';
import { resolveFormat } from '../output/format.js';
import { checkOutFile } from '../output/safe-file.js';
import { formatIsoUtc, formatLocal } from './dates.js';
import { planRequests } from './plan.js';
import { queryOrders, type SearchDeps, searchRefunds } from './search.js';
import { buildSelection, isRangeOnly, type Selection, type SelectorFlags } from './selection.js';
import { readSelectorFile, selectorFileNotes } from './selector-file.js';

export interface SearchFlags extends SelectorFlags {
  file?: string;
  sheet?: string;
  /** --columns 'order_no=Invoice': --file's headers for columns named otherwise. */
  columns?: string;
  headerRow?: number;
  includeHidden?: boolean;
  skipHidden?: boolean;
  /** Every record of the date range, however many (whole-range.ts). */
  all?: boolean;
}

export interface QueryFlags extends SearchFlags {
  withRefunds?: boolean;
}

/**
 * The selectors of --file; a pipe (`<(cat ids.csv)`, a FIFO) read once (tabular/pipe-input.ts).
 * Its headers as --columns (else the profile's columns.query) and --header-row say; what was read
 * other than plainly (a later header row, a matched header, hidden rows) is said on stderr.
 */
async function selectorsOf(ctx: Context, flags: SearchFlags & { file: string }) {
  const { file } = flags;
  const { readOncePath } = await import('../tabular/pipe-input.js');
  const { DEFAULT_READ_AS, withColumns, withHidden } = await import('../tabular/read-as.js');
  const readAs = withHidden({ ...DEFAULT_READ_AS }, flags);
  if (flags.columns !== undefined || flags.headerRow !== undefined)
    withColumns(readAs, flags, SELECTOR_COLUMNS);
  else {
    const profile = (await ctx.config()).columns?.query;
    if (profile !== undefined)
      withColumns(readAs, {}, SELECTOR_COLUMNS, { key: 'columns.query', text: profile });
  }
  const readFrom = await readOncePath(ctx, resolve(ctx.io.cwd, file), file);
  const found = await readSelectorFile(file, ctx.io.cwd, undefined, {
    ...(readFrom === undefined ? {} : { readFrom }),
    ...(flags.sheet === undefined ? {} : { sheet: flags.sheet }),
    readAs,
  });
  for (const line of selectorFileNotes(found, readAs)) ctx.log.info(line);
  return found;
}

const SELECTOR_COLUMNS = ['order_no', 'transaction_id'] as const;

/** Everything the user typed is checked (exit 2) before configuration is read or anything is sent. */
async function selectionOf(ctx: Context, flags: SearchFlags): Promise<Selection> {
  await checkOutFile(ctx.io.cwd, ctx.globals.out, [{ flag: '--file', path: flags.file }], ctx.io.env);
  const fromFile =
    flags.file === undefined ? undefined : await selectorsOf(ctx, { ...flags, file: flags.file });
  const sel = buildSelection(flags, fromFile);
  if (flags.all) wholeRangeOf(sel, Date.now());
  if (sel.start || sel.end) {
    // Say which instants the typed dates became: local vs UTC is the classic surprise.
    const show = (d: Date | undefined) => (d ? `${formatLocal(d)} (${formatIsoUtc(d)})` : '…');
    const line = `range: ${show(sel.start)} → ${show(sel.end)}`;
    // Too wide for the terminal: the end on a line of its own, never a date cut in two.
    const width = ctx.io.stderr.columns;
    ctx.log.info(width && line.length > width ? `range: ${show(sel.start)}\n     → ${show(sel.end)}` : line);
  }
  return sel;
}

/** `--all` is for a date range alone; without --to it runs to now. Throws UsageError (exit 2). */
function wholeRangeOf(sel: Selection, now: number): void {
  if (!isRangeOnly(sel)) {
    throw new UsageError(
      '--all fetches a whole date range: it does not go with --order-no, --transaction-id or --file',
      {
        hint: 'a list is fetched whole already; use --all with --from DATE [--to DATE] alone',
      },
    );
  }
  if (!sel.start) {
    throw new UsageError('--all needs --from: the start of the date range to fetch whole', {
      hint: 'for example --from 2026-11-01 --to 2026-11-30 --all',
    });
  }
  sel.end ??= new Date(Math.max(now, sel.start.getTime()));
}

/** --dry-run: say what would be sent, send nothing, read no configuration. */
function dryRun(ctx: Context, sel: Selection, op: 'query' | 'refundSearch', flags: SearchFlags): number {
  const { path, limit } = ENDPOINTS[op];
  const plans = planRequests(sel, limit);
  if (flags.all) {
    ctx.log.info(
      `dry run: the whole range from ${path}, ${limit} records a request, cut into smaller windows as needed; nothing sent`,
    );
    return ExitCode.ok;
  }
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
  if (ctx.globals.dryRun) return dryRun(ctx, sel, 'query', flags);
  const { deps, labels } = await depsOf(ctx);
  // One order on a terminal is a card, which shows the order's refunds when it has any.
  const refundsForCard = !ctx.globals.out && resolveFormat(ctx.globals, ctx.io) === 'table';
  const view = await import('./search-view.js');
  const outcome = await withProgress(
    flags.all ? view.wholeRangeProgress(ctx, 'orders') : undefined,
    deps,
    (d) =>
      queryOrders(d, sel, {
        withRefunds: Boolean(flags.withRefunds),
        all: Boolean(flags.all),
        refundsForCard,
      }),
  );
  await view.writeQueryResult(ctx, outcome, labels);
  return exitOf(outcome);
}

export async function runRefundSearch(ctx: Context, flags: SearchFlags): Promise<number> {
  const sel = await selectionOf(ctx, flags);
  if (ctx.globals.dryRun) return dryRun(ctx, sel, 'refundSearch', flags);
  const { deps, labels } = await depsOf(ctx);
  const view = await import('./search-view.js');
  const outcome = await withProgress(
    flags.all ? view.wholeRangeProgress(ctx, 'refunds') : undefined,
    deps,
    (d) => searchRefunds(d, sel, { all: Boolean(flags.all) }),
  );
  await view.writeRefundResult(ctx, outcome, labels);
  return exitOf(outcome);
}

/** Runs a search with `--all`'s progress line fed, and always takes the line down after. */
async function withProgress<T>(
  progress: { update: NonNullable<SearchDeps['onProgress']>; stop: () => void } | undefined,
  deps: SearchDeps,
  search: (deps: SearchDeps) => Promise<T>,
): Promise<T> {
  try {
    return await search(progress ? { ...deps, onProgress: progress.update } : deps);
  } finally {
    progress?.stop();
  }
}

/** 1 when something asked for is missing, or `--all` met a second it could not prove complete. */
function exitOf(o: { notFound: readonly unknown[]; saturated?: readonly unknown[] }): number {
  return o.notFound.length > 0 || (o.saturated?.length ?? 0) > 0 ? ExitCode.someFailed : ExitCode.ok;
}
