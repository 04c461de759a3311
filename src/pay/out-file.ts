// --out is checked before money moves: a result file that cannot be written must not turn a made
// payment into an error after the fact.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';

export async function assertOutWritable(cwd: string, out: string | undefined): Promise<void> {
  if (out === undefined) return;
  try {
    await access(dirname(resolve(cwd, out)), constants.W_OK);
  } catch {
    throw new UsageError(
      `cannot write --out ${out}: its folder does not exist or is not writable; nothing was sent`,
    );
  }
}
