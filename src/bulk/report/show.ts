// `payops runs show ID` for a bulk run: its results regenerated from the journal and the run's input
// snapshot. Sends nothing: it replays what the journal says (replay.ts), with no gateway at all.
import { stateDir } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { chainWarning } from '../../lifecycle/chain.js';
import { runDir } from '../../lifecycle/paths.js';
import { readRun } from '../../lifecycle/read.js';
import type { RunHeader } from '../../lifecycle/records.js';
import { resolveFormat } from '../../output/format.js';
import { formatCount } from '../../output/summary.js';
import { matchColumns } from '../../tabular/column-match.js';
import { chunkRows } from '../engine/chunk.js';
import { openRunResultsSink, resumeCommand } from '../engine/execute.js';
import { parseBulkRecord } from '../engine/records.js';
import { replayRun } from '../engine/replay.js';
import { type FoldedRun, foldRecords, skippedRows } from '../engine/run-state.js';
import { inputRows, runInput, skippedHiddenRows } from '../input.js';
import { OPERATIONS } from '../operations.js';
import type { Chunk, InputRow, Outcome, RowOutcome, RunTotals } from '../types.js';
import { summaryLines } from './report.js';
import {
  addToRunTotals,
  exitCodeForTotals,
  newTotals,
  OUTCOMES,
  resultCells,
  resultLayout,
  skippedHidden,
} from './results.js';
import { openResultSink, stderrWidth } from './ui.js';

/**
 * `only`: the outcomes to write (`--only failed,not_sent,unknown`). As CSV or JSON (--out, a pipe)
 * those rows are written in the input's own columns plus `payops_outcome` and `payops_reason`
 * (issue 27): the person correcting the file sees why each row failed, and the reader ignores
 * columns named `payops_*`, so the corrected file runs as it is. A terminal table shows each row's
 * outcome and reason. The summary and the exit code are the whole run's.
 */
export async function showBulkRun(ctx: Context, runId: string, only?: ReadonlySet<Outcome>): Promise<number> {
  // Shown even when its chain is broken (resume refuses it), with a warning first.
  const { header, records, chain } = await readRun(stateDir(ctx.io.env), runId, parseBulkRecord, {
    chain: 'report',
  });
  const warning = chainWarning(runId, chain);
  if (warning) ctx.log.warn(warning);
  return exitCodeForTotals(await replayToSink(ctx, header, foldRecords(records), undefined, only));
}

/** The columns a fix file adds: each row's outcome and its reason, whole. */
export const FIX_COLUMNS = ['payops_outcome', 'payops_reason'] as const;

/** Columns payops writes into a fix file, which every reader leaves out (tabular/column-match.ts). */
function isPayopsColumn(name: string): boolean {
  return /^payops_/i.test(name.trim());
}

/** `--only a,b` → the outcomes, each known; a usage error names the ones that are not. */
export function parseOnly(text: string): Set<Outcome> {
  const words = text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  const unknown = words.filter((w) => !(OUTCOMES as readonly string[]).includes(w));
  if (words.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--only takes outcomes separated by commas${unknown.length ? `, not "${unknown.join(',')}"` : ''}`,
      {
        hint: `outcomes: ${OUTCOMES.join(', ')} (e.g. --only failed,not_sent,unknown)`,
      },
    );
  }
  return new Set(words as Outcome[]);
}

/**
 * A bulk run's rows as its journal has them, in input order, to the results sink (table, CSV or
 * JSON), then the summary; the totals. `check` may change each chunk's rows before they are written
 * (runs verify asks the gateway there); `label` is the input as the user named it.
 */
export async function replayToSink(
  ctx: Context,
  header: RunHeader,
  folded: FoldedRun,
  check?: (chunk: Chunk<InputRow>, reported: RowOutcome[], label: string) => Promise<RowOutcome[]>,
  only?: ReadonlySet<Outcome>,
): Promise<RunTotals> {
  const state = stateDir(ctx.io.env);
  const op = header.op as BatchOperation;
  const inputColumns = header.columns ?? [];
  // --only to a file or a pipe: the input's own columns and why (a table keeps the outcome to read).
  const asInput = only !== undefined && resolveFormat(ctx.globals, ctx.io) !== 'table';
  const snapshot = await runInput(state, header);
  // Columns under another header (an alias, --columns) are shown by it, as the run's own table did.
  const { required, optional } = OPERATIONS[op].columns;
  const { matches } = matchColumns(inputColumns, [...required, ...optional], snapshot.readAs?.columns);
  // A fix file's own payops_* columns (a fix of a fix) are replaced by this run's.
  const kept = inputColumns.flatMap((c, i) => (isPayopsColumn(c) ? [] : [i]));
  const fixCells = (cells: readonly string[], o: Pick<RowOutcome, 'outcome' | 'detail'>) => [
    ...kept.map((i) => cells[i] ?? ''),
    o.outcome,
    o.detail,
  ];
  const { layout, sink: out } = asInput
    ? {
        layout: resultLayout(op, inputColumns),
        sink: await openResultSink(ctx, [...kept.map((i) => inputColumns[i]!), ...FIX_COLUMNS]),
      }
    : await openRunResultsSink(ctx, op, inputColumns, undefined, matches);
  let written = 0;
  const totals = newTotals();
  // Rows --skip-hidden left out are in no chunk: reported first, as the run reported them.
  for await (const h of skippedHiddenRows(op, snapshot)) {
    totals.counts.skipped++;
    if (only && !only.has('skipped')) continue;
    written++;
    const hidden = skippedHidden(h.line, h.ref);
    const w = asInput
      ? out.writeCells(fixCells(h.cells, hidden))
      : out.writeCells(resultCells(layout, h.cells, hidden));
    if (w) await w;
  }
  await replayRun({
    chunks: chunkRows(inputRows(op, snapshot), header.chunkSize || 50),
    prior: folded.chunks,
    skip: skippedRows(folded),
    emit: async (chunk, reported) => {
      const outcomes = check ? await check(chunk, reported, snapshot.label) : reported;
      for (let i = 0; i < chunk.rows.length; i++) {
        const row = chunk.rows[i]!;
        addToRunTotals(totals, op, row, outcomes[i]!.outcome);
        if (only && !only.has(outcomes[i]!.outcome)) continue;
        written++;
        const w = asInput
          ? out.writeCells(fixCells(row.cells, outcomes[i]!))
          : out.writeCells(resultCells(layout, row.cells, outcomes[i]!));
        if (w) await w;
      }
    },
  });
  await out.close();
  if (only) {
    const where = out.file ? ` to ${ctx.globals.out}` : '';
    const what = `${formatCount(written)} row${written === 1 ? '' : 's'} ${[...only].join(', ')}`;
    ctx.log.info(out.file ? `${what} written${where}` : what);
  }
  for (const line of summaryLines({
    op,
    runId: header.runId,
    totals,
    ...(out.file && !asInput ? { resultsFile: ctx.globals.out ?? out.file } : {}),
    journalDir: runDir(state, header.runId),
    // What verify found is not what a resume would do: it prints its own next step.
    ...(check ? {} : { resumeCommand: resumeCommand(ctx, header, false) }),
    ...stderrWidth(ctx),
    resumable: !header.sandbox,
  })) {
    ctx.log.info(line);
  }
  return totals;
}
