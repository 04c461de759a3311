// The rules for a file payops writes at a path the user gave (--out): it is written to a private
// temporary file beside it (created 0600 with O_EXCL, so never through a link) and renamed into
// place, and an existing file there is replaced only when it is a regular file of the user's own —
// not a link (payops never writes through one), folder, device or pipe, and never one of the
// command's inputs. `checkOutFile` applies them before anything is sent; sink.ts writes that way.
import { randomBytes } from 'node:crypto';
import { constants, lstatSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { configFile, stateDir } from '../config/paths.js';
import { UsageError } from '../errors.js';

/** An input of the command that --out must not be: its flag and the path as typed. */
export interface CommandInput {
  flag: string;
  path: string | undefined;
}

/** `path` with its existing part's links resolved (what it names, however it is spelled). */
function realOf(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return path;
      rest.push(basename(at));
      at = up;
    }
  }
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Why an existing `path` must not be replaced ("is a symbolic link (to …)"), or undefined when it
 * may be: it does not exist, or it is a regular file of this user's.
 */
export function replaceProblem(path: string): string | undefined {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) {
    let to = '';
    try {
      to = ` (to ${readlinkSync(path)})`;
    } catch {
      // unreadable link: named without its target
    }
    return `is a symbolic link${to}: payops does not write through links`;
  }
  if (st.isDirectory()) return 'is a folder, not a file';
  if (!st.isFile()) return 'is a device, pipe or socket, not a regular file';
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    return `belongs to another user (uid ${st.uid}): payops replaces only files of your own`;
  }
  return undefined;
}

/** The temporary file beside `target` that is renamed onto it: `.results.csv.payops-1a2b3c4d.tmp`. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.payops-${randomBytes(4).toString('hex')}.tmp`);
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * Before anything is sent: `--out` is not one of `inputs` (by path, or the same file through a link),
 * may be replaced (replaceProblem), and its folder exists and is writable. UsageError (exit 2).
 */
export async function checkOutFile(
  cwd: string,
  out: string | undefined,
  inputs: readonly CommandInput[],
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (out === undefined) return;
  const target = resolve(cwd, out);
  // payops's own files (a run's journal, config.json) are the user's too, so the checks below would
  // let results replace them: a journal replaced so stopped every later run of that PAYOPS_HOME.
  // Only the state folder and the config file: results beside them in PAYOPS_HOME are fine.
  const real = realOf(target);
  const state = resolve(cwd, stateDir(env));
  const own = inside(real, realOf(state))
    ? `inside ${state}, where payops keeps its run journals`
    : real === realOf(resolve(cwd, configFile(env)))
      ? "payops's configuration file"
      : undefined;
  if (own !== undefined) {
    throw new UsageError(`--out ${out} is ${own}; nothing was sent`, {
      hint: "write the results somewhere else (a run's results can be written again later with payops runs show RUN-ID --out FILE)",
    });
  }
  // Following links on both sides: a hard link or a symbolic link to the input is the input.
  let outStat: Stats | undefined;
  try {
    outStat = statSync(target);
  } catch {
    // nothing there yet (or a dangling link, refused below)
  }
  for (const input of inputs) {
    if (input.path === undefined || input.path === '-') continue;
    const source = resolve(cwd, input.path);
    let same = source === target;
    if (!same && outStat) {
      try {
        same = sameFile(outStat, statSync(source));
      } catch {
        // an input that cannot be read is reported by its own reader
      }
    }
    if (same) {
      throw new UsageError(
        `--out ${out} is the same file as ${input.flag} ${input.path}: the results would replace the input; nothing was sent`,
        { hint: 'write the results to another file' },
      );
    }
  }
  const problem = replaceProblem(target);
  if (problem !== undefined) {
    throw new UsageError(`--out ${out} ${problem}; nothing was sent`, {
      hint: 'give the path of a new file, or of a regular file of yours to replace (without --out, results go to stdout)',
    });
  }
  try {
    await access(dirname(target), constants.W_OK);
  } catch {
    throw new UsageError(
      `cannot write --out ${out}: its folder does not exist or is not writable; nothing was sent`,
    );
  }
}
