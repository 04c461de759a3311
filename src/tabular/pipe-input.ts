// An input given as a pipe — a named FIFO, or bash's `<(cat f.csv)` (/dev/fd/63) — can be read only
// once, but a file is read several times (its kind from the first bytes, pass 1, the run's input
// copy, the decimal mark of a payout file). A FIFO so opened twice hung; /dev/fd/63 read "empty"
// the second time (issue 24). A pipe is therefore read once, into a private temporary copy that
// every later read uses; a device that is neither a file nor a pipe (/dev/null, a terminal) is
// refused, saying so. A regular file, a folder or a missing path is left to the reader's own words.
import { createReadStream, createWriteStream, type Stats } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { InputError } from '../errors.js';
import type { Invocation } from '../io.js';
import { quoteName } from '../quote.js';

/** What `path` is, when it is not something the reader opens as it stands. */
function kindOf(st: Stats): 'pipe' | 'device' | undefined {
  if (st.isFIFO()) return 'pipe';
  if (st.isCharacterDevice() || st.isBlockDevice() || st.isSocket()) return 'device';
  return undefined;
}

/**
 * The path to read `label` (resolved as `path`) from: `path` itself, or for a pipe a private copy
 * of everything it carried (removed when the command ends). Throws InputError (exit 2) for a device.
 */
export async function readOncePath(
  ctx: Pick<Invocation, 'onClose' | 'log'>,
  path: string,
  label: string,
  flag = '--file',
): Promise<string> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch {
    return path; // the reader says what is wrong with it
  }
  const kind = kindOf(st);
  if (kind === undefined) return path;
  if (kind === 'device') {
    throw new InputError(
      `${quoteName(label)} is not a file or a pipe (a device): nothing to read from it`,
      [
        {
          file: label,
          line: 1,
          message: 'not a file or a pipe',
          expected: 'a CSV file or an .xlsx workbook',
        },
      ],
      { hint: `give ${flag} a CSV file, or a pipe that carries one (${flag} <(command))` },
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'payops-pipe-'));
  ctx.onClose(() => rm(dir, { recursive: true, force: true }));
  const copy = join(dir, 'input');
  await pipeline(createReadStream(path), createWriteStream(copy, { mode: 0o600 }));
  ctx.log.info(`${quoteName(label)} is a pipe: read once, to its end, and read from that copy from then on`);
  return copy;
}
