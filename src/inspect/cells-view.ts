// `payops inspect --cells`: the events of cells.ts written out as they come. JSON (the shape a
// test relies on, docs/inspect.md): {"file": …, "sheets": [{"name": …, "hidden": bool, "rows":
// [[…], …]}]}, one row a line; otherwise, for a person, each sheet's non-empty cells by reference.
import { openTextSink } from '../output/sink.js';
import { jsonTerminalSafe, quote } from '../quote.js';
import { columnLetters } from '../sheets/workbook.js';
import type { CellsEvent } from './cells.js';

/** Text gathered before it is written (one write per this much, not one per row). */
const FLUSH_AT = 64 * 1024;

/**
 * Writes `events` to `out` (a stream, or a file's path: --out, moved into place only once all is
 * written); returns once all is written. A refusal met on the way leaves a file as it was.
 */
export async function writeCells(
  out: NodeJS.WritableStream | string,
  file: string,
  events: AsyncIterable<CellsEvent>,
  format: 'json' | 'text',
): Promise<void> {
  const sink = openTextSink(out);
  await sink.ready;
  let buffer = '';
  const put = async (text: string) => {
    buffer += text;
    if (buffer.length >= FLUSH_AT) {
      const text = buffer;
      buffer = '';
      await sink.write(text);
    }
  };
  const json = (v: unknown) => jsonTerminalSafe(JSON.stringify(v));
  let sheets = 0;
  let rows = 0;
  let row = 0;
  try {
    if (format === 'json') await put(`{"file":${json(file)},"sheets":[`);
    for await (const e of events) {
      if (e.kind === 'sheet') {
        if (format === 'json') {
          await put(`${sheets > 0 ? ']},' : ''}\n{"name":${json(e.name)},"hidden":${e.hidden},"rows":[`);
        } else await put(`${sheets > 0 ? '\n' : ''}sheet ${quote(e.name)}${e.hidden ? ' (hidden)' : ''}\n`);
        sheets++;
        rows = 0;
        row = 0;
        continue;
      }
      row++;
      if (format === 'json') {
        await put(`${rows > 0 ? ',' : ''}\n${json(e.cells)}`);
        rows++;
      } else {
        for (let i = 0; i < e.cells.length; i++) {
          const v = e.cells[i]!;
          if (v !== '') await put(`  ${`${columnLetters(i)}${row}`.padEnd(7)} ${quote(v)}\n`);
        }
      }
    }
    if (format === 'json') await put(`${sheets > 0 ? ']}' : ''}\n]}\n`);
  } catch (err) {
    await sink.discard();
    throw err;
  }
  await sink.write(buffer);
  await sink.end();
}
