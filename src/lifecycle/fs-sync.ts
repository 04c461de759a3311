// Durability of a folder's entries, shared by the run journal (a new run's files) and the results
// file (its rename into place); a file's size if it exists (the JSONL readers). A leaf: imports
// nothing from src/.
import { open, stat } from 'node:fs/promises';

/**
 * Best effort: makes a file just created or renamed in `dir` durable (its directory entry survives
 * a crash); not every platform lets a folder be fsync'd, and then this does nothing.
 */
export async function syncFolder(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // best effort
  }
}

/** A file's size in bytes; undefined when it does not exist (any other failure is thrown). */
export async function sizeIfExists(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
