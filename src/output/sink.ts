// A text destination for streamed output: a file, or an existing stream such as stdout (never
// closed by us). Honours backpressure.
//
// A file is streamed to a private temporary file beside it (safe-file.ts: created 0600, never
// through a link) and renamed into place by `end()` — after a run that finished, failed or was
// interrupted alike, so the rows written so far are never lost; `discard()` instead removes it and
// leaves the destination as it was (the run never began). A process killed outright (SIGKILL)
// leaves the temporary file, `.NAME.payops-XXXXXXXX.tmp`, with the rows written so far.

import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsReason, LocalWriteError, UsageError } from '../errors.js';
import { syncFolder } from '../lifecycle/fs-sync.js';
import { replaceProblem, tempPathFor } from './safe-file.js';

export interface TextSink {
  /** Resolves once a file is open; rejects with a UsageError when it cannot be created or replaced. */
  ready: Promise<void>;
  /**
   * Write text; the promise, when returned, resolves once the destination can take more. After a
   * file's write failed, text is dropped and `end()` reports the failure.
   */
  write(text: string | Uint8Array): Promise<void> | undefined;
  /** Flush; a file is made durable and moved into place. LocalWriteError when it could not be written. */
  end(): Promise<void>;
  /** A file's temporary copy removed, the destination left as it was. Does nothing after `end()`. */
  discard(): Promise<void>;
}

export function openTextSink(dest: NodeJS.WritableStream | string): TextSink {
  return typeof dest === 'string' ? fileSink(dest) : streamSink(dest);
}

/** `text` as the whole of the file at `path`, the same way: temporary file, then rename. */
export async function writeWholeFile(path: string, text: string): Promise<void> {
  const sink = openTextSink(path);
  await sink.ready;
  await sink.write(text);
  await sink.end();
}

function streamSink(stream: NodeJS.WritableStream): TextSink {
  return {
    ready: Promise.resolve(),
    write(text) {
      if (stream.write(text)) return undefined;
      return new Promise<void>((resolve) => stream.once('drain', () => resolve()));
    },
    async end() {},
    async discard() {},
  };
}

function refusedSink(err: UsageError): TextSink {
  const ready = Promise.reject(err);
  ready.catch(() => {});
  return {
    ready,
    write() {
      throw err;
    },
    end: () => Promise.reject(err),
    async discard() {},
  };
}

function fileSink(dest: string): TextSink {
  const problem = replaceProblem(dest);
  if (problem !== undefined) return refusedSink(new UsageError(`cannot write ${dest}: it ${problem}`));
  const temp = tempPathFor(dest);
  // `wx`: O_CREAT|O_EXCL, which never follows a link; `flush`: fsync'd before it is closed.
  const stream = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true });
  let opened = false;
  let failure: Error | undefined;
  let settled = false;
  stream.on('error', (err) => {
    failure ??= err;
  });
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    stream.once('open', () => {
      opened = true;
      resolve();
    });
    stream.once('error', (err) => {
      if (!opened) reject(new UsageError(`cannot write ${dest}: ${fsReason(err)}`, { cause: err }));
    });
  });
  ready.catch(() => {});
  return {
    ready,
    write(text) {
      if (failure !== undefined) return undefined;
      if (stream.write(text)) return undefined;
      return new Promise<void>((resolve) => {
        const go = () => {
          stream.off('drain', go);
          stream.off('error', go);
          resolve();
        };
        stream.once('drain', go);
        stream.once('error', go);
      });
    },
    async end() {
      if (settled) return;
      settled = true;
      await ready;
      if (failure === undefined) stream.end();
      await closed;
      if (failure !== undefined) {
        // An incomplete results file is worse than none: the journal still has every row.
        await rm(temp, { force: true });
        throw new LocalWriteError(`cannot write the results to ${dest}: ${fsReason(failure)}`, {
          cause: failure,
          hint: 'make room or choose another --out; `payops runs show RUN-ID --out FILE` writes a run’s results again from its journal',
        });
      }
      await moveIntoPlace(temp, dest);
    },
    async discard() {
      if (settled) return;
      settled = true;
      stream.destroy();
      await closed;
      await rm(temp, { force: true });
    },
  };
}

async function moveIntoPlace(temp: string, dest: string): Promise<void> {
  // Checked again: the destination may have changed while the rows were written. rename() itself
  // replaces a link rather than writing through it, but a file that is not the user's stays.
  const problem = replaceProblem(dest);
  if (problem !== undefined) {
    throw new LocalWriteError(`the results were not moved to ${dest}: it ${problem}; they are in ${temp}`);
  }
  try {
    await rename(temp, dest);
  } catch (err) {
    throw new LocalWriteError(`cannot move the results to ${dest}: ${fsReason(err)}; they are in ${temp}`, {
      cause: err,
    });
  }
  await syncFolder(dirname(dest));
}
