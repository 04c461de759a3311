// PAYOPS_HOME must be a folder payops can keep its configuration and runs in. A home that cannot
// work is refused before anything reads or writes it (exit 4): /proc/self made node's recursive
// mkdir spin at 94 % CPU forever (issue 24), a file or a read-only folder failed later and less
// clearly. A home that does not exist yet is fine when the folder it would be made in is.
import { accessSync, constants, type Stats, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { quoteName } from '../quote.js';

/** Kernel file systems (statfs f_type): a folder there looks writable and holds no files. */
const PSEUDO_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x1cd1, 'devpts'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
]);

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Why `dir` (an existing path) cannot be a home, or undefined. */
function problemOf(dir: string, st: Stats): string | undefined {
  if (!st.isDirectory()) return 'it is not a folder';
  try {
    const kind = PSEUDO_FS.get(Number(statfsSync(dir).type));
    if (kind !== undefined) return `it is on the kernel's ${kind} file system, which holds no files`;
  } catch {
    // statfs unavailable (not Linux): the write check below still applies.
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    return 'you cannot write to it';
  }
  return undefined;
}

/** Throws ConfigError (exit 4) when PAYOPS_HOME is set to something that cannot be a home. */
export function checkHome(env: NodeJS.ProcessEnv, cwd: string): void {
  const home = env.PAYOPS_HOME;
  if (!home) return;
  let problem: string | undefined;
  try {
    // Not there yet: judged by the nearest folder it would be made in.
    let at = resolve(cwd, home);
    let st = statOrUndefined(at);
    while (st === undefined && dirname(at) !== at) {
      at = dirname(at);
      st = statOrUndefined(at);
    }
    problem = st === undefined ? 'no folder on its path exists' : problemOf(at, st);
    if (problem && at !== resolve(cwd, home))
      problem = `${quoteName(at)}, where it would be made: ${problem}`;
  } catch (err) {
    problem = (err as Error).message;
  }
  if (problem === undefined) return;
  throw new ConfigError(
    `PAYOPS_HOME ${quoteName(home)} cannot hold payops's configuration and runs: ${problem}`,
    {
      hint: 'set PAYOPS_HOME to a folder of yours that you can write, or unset it (then ~/.config/payops and ~/.local/state/payops)',
    },
  );
}
