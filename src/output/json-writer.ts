// Streaming JSON array output: one object per line, valid JSON once end() has run, whatever the
// number of records, without holding them. bigint values are written as decimal strings. The
// controls JSON.stringify leaves raw (DEL, C1, bidi) are written as `\uNNNN` (quote.ts
// jsonTerminalSafe): the same data, and nothing in the file a terminal would act on (issue 24).

import { jsonTerminalSafe } from '../quote.js';
import { outputJsonReplacer } from '../redact.js';
import { openTextSink } from './sink.js';

export interface JsonWriter {
  ready: Promise<void>;
  write(record: unknown): Promise<void> | undefined;
  /** Flush; a file is moved into place (sink.ts). */
  end(): Promise<void>;
  /** A file left as it was, what was written thrown away (sink.ts). Does nothing after end(). */
  discard(): Promise<void>;
}

/** bigint as decimal text; card numbers and labelled security codes masked by key (issue 24). */
const replacer = outputJsonReplacer;

export function createJsonWriter(dest: NodeJS.WritableStream | string): JsonWriter {
  const sink = openTextSink(dest);
  let count = 0;
  let buffer = '';
  const flush = () => {
    const text = buffer;
    buffer = '';
    return text === '' ? undefined : sink.write(text);
  };
  return {
    ready: sink.ready,
    write(record) {
      buffer += `${count === 0 ? '[\n' : ',\n'}${jsonTerminalSafe(JSON.stringify(record, replacer))}`;
      count++;
      return buffer.length >= 64 * 1024 ? flush() : undefined;
    },
    async end() {
      buffer += count === 0 ? '[]\n' : '\n]\n';
      await flush();
      await sink.end();
    },
    discard: () => sink.discard(),
  };
}

export async function openJsonWriter(dest: NodeJS.WritableStream | string): Promise<JsonWriter> {
  const w = createJsonWriter(dest);
  await w.ready;
  return w;
}
