// `payops runs show ID` for a bulk run: its results regenerated from the journal and the run's input
// snapshot. Sends nothing: it replays what the journal says (replay.ts), with no gateway at all.
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { runDir } from '../runs/paths.js';
import { readRun } from '../runs/read.js';
import type { RunHeader } from '../runs/records.js';
import { checkedSnapshot } from '../runs/snapshot.js';
import { chunkRows } from './chunk.js';
import { sha256File } from './csv-reader.js';
import { openSink, resumeCommand } from './execute.js';
import { type InputSource, inputRows } from './input.js';
import { parseBulkRecord } from './records.js';
import { replayRun } from './replay.js';
import { summaryLines } from './report.js';
import { addToRunTotals, exitCodeFor, newTotals, resultCells } from './results.js';
import { foldRecords, skippedRows } from './run-state.js';

/** A run's own copy of its input, checked against its SHA-256, under the name the user gave. */
export async function runInput(state: string, header: RunHeader): Promise<InputSource> {
  const { runId } = header;
  return {
    path: await checkedSnapshot({ dir: runDir(state, runId), header }, sha256File),
    label: header.label ?? header.file ?? runId,
  };
}

export async function showRun(ctx: Context, runId: string): Promise<number> {
  const state = stateDir(ctx.io.env);
  const { header, records } = await readRun(state, runId, parseBulkRecord);
  const op = header.op as BatchOperation;
  const { layout, sink } = await openSink(ctx, op, header.columns ?? []);
  const totals = newTotals();
  const folded = foldRecords(records);
  const snapshot = await runInput(state, header);
  await replayRun({
    chunks: chunkRows(inputRows(op, snapshot), header.chunkSize || 50),
    prior: folded.chunks,
    skip: skippedRows(folded),
    emit: async (chunk, outcomes) => {
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
    runId,
    totals,
    ...(sink.file ? { resultsFile: sink.file } : {}),
    journalDir: runDir(state, runId),
    resumeCommand: resumeCommand(ctx, header),
    resumable: !header.sandbox,
  })) {
    ctx.log.info(line);
  }
  return exitCodeFor(totals);
}
