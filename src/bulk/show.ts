// `payops runs show ID` for a bulk run: its results regenerated from the journal and the run's input
// snapshot. Sends nothing: it replays what the journal says (replay.ts), with no gateway at all.
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { runDir } from '../runs/paths.js';
import { readRun } from '../runs/read.js';
import type { RunHeader } from '../runs/records.js';
import { chunkRows } from './chunk.js';
import { openSink, resumeCommand } from './execute.js';
import { inputRows, runInput } from './input.js';
import { parseBulkRecord } from './records.js';
import { replayRun } from './replay.js';
import { summaryLines } from './report.js';
import { addToRunTotals, exitCodeFor, newTotals, resultCells } from './results.js';
import { type FoldedRun, foldRecords, skippedRows } from './run-state.js';
import type { Chunk, InputRow, RowOutcome, RunTotals } from './types.js';

export async function showRun(ctx: Context, runId: string): Promise<number> {
  const { header, records } = await readRun(stateDir(ctx.io.env), runId, parseBulkRecord);
  return exitCodeFor(await replayToSink(ctx, header, foldRecords(records)));
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
): Promise<RunTotals> {
  const state = stateDir(ctx.io.env);
  const op = header.op as BatchOperation;
  const { layout, sink } = await openSink(ctx, op, header.columns ?? []);
  const totals = newTotals();
  const snapshot = await runInput(state, header);
  await replayRun({
    chunks: chunkRows(inputRows(op, snapshot), header.chunkSize || 50),
    prior: folded.chunks,
    skip: skippedRows(folded),
    emit: async (chunk, reported) => {
      const outcomes = check ? await check(chunk, reported, snapshot.label) : reported;
      for (let i = 0; i < chunk.rows.length; i++) {
        const row = chunk.rows[i]!;
        addToRunTotals(totals, op, row, outcomes[i]!.outcome);
        const w = sink.writeCells(resultCells(layout, row.cells, outcomes[i]!));
        if (w) await w;
      }
    },
  });
  await sink.close();
  for (const line of summaryLines({
    op,
    runId: header.runId,
    totals,
    ...(sink.file ? { resultsFile: sink.file } : {}),
    journalDir: runDir(state, header.runId),
    // What verify found is not what a resume would do: it prints its own next step.
    ...(check ? {} : { resumeCommand: resumeCommand(ctx, header) }),
    ...(ctx.io.stderr.isTTY && ctx.io.stderr.columns ? { columns: ctx.io.stderr.columns } : {}),
    resumable: !header.sandbox,
  })) {
    ctx.log.info(line);
  }
  return totals;
}
