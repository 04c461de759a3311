// The input's copy inside a run folder: pass 2, resumes and `runs show` read it, so editing the
// original mid-run cannot change what is sent. The copy is made and checked against the plan's
// SHA-256 before the run exists, so a file edited since it was checked leaves no run behind; it is
// private (0600) and durable (fsync'd, with its folder) before anything is sent, and checked
// against the same SHA-256 again before a resume or `runs show` reads it.
import { access, chmod, constants, copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, InputError } from '../errors.js';
import { syncFolder } from './fs-sync.js';
import { runsDir, SNAPSHOT_FILE, stateWriteError } from './paths.js';
import type { RunHeader } from './records.js';

export { SNAPSHOT_FILE };

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
  const staging = join(runsDir(stateDir), `.input-${runId}-${process.pid}.csv`);
  const discard = () => rm(staging, { force: true });
  try {
    try {
      await mkdir(runsDir(stateDir), { recursive: true, mode: 0o700 });
      await copyFile(source.path, staging);
      await chmod(staging, 0o600);
      const fh = await open(staging, 'r');
      try {
        await fh.datasync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      // The copy failed on its writing side (a full disk) unless the input itself is gone.
      const readable = await access(source.path, constants.R_OK).then(
        () => true,
        () => false,
      );
      throw readable ? stateWriteError(err, stateDir) : err;
    }
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
    async commit(dir) {
      try {
        await rename(staging, join(dir, SNAPSHOT_FILE));
      } catch (err) {
        throw stateWriteError(err, stateDir);
      }
      await syncFolder(dir);
    },
    discard,
  };
}

/** Whether a run's input copy is still the file that run planned (same SHA-256 as its header says). */
export async function snapshotIntact(
  run: { dir: string; header: RunHeader },
  hash: (path: string) => Promise<string>,
): Promise<boolean> {
  try {
    return (await hash(join(run.dir, run.header.snapshot ?? SNAPSHOT_FILE))) === run.header.sha256;
  } catch {
    return false;
  }
}

/**
 * The path of a run's input copy, checked against the SHA-256 its header recorded: a copy cut short
 * (a crash before it reached the disk, a full disk) or changed would make a resume finish the run
 * on other rows than were planned, and `runs show` report other rows. ConfigError (exit 4) when it
 * does not match; nothing is sent. A resume given the original file restores the copy instead.
 */
export async function checkedSnapshot(
  run: { dir: string; header: RunHeader },
  hash: (path: string) => Promise<string>,
): Promise<string> {
  if (await snapshotIntact(run, hash)) return join(run.dir, run.header.snapshot ?? SNAPSHOT_FILE);
  const { runId, op, label, file } = run.header;
  const again = file
    ? `payops ${op} --file ${label ?? file} --resume: given the original file, payops restores its copy`
    : `check what run ${runId} did at the gateway (payops query, refunds search) before anything else`;
  throw new ConfigError(
    `the input copy of run ${runId} in ${run.dir} is not the file that run planned (its SHA-256 differs); nothing was sent`,
    { hint: again },
  );
}
