// Opens an address or a file in the user's browser with the platform's opener (xdg-open, open,
// start). Best effort: when there is no opener (a server, a container) it says so and the caller
// prints the address instead. A page payops made itself goes in a private temporary folder first.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `html` in a new private folder (mkdtemp: 0700, a random name) of the system's temporary folder,
 * as `name`, 0600: no other user can read it, or put a file of theirs where payops writes. Left
 * for the browser to open after payops has exited. Resolves to the file's path.
 */
export async function writeTempPage(name: string, html: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'payops-checkout-'));
  const path = join(dir, name.replace(/[^A-Za-z0-9_.-]/g, '_'));
  await writeFile(path, html, { flag: 'wx', mode: 0o600 });
  return path;
}

export function openerFor(platform: NodeJS.Platform): {
  command: string;
  args: (target: string) => string[];
} {
  if (platform === 'darwin') return { command: 'open', args: (t) => [t] };
  if (platform === 'win32') return { command: 'cmd', args: (t) => ['/c', 'start', '""', t] };
  return { command: 'xdg-open', args: (t) => [t] };
}

/** Resolves true once the opener started, false when there is none (or PAYOPS_NO_OPEN is set). */
export function openInBrowser(target: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (env.PAYOPS_NO_OPEN) return Promise.resolve(false);
  const { command, args } = openerFor(process.platform);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args(target), { detached: true, stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
