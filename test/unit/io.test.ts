import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { guardOutput, outputSettled } from '../../src/io.js';

/** A pipe whose reader is gone after `ok` writes: the next one fails with EPIPE. */
function pipeClosingAfter(ok: number): Writable & { got: string[] } {
  const got: string[] = [];
  const w = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, done) {
      if (got.length >= ok) {
        const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        done(err);
        return;
      }
      got.push(chunk.toString());
      setImmediate(done);
    },
  });
  return Object.assign(w, { got });
}

describe('guardOutput (issue 13, item 1)', () => {
  it('EPIPE: no error thrown, a writer waiting for room goes on, later writes are dropped', async () => {
    const stream = pipeClosingAfter(1);
    const state = guardOutput(stream);
    expect(guardOutput(stream)).toBe(state);
    stream.write('one\n');
    // Backpressure (highWaterMark 1): the writer waits for 'drain', which a closed pipe never sends.
    const full = !stream.write('two\n');
    if (full) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
    await outputSettled(stream);
    expect(state.closed).toBe(true);
    expect(state.error).toBeUndefined();
    expect(stream.write('three\n')).toBe(true);
    await new Promise<void>((resolve) => stream.write('four\n', () => resolve()));
    expect(stream.got).toEqual(['one\n']);
  });

  it('another write error (a full disk) closes it too, and is kept to be reported', async () => {
    const stream = new Writable({
      write(_c, _e, done) {
        done(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
      },
    });
    const state = guardOutput(stream);
    stream.write('x');
    await outputSettled(stream);
    expect(state.closed).toBe(true);
    expect((state.error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  });
});
