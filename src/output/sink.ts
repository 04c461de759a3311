// A text destination for streamed output: a file (created, errors surface before any work is done
// via `ready`) or an existing stream such as stdout (never closed by us). Honours backpressure.

import { createWriteStream } from 'node:fs';
import { UsageError } from '../errors.js';

export interface TextSink {
  /** Resolves once a file is open; rejects with a UsageError when it cannot be created. */
  ready: Promise<void>;
  /** Write text; the promise, when returned, resolves once the destination can take more. */
  write(text: string): Promise<void> | undefined;
  /** Flush, and close a file we opened. */
  end(): Promise<void>;
}

export function openSink(dest: NodeJS.WritableStream | string): TextSink {
  const own = typeof dest === 'string';
  // Results name customers' orders and amounts: a file we create is readable by its owner only.
  const stream: NodeJS.WritableStream = own ? createWriteStream(dest, { flags: 'w', mode: 0o600 }) : dest;
  let failure: unknown;
  const ready = own
    ? new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', (err: Error) => {
          failure = new UsageError(`cannot write ${dest}: ${err.message}`, { cause: err });
          reject(failure);
        });
      })
    : Promise.resolve();
  ready.catch(() => {});
  return {
    ready,
    write(text) {
      if (failure) throw failure;
      if (stream.write(text)) return undefined;
      return new Promise<void>((resolve) => stream.once('drain', () => resolve()));
    },
    async end() {
      await ready;
      if (!own) return;
      await new Promise<void>((resolve, reject) => {
        stream.once('error', reject);
        stream.end(() => resolve());
      });
      if (failure) throw failure;
    },
  };
}
