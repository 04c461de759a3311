// `--all`: every record of a date range, although the gateway answers a range-only search with at
// most `limit` (100) records, the newest (design.md §1.2). The range is cut into windows: a window
// that comes back full is halved, down to one second (the gateway's dates have no finer unit). A
// full one-second window is then asked again by transaction lists: every record of the orders it
// showed, in that second. Records are merged and each kept once (by the caller's identity).
//
// What even that cannot prove: a second holding more than `limit` records may also hold records of
// orders that are not among the ones it showed, and no request can list those. Such a second is
// never passed over in silence: it is returned in `saturated`, for the caller to warn about.

import { formatGatewayTime } from '../gateway/time.js';
import type { PlannedRequest } from './plan.js';
import { chunk } from './plan.js';

/** Inclusive bounds in epoch ms, whole seconds. */
export interface Window {
  from: number;
  to: number;
}

export interface WholeRangeHooks<R> {
  /** The gateway's most records per request. */
  limit: number;
  /** Send one planned request; the records it returned. */
  send(plan: PlannedRequest): Promise<R[]>;
  /** Which order a record belongs to (for the transaction-list step). */
  transactionOf(record: R): string;
  /** When two records are the same one. */
  identity(record: R): string;
  concurrency: number;
  /** After each request: records kept so far, requests sent, windows still to ask. */
  onProgress?(state: { records: number; requests: number; pending: number }): void;
  signal?: AbortSignal;
}

export interface WholeRangeResult<R> {
  records: R[];
  requests: number;
  /** One-second windows that held `limit` records or more: records of other orders may be missing. */
  saturated: Array<{ second: number; found: number }>;
}

const SECOND = 1000;

function rangeBody(w: Window): PlannedRequest['body'] {
  return { start_date: formatGatewayTime(w.from), end_date: formatGatewayTime(w.to) };
}

/** Two halves of a window of at least two seconds, cut on a second. */
export function halve(w: Window): [Window, Window] {
  const seconds = (w.to - w.from) / SECOND + 1;
  const mid = w.from + Math.floor(seconds / 2) * SECOND;
  return [
    { from: w.from, to: mid - SECOND },
    { from: mid, to: w.to },
  ];
}

/** The window a typed range asks for, on whole seconds (the gateway's unit). */
export function windowOf(start: Date, end: Date): Window {
  const from = Math.floor(start.getTime() / SECOND) * SECOND;
  const to = Math.floor(end.getTime() / SECOND) * SECOND;
  return { from, to: Math.max(from, to) };
}

export async function fetchWholeRange<R>(
  range: Window,
  hooks: WholeRangeHooks<R>,
): Promise<WholeRangeResult<R>> {
  const kept = new Map<string, R>();
  const saturated: WholeRangeResult<R>['saturated'] = [];
  const queue: Window[] = [range];
  let requests = 0;
  let active = 0;
  let failure: { error: unknown } | undefined;

  const keep = (records: R[]) => {
    for (const r of records) {
      const id = hooks.identity(r);
      if (!kept.has(id)) kept.set(id, r);
    }
  };
  const send = async (plan: PlannedRequest) => {
    hooks.signal?.throwIfAborted();
    const records = await hooks.send(plan);
    requests++;
    return records;
  };
  const report = () => hooks.onProgress?.({ records: kept.size, requests, pending: queue.length + active });

  async function one(w: Window): Promise<void> {
    const records = await send({ values: [], body: rangeBody(w) });
    if (records.length < hooks.limit) {
      keep(records);
    } else if (w.to > w.from) {
      // Full: the answer is only the newest part of this window. Ask its halves instead.
      queue.push(...halve(w));
    } else {
      // One full second: every record of the orders it showed, asked by their transaction ids.
      keep(records);
      const ids = [...new Set(records.map(hooks.transactionOf))];
      let found = 0;
      for (const part of chunk(ids, hooks.limit)) {
        const listed = await send({
          field: 'transaction_id',
          values: part,
          body: { transaction_id: part.join(','), ...rangeBody(w) },
        });
        found += listed.length;
        keep(listed);
      }
      saturated.push({ second: w.from, found: Math.max(found, records.length) });
    }
  }

  // A small work queue: up to `concurrency` windows in flight; halves join the queue as they appear.
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (failure === undefined && active < hooks.concurrency && queue.length > 0) {
        const w = queue.shift()!;
        active++;
        one(w)
          .catch((error: unknown) => {
            failure ??= { error };
          })
          .finally(() => {
            active--;
            report();
            pump();
          });
      }
      if (active === 0 && (queue.length === 0 || failure !== undefined)) resolve();
    };
    pump();
  });
  if (failure !== undefined) throw failure.error;
  saturated.sort((a, b) => a.second - b.second);
  return { records: [...kept.values()], requests, saturated };
}
