// Where runs live: `<stateDir>/runs/<runId>/` holds a run's journal, its lock and its input copy;
// and how a failure to write there is told (stateWriteError).
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fsReason, LocalWriteError, PayopsError, UsageError } from '../errors.js';

export const JOURNAL_FILE = 'journal.jsonl';
/** The input's copy inside a run folder (snapshot.ts). */
export const SNAPSHOT_FILE = 'input.csv';

export function runsDir(stateDir: string): string {
  return join(stateDir, 'runs');
}

export function runDir(stateDir: string, runId: string): string {
  return join(runsDir(stateDir), runId);
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** `20261122-013045-ab12`: UTC time first so ids sort by creation time. */
export function newRunId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2026-11-22T01:30:45.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export function isRunId(s: string): boolean {
  return RUN_ID.test(s);
}

export async function assertRunExists(path: string, runId: string): Promise<void> {
  try {
    await stat(path);
  } catch {
    throw new UsageError(`there is no run ${runId}`, { hint: 'see `payops runs list`' });
  }
}

/**
 * A failed write under the state folder `dir` (creating a run, its lock, its input copy, its
 * journal), in words: LocalWriteError, exit 4. Nothing is sent without a journal. `runId` names the
 * run when one had begun (a disk that filled mid-run): it is resumed once the cause is fixed.
 * Errors of payops's own (a lock in use) and errors that are not the file system's pass unchanged.
 */
export function stateWriteError(err: unknown, dir: string, runId?: string): unknown {
  if (err instanceof PayopsError || typeof (err as NodeJS.ErrnoException | undefined)?.code !== 'string') {
    return err;
  }
  const fix =
    'make that folder writable by you and make room on its disk, or set PAYOPS_HOME to a folder you can write';
  return new LocalWriteError(
    `cannot write the run journal in ${dir}: ${fsReason(err)}${runId ? '; the run stopped sending' : '; nothing was sent'}`,
    {
      cause: err,
      hint: runId
        ? `${fix}, then \`payops runs resume ${runId}\`: rows whose answer was not journaled are asked at the gateway first, never sent twice`
        : fix,
    },
  );
}

/** `fn`, with a failed write under `dir` said as stateWriteError says it. */
export async function writingState<T>(dir: string, fn: () => Promise<T>, runId?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw stateWriteError(err, dir, runId);
  }
}
