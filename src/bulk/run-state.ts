// What a journal says about each chunk of a bulk run, folded from its records in order. Decides
// what a resumed run does with a chunk: skip it (done), reconcile it (its bytes may have left), or
// send the rows of it that certainly never took effect.
import type { BulkRecord, IntentRecord, PreflightRecord } from './records.js';
import type { RowOutcome } from './types.js';

export interface ChunkState {
  /** The latest intent (its lines may be a subset of the chunk when only some rows were re-sent). */
  intent?: IntentRecord;
  /** The latest complete set of row outcomes of the chunk (from an answer or a reconciliation). */
  rows?: RowOutcome[];
  /** The latest intent has no outcome after it: sent or about to be when payops stopped or crashed. */
  open: boolean;
  /** The latest intent's request certainly never reached the gateway. */
  notSent: boolean;
  /** The latest intent's request got no trustworthy answer (an `unknown` record). */
  lostAnswer: boolean;
}

export type ChunkAction = 'done' | 'reconcile' | 'send';

export function chunkAction(state: ChunkState | undefined): ChunkAction {
  if (state === undefined) return 'send';
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

/** The rows a run does not send: done before it (with --skip-done), or elsewhere since it began. */
export function skippedRows(run: FoldedRun | undefined, preflight = run?.preflight): Map<number, string> {
  return new Map([...(preflight?.skip ? preflight.done : []), ...(run?.skipped ?? [])]);
}

export function foldRecords(records: Iterable<BulkRecord>): FoldedRun {
  const chunks = new Map<number, ChunkState>();
  const get = (i: number) => {
    let s = chunks.get(i);
    if (!s) {
      s = { open: false, notSent: false, lostAnswer: false };
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
        s.intent = rec;
        s.open = true;
        s.notSent = false;
        s.lostAnswer = false;
        break;
      }
      case 'not_sent':
        get(rec.chunk).notSent = true;
        break;
      case 'unknown':
        get(rec.chunk).lostAnswer = true;
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
