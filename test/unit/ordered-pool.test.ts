import { describe, expect, it } from 'vitest';
import { runOrderedPool } from '../../src/ordered-pool.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function* slowSource(n: number, reads: number[]) {
  for (let i = 0; i < n; i++) {
    reads.push(i);
    yield i;
  }
}

describe('runOrderedPool', () => {
  it('bounds the jobs in flight and emits every result in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const emitted: Array<[number, number]> = [];
    await runOrderedPool<number, undefined, number>({
      source: [7, 1, 5, 2, 6, 1, 3, 1, 4],
      concurrency: 3,
      dispatch: (n) => ({
        job: async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await sleep(n);
          inFlight--;
          return n * 10;
        },
      }),
      emit: (n, r) => {
        emitted.push([n, r]);
      },
    });
    expect(peak).toBe(3);
    expect(emitted).toEqual([7, 1, 5, 2, 6, 1, 3, 1, 4].map((n) => [n, n * 10]));
  });

  it('results known at once take no slot and keep their place in the order', async () => {
    const emitted: string[] = [];
    let inFlight = 0;
    await runOrderedPool<number, undefined, string>({
      source: [1, 2, 3, 4, 5, 6],
      concurrency: 1,
      dispatch: (n) =>
        n % 2 === 0
          ? { now: `now ${n}` }
          : {
              job: async () => {
                inFlight++;
                expect(inFlight).toBe(1);
                await sleep(2);
                inFlight--;
                return `job ${n}`;
              },
            },
      emit: (_, r) => {
        emitted.push(r);
      },
    });
    expect(emitted).toEqual(['job 1', 'now 2', 'job 3', 'now 4', 'job 5', 'now 6']);
  });

  it('stages each batch of `concurrency` items early: the next ahead + 1 while one is dispatched', async () => {
    const events: string[] = [];
    await runOrderedPool<number, string, number>({
      source: [0, 1, 2, 3, 4, 5, 6, 7],
      concurrency: 2,
      ahead: 2,
      stage: async (batch) => {
        events.push(`stage ${batch.join(',')}`);
        return `staged ${batch.join(',')}`;
      },
      dispatch: (n, staged) => ({
        job: async () => {
          events.push(`run ${n} (${staged})`);
          await sleep(1);
          return n;
        },
      }),
      emit: () => {},
    });
    // Batch 0 and the next three are staged before its first item runs; every item sees its own
    // batch's staging.
    expect(events.slice(0, 5)).toEqual([
      'stage 0,1',
      'stage 2,3',
      'stage 4,5',
      'stage 6,7',
      'run 0 (staged 0,1)',
    ]);
    expect(events.filter((e) => e.startsWith('stage'))).toHaveLength(4);
    expect(events).toContain('run 7 (staged 6,7)');
  });

  it('stages batches of `stageSize` items when given: one stage for many more items than slots', async () => {
    const staged: string[] = [];
    const ran: number[] = [];
    await runOrderedPool<number, string, number>({
      source: Array.from({ length: 10 }, (_, i) => i),
      concurrency: 2,
      ahead: 1,
      stageSize: 4,
      stage: async (batch) => {
        staged.push(batch.join(','));
        return batch.join(',');
      },
      dispatch: (n, batch) => ({
        job: async () => {
          // Every item runs after its own batch was staged, whatever the batch's size.
          expect(batch!.split(',')).toContain(String(n));
          ran.push(n);
          await sleep(1);
          return n;
        },
      }),
      emit: () => {},
    });
    expect(staged).toEqual(['0,1,2,3', '4,5,6,7', '8,9']);
    expect(ran).toHaveLength(10);
  });

  it('a job that releases its slot early lets the next one start', async () => {
    const order: string[] = [];
    let releaseFirst: (() => void) | undefined;
    const firstDone = new Promise<void>((r) => {
      releaseFirst = r;
    });
    await runOrderedPool<number, undefined, number>({
      source: [1, 2],
      concurrency: 1,
      dispatch: (n) => ({
        job: async (release) => {
          order.push(`start ${n}`);
          if (n === 1) {
            release();
            await firstDone;
          } else releaseFirst!();
          order.push(`end ${n}`);
          return n;
        },
      }),
      emit: () => {},
    });
    expect(order).toEqual(['start 1', 'start 2', 'end 2', 'end 1']);
  });

  it('reads the source lazily: never more than the batches it may stage ahead', async () => {
    const reads: number[] = [];
    let emittedWhenFirstRan = -1;
    let emittedCount = 0;
    await runOrderedPool<number, undefined, number>({
      source: slowSource(100, reads),
      concurrency: 2,
      ahead: 1,
      stage: async () => undefined,
      dispatch: (n) => ({
        job: async () => {
          if (n === 0) emittedWhenFirstRan = reads.length;
          return n;
        },
      }),
      emit: () => {
        emittedCount++;
      },
    });
    // Batch 0 and the two after it (ahead 1, plus one refilled before dispatching): 3 batches of 2.
    expect(emittedWhenFirstRan).toBe(6);
    expect(emittedCount).toBe(100);
  });

  it('without a stage, an item is dispatched as soon as it is read, not after `concurrency` more', async () => {
    // A source still being produced (the look-ups cut as pass 1 reads): one item every 2 ms. Read
    // `concurrency` at a time, the first job waited for 16 items to exist.
    const queue: number[] = [];
    let produced = 0;
    let wake: (() => void) | undefined;
    const timer = setInterval(() => {
      queue.push(produced++);
      wake?.();
      if (produced === 20) clearInterval(timer);
    }, 2);
    async function* source(): AsyncGenerator<number> {
      for (let n = 0; n < 20; n++) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        yield queue.shift()!;
      }
    }
    const producedAtStart: number[] = [];
    const emitted: number[] = [];
    await runOrderedPool<number, undefined, number>({
      source: source(),
      concurrency: 16,
      dispatch: (n) => ({
        job: async () => {
          producedAtStart[n] = produced;
          return n;
        },
      }),
      emit: (_, n) => {
        emitted.push(n);
      },
    });
    expect(producedAtStart[0]).toBe(1);
    expect(Math.max(...producedAtStart.map((p, n) => p - n))).toBeLessThanOrEqual(2);
    expect(emitted).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('a rejected job rejects the pool once the results before it are emitted', async () => {
    const emitted: number[] = [];
    await expect(
      runOrderedPool<number, undefined, number>({
        source: [1, 2, 3],
        concurrency: 1,
        dispatch: (n) => ({
          job: async () => {
            if (n === 2) throw new Error('boom');
            return n;
          },
        }),
        emit: (n) => {
          emitted.push(n);
        },
      }),
    ).rejects.toThrow('boom');
    expect(emitted).toEqual([1]);
  });
});
