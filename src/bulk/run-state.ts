// What a journal says about each chunk of a bulk run, folded from its records in order. Decides
// what a resumed run does with a chunk: skip it (done), reconcile it (its bytes may have left), or
// send it (never sent, or certainly never reached the gateway).
import type { JournalRecord } from './journal.js';
import type { IntentRecord, RowOutcome } from './types.js';

export interface ChunkState {
  intent?: IntentRecord;
  /** The latest complete set of row outcomes (from the answer or from reconciliation). */
  rows?: RowOutcome[];
  /** The last send certainly never reached the gateway. */
  notSent?: boolean;
  unknownReason?: string;
}

export type ChunkAction = 'done' | 'reconcile' | 'send';

export function chunkAction(state: ChunkState | undefined): ChunkAction {
  if (state === undefined) return 'send';
  if (state.rows !== undefined) {
    return state.rows.some((r) => r.outcome === 'unknown') ? 'reconcile' : 'done';
  }
  if (state.notSent) return 'send';
  // An intent with no outcome: sent, or about to be, when payops stopped. Its bytes may have left.
  return state.intent !== undefined ? 'reconcile' : 'send';
}

export interface FoldedRun {
  chunks: Map<number, ChunkState>;
  /** refund_reference_ids attributed to rows of this run (a reconciliation must not take them again). */
  claimed: Set<string>;
}

export function foldRecords(records: Iterable<JournalRecord>): FoldedRun {
  const chunks = new Map<number, ChunkState>();
  const get = (i: number) => {
    let s = chunks.get(i);
    if (!s) {
      s = {};
      chunks.set(i, s);
    }
    return s;
  };
  for (const rec of records) {
    const idx = typeof rec.chunk === 'number' ? rec.chunk : undefined;
    if (idx === undefined) continue;
    switch (rec.type) {
      case 'intent': {
        const s = get(idx);
        s.intent = rec as unknown as IntentRecord;
        s.notSent = false;
        break;
      }
      case 'not_sent':
        get(idx).notSent = true;
        break;
      case 'unknown':
        get(idx).unknownReason = String(rec.reason ?? '');
        break;
      case 'outcome':
      case 'reconciled':
        get(idx).rows = rec.rows as RowOutcome[];
        break;
      default:
        break;
    }
  }
  const claimed = new Set<string>();
  for (const s of chunks.values()) {
    for (const r of s.rows ?? []) {
      const id = r.outcome === 'succeeded' ? r.fields.refund_reference_id : undefined;
      if (id) claimed.add(id);
    }
  }
  return { chunks, claimed };
}
