// What a journal says about each chunk of a bulk run, folded from its records in order. Decides
// what a resumed run does with a chunk: skip it (done), reconcile it (its bytes may have left), or
// send the rows of it that certainly never took effect.

import type { RowOutcome } from '../types.js';
import type { BulkRecord, IntentRecord, PreflightRecord } from './records.js';

export interface ChunkState {
  /** The latest intent (its lines may be a subset of the chunk when only some rows were re-sent). */
  intent?: IntentRecord;
  /** The latest complete set of row outcomes of the chunk (from an answer or a reconciliation). */
  rows?: RowOutcome[];
  /** The latest intent has no outcome after it: sent or about to be when payops stopped or crashed. */
  open: boolean;
  /** The latest intent's request certainly never reached the gateway. */
  notSent: boolean;
  /**
   * Requests per row that may have reached the gateway (intents not followed by a `not_sent`
   * record); absent while the chunk has had one intent at most, whose lines then count once.
   */
  sends?: Map<number, number>;
  /**
   * A time no request of the latest intent can have left after (ISO): when its answer was found
   * lost (the `unknown` record), or when the process that sent it ended (a terminal record). Absent
   * after a crash: then only "now" bounds it. The settle time on resume counts from here — never
   * from the intent's own time, which is written ahead of the send.
   */
  sentBy?: string;
}

/** How many requests for this row of the chunk may have reached the gateway. */
export function sendsOf(state: ChunkState | undefined, line: number): number {
  if (state?.sends) return state.sends.get(line) ?? 0;
  return state?.intent && !state.notSent && state.intent.lines.includes(line) ? 1 : 0;
}

/** Rows never answered for sure that a request may have reached: reconciled before anything else. */
function sentButNotSettled(state: ChunkState): boolean {
  return (state.rows ?? []).some((r) => r.outcome === 'not_sent' && sendsOf(state, r.line) > 0);
}

export type ChunkAction = 'done' | 'reconcile' | 'send';

export function chunkAction(state: ChunkState | undefined): ChunkAction {
  if (state === undefined) return 'send';
  // Rows an earlier request may have reached are asked about first, even when the latest request
  // for them never left (a resend refused with 429, or the gateway unreachable).
  if (sentButNotSettled(state)) return 'reconcile';
  if (state.open) return state.notSent ? 'send' : 'reconcile';
  const rows = state.rows ?? [];
  if (rows.some((r) => r.outcome === 'unknown')) return 'reconcile';
  if (rows.length === 0 || rows.some((r) => r.outcome === 'not_sent')) return 'send';
  return 'done';
}

export interface FoldedRun {
  chunks: Map<number, ChunkState>;
  /** What the gateway showed before the run; absent in runs made before payops asked. */
  preflight?: PreflightRecord;
  /** Rows a resumed run found done elsewhere since the run began (never sent by this run). */
  skipped: Array<[line: number, where: string]>;
}

/** Why a row is not sent: where it was found done, and whether only possibly (a refund of its amount with another reason). */
export interface SkippedRow {
  where: string;
  possible?: true;
}

/** The rows a run does not send: done before it (with --skip-done), or elsewhere since it began. */
export function skippedRows(run: FoldedRun | undefined, preflight = run?.preflight): Map<number, SkippedRow> {
  const possible = new Set(preflight?.possible ?? []);
  const before: Array<[number, SkippedRow]> = (preflight?.skip ? preflight.done : []).map(([line, where]) => [
    line,
    possible.has(line) ? { where, possible: true } : { where },
  ]);
  return new Map([
    ...before,
    ...(run?.skipped ?? []).map(([line, where]): [number, SkippedRow] => [line, { where }]),
  ]);
}

export function foldRecords(records: Iterable<BulkRecord>): FoldedRun {
  const chunks = new Map<number, ChunkState>();
  const get = (i: number) => {
    let s = chunks.get(i);
    if (!s) {
      s = { open: false, notSent: false };
      chunks.set(i, s);
    }
    return s;
  };
  let preflight: PreflightRecord | undefined;
  const skipped: Array<[number, string]> = [];
  for (const rec of records) {
    switch (rec.type) {
      case 'preflight':
        preflight = rec;
        break;
      case 'skipped':
        skipped.push(...rec.done);
        break;
      case 'intent': {
        const s = get(rec.chunk);
        if (s.intent !== undefined) {
          // A second request for rows of this chunk: count per row from now on.
          if (s.sends === undefined) {
            s.sends = new Map();
            if (!s.notSent) for (const l of s.intent.lines) s.sends.set(l, 1);
          }
          for (const l of rec.lines) s.sends.set(l, (s.sends.get(l) ?? 0) + 1);
        }
        s.intent = rec;
        delete s.sentBy;
        s.open = true;
        s.notSent = false;
        break;
      }
      case 'not_sent': {
        const s = get(rec.chunk);
        // The latest intent's request never left: it does not count as a send.
        if (s.sends && s.intent && !s.notSent) {
          for (const l of s.intent.lines) s.sends.set(l, Math.max(0, (s.sends.get(l) ?? 1) - 1));
        }
        s.notSent = true;
        break;
      }
      case 'unknown': {
        const s = get(rec.chunk);
        if (rec.at !== undefined) s.sentBy = rec.at;
        break;
      }
      case 'finished':
      case 'interrupted':
        // The process ended: every request it sent had left by now.
        if (rec.at !== undefined) for (const s of chunks.values()) s.sentBy ??= rec.at;
        break;
      case 'outcome':
      case 'reconciled': {
        const s = get(rec.chunk);
        s.rows = rec.rows;
        s.open = false;
        break;
      }
      default:
        break;
    }
  }
  return preflight ? { chunks, preflight, skipped } : { chunks, skipped };
}
