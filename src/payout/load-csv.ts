// `payout --file`: a payout CSV or workbook read as the flags and the profile say, with the lines that
// say how it was read, and the refusal of rows a person cannot see. From run-payout.ts; `payops plan
// payout` reads a file so too.
import type { Context } from '../context.js';
import type { TableReadFlags } from '../tabular/read-as.js';
import { loadPayoutCsv, type PayoutPlan } from './plan.js';

/** The flags of `payout` that say how --file is read. */
export interface PayoutCsvFlags extends TableReadFlags {
  file?: string;
  sheet?: string;
  columns?: string;
  headerRow?: number;
}

/** A payout CSV, read as the flags and profile say; how it was read is shown when not the default. */
export async function loadCsv(ctx: Context, opts: PayoutCsvFlags): Promise<PayoutPlan> {
  const { tableReadAsFrom, withColumns } = await import('../tabular/read-as.js');
  const config = await ctx.config();
  const { readOncePath } = await import('../tabular/pipe-input.js');
  const { resolve } = await import('node:path');
  // A pipe (a FIFO, `<(cat f.csv)`) is read once, into a copy (tabular/pipe-input.ts).
  const readFrom = await readOncePath(ctx, resolve(ctx.io.cwd, opts.file!), opts.file!);
  const plan = await loadPayoutCsv(
    opts.file!,
    ctx.io.cwd,
    withColumns(
      tableReadAsFrom(opts, config.decimalMark),
      opts,
      undefined,
      config.columns?.payout === undefined
        ? undefined
        : { key: 'columns.payout', text: config.columns.payout },
    ),
    opts.sheet,
    readFrom,
  );
  const r = plan.readAs;
  const { headerNotes } = await import('../tabular/header-notes.js');
  for (const line of headerNotes(plan.header, r)) ctx.log.info(line);
  if (r && (r.mark === ',' || r.established || r.encoding !== 'utf-8')) {
    const mark = r.mark === ',' ? 'decimal comma (12,50)' : 'decimal point (12.50)';
    ctx.log.info(
      `amounts read with a ${mark}: ${r.why}${r.encoding === 'utf-8' ? '' : ` · encoding ${r.encoding}`}`,
    );
  }
  // The sheet read and the rows a person does not see, as for bulk files; a run refuses those
  // rows unless --include-hidden or --skip-hidden (a dry run lists them).
  const { hiddenLines, hiddenRefusal } = await import('../tabular/hidden.js');
  for (const line of hiddenLines(plan, false)) ctx.log.info(line.trimStart());
  const refused = ctx.globals.dryRun ? undefined : hiddenRefusal(plan.displayFile, plan);
  if (refused) throw refused;
  return plan;
}
