// What the journal alone says about each chunk, without the gateway: the outcomes a settled chunk
// recorded, `unknown` for rows sent without an answer, `not_sent` for the rest. Used by `runs show`
// (which sends nothing: there is no send path here at all) and by the engine for chunks it passes.

import type { BulkRow, Chunk, RowOutcome } from '../types.js';
import { chunkLines } from './chunk.js';
import type { ChunkState, SkippedRow } from './run-state.js';

export const NOT_SENT_DETAIL = 'not sent: the run stopped before this row; resume it to send';
export const PENDING_DETAIL =
  'sent, but its outcome is not known yet: resume the run to reconcile it with the gateway';

/** One outcome per chunk row: `updates` first, then what the journal had, else `fallback`. */
export function mergeOutcomes<R extends BulkRow>(
  chunk: Chunk<R>,
  state: ChunkState | undefined,
  updates: RowOutcome[],
  fallback: (line: number) => RowOutcome,
): RowOutcome[] {
  // The common case — a fresh chunk answered row for row — needs no lookup.
  if (state?.rows === undefined && updates.length === chunk.rows.length) {
    if (updates.every((o, i) => o.line === chunk.rows[i]!.line)) return updates;
  }
  const byLine = new Map<number, RowOutcome>();
  for (const o of state?.rows ?? []) byLine.set(o.line, o);
  for (const o of updates) byLine.set(o.line, o);
  return chunk.rows.map((r) => byLine.get(r.line) ?? fallback(r.line));
}

export function notSent(line: number, detail = NOT_SENT_DETAIL): RowOutcome {
  return { line, outcome: 'not_sent', detail, fields: {} };
}

export function pending(line: number): RowOutcome {
  return { line, outcome: 'unknown', detail: PENDING_DETAIL, fields: {} };
}

/** A chunk's outcomes from the journal alone: recorded, pending (sent, no answer) or not sent. */
export function journaledOutcomes<R extends BulkRow>(
  chunk: Chunk<R>,
  state: ChunkState | undefined,
): RowOutcome[] {
  const open = state?.open && !state.notSent ? state.intent!.lines : [];
  return mergeOutcomes(chunk, state, open.map(pending), (line) => notSent(line));
}

/**
 * A chunk's state with the rows the run skips (already done before it) settled as `already_done`:
 * they are never sent, whatever an earlier process recorded for the rest of the chunk.
 */
export function withSkipped<R extends BulkRow>(
  chunk: Chunk<R>,
  state: ChunkState | undefined,
  skip: ReadonlyMap<number, SkippedRow>,
): ChunkState | undefined {
  if (skip.size === 0 || !chunkLines(chunk).some((line) => skip.has(line))) return state;
  const known = new Map((state?.rows ?? []).map((o) => [o.line, o]));
  const rows: RowOutcome[] = [];
  for (const r of chunk.rows) {
    const skipped = skip.get(r.line);
    if (skipped !== undefined) {
      // Only possibly done (the same amount refunded with another reason): not sent, and not called
      // done either — it may be a refund still owed, which --force sends.
      rows.push(
        skipped.possible
          ? {
              line: r.line,
              outcome: 'skipped',
              detail: `not sent (--skip-done), possibly done already: ${skipped.where}; if it is a refund still owed, --force sends it`,
              fields: {},
            }
          : {
              line: r.line,
              outcome: 'already_done',
              detail: `already done before this run: ${skipped.where}`,
              fields: {},
            },
      );
    } else {
      const o = known.get(r.line);
      // A row no process has sent yet (an open intent's rows are settled by reconciliation).
      if (o !== undefined) rows.push(o);
      else if (!state?.open)
        rows.push({ line: r.line, outcome: 'not_sent', detail: 'not sent yet', fields: {} });
    }
  }
  return { ...(state ?? { open: false, notSent: false }), rows };
}

/** Every chunk's outcomes as the journal has them, in input order. Sends nothing. */
export async function replayRun<R extends BulkRow>(opts: {
  chunks: AsyncIterable<Chunk<R>>;
  prior: Map<number, ChunkState>;
  /** Rows the run skipped as already done (its preflight record, with --skip-done). */
  skip?: ReadonlyMap<number, SkippedRow>;
  emit: (chunk: Chunk<R>, outcomes: RowOutcome[]) => void | Promise<void>;
}): Promise<void> {
  const skip = opts.skip ?? new Map<number, SkippedRow>();
  for await (const chunk of opts.chunks) {
    await opts.emit(chunk, journaledOutcomes(chunk, withSkipped(chunk, opts.prior.get(chunk.index), skip)));
  }
}
