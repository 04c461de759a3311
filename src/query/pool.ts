// Query's look-ups in parallel: at most `limit` calls of `fn` in flight, results in input order
// (the ordered pool the bulk engine uses). After the first failure no new call starts; the calls in
// flight are awaited, then the first error is thrown.
import { runOrderedPool } from '../ordered-pool.js';

export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let failure: { error: unknown } | undefined;
  await runOrderedPool<number, undefined, void>({
    source: items.keys(),
    concurrency: Math.min(limit, Math.max(1, items.length)),
    dispatch: (i) => ({
      job: async () => {
        if (failure !== undefined) return;
        try {
          results[i] = await fn(items[i]!, i);
        } catch (error) {
          failure ??= { error };
        }
      },
    }),
    emit: () => {},
    // Results are kept until the end anyway: never hold dispatching back behind a slow first call.
    window: items.length,
  });
  if (failure !== undefined) throw failure.error;
  return results;
}
