// Where runs live: `<stateDir>/runs/<runId>/` holds a run's journal, its lock and its input copy.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

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
