// Writing the config file: JSON with tabs and no final newline (the layout the `conf` package wrote,
// which payops used before, so a file either wrote reads the same), written whole to a temporary file
// beside it, flushed, then renamed over it, so a crash or a full disk never leaves half a file.
// Created with mode 0600 and set to it after the rename (an existing file keeps its mode across a
// rename on some systems). A config.json that is a link (into a dotfiles repo, say) is written
// through: the file it points to is replaced, the link stays, as the `conf` package did. A leaf:
// imports nothing from src/.
import {
  chmodSync,
  closeSync,
  fsyncSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The text `value` is stored as. */
export function serializeConfig(value: unknown): string {
  return JSON.stringify(value, undefined, '\t');
}

/** Replaces `path` with `value` as JSON, atomically, the file's mode `mode` (not on Windows). */
export function writeJsonAtomic(linkOrPath: string, value: unknown, mode: number): void {
  const path = realPath(linkOrPath);
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${Date.now().toString(36)}`);
  const data = Buffer.from(serializeConfig(value), 'utf8');
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      let at = 0;
      while (at < data.length) at += writeSync(fd, data, at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  if (process.platform !== 'win32') chmodSync(path, mode);
}

/** The file `path` names, links followed; `path` itself while it does not exist yet. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return path;
    throw err;
  }
}
