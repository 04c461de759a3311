import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { whenAborted } from '../../../src/gateway/abort-watch.js';

/** V8's collector, reachable from a test without --expose-gc on the command line. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A callback holding `payload`, built in a scope of its own (as exchange.ts's closures hold a request). */
function holding(payload: object, calls: string[]): () => void {
  return () => calls.push(String(Object.keys(payload).length));
}

describe('whenAborted', () => {
  it('calls back once when the signal aborts, never after the watch was stopped, at once if aborted already', () => {
    const ctl = new AbortController();
    const calls: string[] = [];
    whenAborted(ctl.signal, () => calls.push('kept'));
    const stop = whenAborted(ctl.signal, () => calls.push('stopped'));
    stop();
    ctl.abort();
    ctl.abort();
    expect(calls).toEqual(['kept']);
    whenAborted(ctl.signal, () => calls.push('late'));
    expect(calls).toEqual(['kept', 'late']);
  });

  it('leaves no listener on the signal once stopped, however many requests came and went', () => {
    const ctl = new AbortController();
    for (let i = 0; i < 1000; i++) whenAborted(ctl.signal, () => {})();
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('a listener the signal kept after the watch was stopped holds nothing of the callback', async () => {
    // node's EventTarget leaves a removed listener linked to the next one: whatever a stale listener
    // reaches, V8's young-generation collections keep (docs/performance.md). Here the test keeps it.
    const gc = collector();
    const ctl = new AbortController();
    const calls: string[] = [];
    let payload: object | undefined = { rows: new Array(1000).fill('row') };
    const ref = new WeakRef(payload);
    const stop = whenAborted(ctl.signal, holding(payload, calls));
    const [stale] = getEventListeners(ctl.signal, 'abort');
    stop();
    payload = undefined;
    // A WeakRef's target stays alive until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(ref.deref()).toBeUndefined();
    // The stale listener, called anyway, does nothing.
    (stale as () => void)();
    expect(calls).toEqual([]);
  });
});
