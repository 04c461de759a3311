// A small ordered pool: items from a (possibly async, possibly huge) source run with bounded
// concurrency, and their results are emitted strictly in input order. The
// bulk engine and query's look-ups both use it; what an item means is theirs, not the pool's.
//
// With a `stage`, items are read `stageSize` at a time (default `concurrency`) and each batch is
// staged (the bulk engine writes the intents of a whole batch with one fsync there) before it is
// dispatched: while one batch is being dispatched, the next `ahead + 1` are already read and
// staged, so that the staging overlaps work in flight instead of holding up the next free slot.
// Without one, each item is dispatched as soon as it is read.

/**
 * What `dispatch` decides for one item: a result known now, or a job that needs a slot. A job that
 * released its slot early and has more to send takes one again with `reacquire` (and must call the
 * release it returns).
 */
export type Dispatch<R> =
  | { now: R }
  | { job: (release: () => void, reacquire: () => Promise<() => void>) => Promise<R> };

export interface OrderedPoolOptions<T, S, R> {
  source: AsyncIterable<T> | Iterable<T>;
  /** Jobs in flight at most. */
  concurrency: number;
  /** Run once per batch, before its items are dispatched. */
  stage?: (batch: readonly T[]) => Promise<S>;
  /** Read-ahead: while a batch is dispatched, `ahead + 1` later batches are staged (default 0). */
  ahead?: number;
  /** Items per staged batch (default `concurrency`). */
  stageSize?: number;
  /**
   * Decide one item, in input order. A job is started once a slot is free; it may call `release`
   * to free its slot early (its remaining work then no longer counts against `concurrency`), and
   * its slot is freed when it settles in any case.
   */
  dispatch: (item: T, staged: S | undefined) => Dispatch<R>;
  /** Every item's result, in input order. */
  emit: (item: T, result: R) => void | Promise<void>;
  /** Results held back behind a slow earlier item before the pool waits for it (default concurrency*8+8). */
  window?: number;
}

/**
 * Runs every item of `source` and emits every result in order. A job that rejects rejects the
 * pool (after the jobs before it have been emitted); callers that must go on catch inside the job.
 */
export async function runOrderedPool<T, S, R>(opts: OrderedPoolOptions<T, S, R>): Promise<void> {
  const concurrency = Math.max(1, opts.concurrency);
  const window = opts.window ?? concurrency * 8 + 8;
  const ahead = opts.ahead ?? 0;

  // Slots.
  let inFlight = 0;
  const slotWaiters: Array<() => void> = [];
  const acquire = async () => {
    while (inFlight >= concurrency) await new Promise<void>((r) => slotWaiters.push(r));
    inFlight++;
  };
  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      inFlight--;
      slotWaiters.shift()?.();
    };
  };
  const reacquire = async () => {
    await acquire();
    return releaser();
  };

  // Results waiting to be emitted in order.
  interface Entry {
    item: T;
    promise: Promise<R>;
    settled: boolean;
  }
  const queue: Entry[] = [];
  const push = (item: T, promise: Promise<R>) => {
    const entry: Entry = { item, promise, settled: false };
    const settle = () => {
      entry.settled = true;
    };
    promise.then(settle, settle);
    queue.push(entry);
  };
  const flush = async (all: boolean) => {
    while (queue.length > 0 && (all || queue.length > window || queue[0]!.settled)) {
      const head = queue.shift()!;
      await opts.emit(head.item, await head.promise);
    }
  };

  // Reading ahead, in batches.
  const source =
    Symbol.asyncIterator in opts.source
      ? (opts.source as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (opts.source as Iterable<T>)[Symbol.iterator]();
  let exhausted = false;
  // Without a stage there is nothing to overlap by reading ahead: each item is dispatched as soon
  // as it is read. A source still being produced (the look-ups cut while pass 1 reads the file,
  // look-ahead.ts) otherwise waited for `concurrency` more items, twice, before its first request.
  const readSize = opts.stage ? Math.max(1, opts.stageSize ?? concurrency) : 1;
  const readBatch = async (): Promise<T[]> => {
    const batch: T[] = [];
    while (!exhausted && batch.length < readSize) {
      const next = await source.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      batch.push(next.value);
    }
    return batch;
  };
  const pipeline: Array<{ batch: T[]; staging: Promise<S | undefined> }> = [];
  const refill = async () => {
    while (pipeline.length <= ahead && !exhausted) {
      const batch = await readBatch();
      if (batch.length === 0) break;
      pipeline.push({ batch, staging: opts.stage ? opts.stage(batch) : Promise.resolve(undefined) });
    }
  };

  await refill();
  while (pipeline.length > 0) {
    const { batch, staging } = pipeline.shift()!;
    const staged = await staging;
    if (opts.stage) await refill();
    for (const item of batch) {
      const d = opts.dispatch(item, staged);
      if ('now' in d) push(item, Promise.resolve(d.now));
      else {
        await acquire();
        const release = releaser();
        const promise = d.job(release, reacquire);
        promise.then(release, release);
        push(item, promise);
      }
      await flush(false);
    }
    if (!opts.stage) await refill();
  }
  await flush(true);
}
