// Durability of a folder's entries, shared by the run journal (a new run's files) and the results
// file (its rename into place). A leaf: imports nothing from src/.
import { open } from 'node:fs/promises';

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
