// The input's copy inside a run folder: pass 2, resumes and `runs show` read it, so editing the
// original mid-run cannot change what is sent. The copy is made and checked against the plan's
// SHA-256 before the run exists, so a file edited since it was checked leaves no run behind.
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { runsDir } from './paths.js';

/** The snapshot's name inside the run folder. */
export const SNAPSHOT_FILE = 'input.csv';

export interface StagedInput {
  /** Moves the checked copy into the run folder. */
  commit(runDirPath: string): Promise<void>;
  /** Removes the copy if it was not committed (always safe to call). */
  discard(): Promise<void>;
}

/**
 * Copy `source` next to the runs and check that it still hashes to `sha256` (with `hash`, the
 * reader's own SHA-256, so both sides agree on what a file's bytes are).
 */
export async function stageInput(
  stateDir: string,
  runId: string,
  source: { path: string; label: string },
  sha256: string,
  hash: (path: string) => Promise<string>,
): Promise<StagedInput> {
  await mkdir(runsDir(stateDir), { recursive: true, mode: 0o700 });
  const staging = join(runsDir(stateDir), `.input-${runId}-${process.pid}.csv`);
  const discard = () => rm(staging, { force: true });
  try {
    await copyFile(source.path, staging);
    if ((await hash(staging)) !== sha256) {
      throw new InputError(`${source.label} changed while payops was checking it; nothing was sent`, [], {
        hint: 'save and close the file (e.g. in Excel), then run again',
      });
    }
  } catch (err) {
    await discard();
    throw err;
  }
  return {
    commit: (dir) => rename(staging, join(dir, SNAPSHOT_FILE)),
    discard,
  };
}
