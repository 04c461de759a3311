// Opens an address or a file in the user's browser with the platform's opener (xdg-open, open,
// rundll32 on Windows). Best effort: when there is no opener (a server, a container) it says so and
// the caller prints the address instead. A page payops made itself goes in a private temporary
// folder first.
//
// Never through a shell: the APM issuer_url comes from an answer the gateway does not sign, and
// `cmd /c start "" <url>` ran whatever followed an `&` in it. The opener gets the address as one
// argument (spawn, shell off), and an address is opened only when it is http: or https: — anything
// else (javascript:, file:, a custom protocol handler) is left for the user to look at.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Spawner = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** What to run it with; tests pass a platform and a spawn stand-in. */
export interface OpenDeps {
  platform?: NodeJS.Platform;
  spawn?: Spawner;
}

export function openerFor(platform: NodeJS.Platform): {
  command: string;
  args: (target: string) => string[];
} {
  if (platform === 'darwin') return { command: 'open', args: (t) => [t] };
  // The URL protocol handler of Windows itself: the address reaches it as an argument, no cmd.exe.
  if (platform === 'win32') return { command: 'rundll32', args: (t) => ['url.dll,FileProtocolHandler', t] };
  return { command: 'xdg-open', args: (t) => [t] };
}

/** The address as a URL when it is one a browser should be sent to (http or https), else undefined. */
export function browsableUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}

/**
 * What an opener needs of the environment to find and reach the user's browser, by name: the
 * program path, home and locale, the display (X11, Wayland, the session bus), the desktop it runs
 * in (xdg-open reads XDG_CURRENT_DESKTOP, DESKTOP_SESSION, KDE_FULL_SESSION …), BROWSER, and on
 * Windows the system folders rundll32 looks in.
 */
const OPENER_ENV = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'DBUS_SESSION_BUS_ADDRESS',
  'DESKTOP_SESSION',
  'KDE_FULL_SESSION',
  'KDE_SESSION_VERSION',
  'GNOME_DESKTOP_SESSION_ID',
  'BROWSER',
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  '__CF_USER_TEXT_ENCODING',
]);

/**
 * The opener's environment: only what OPENER_ENV and XDG_* / LC_* name. The browser outlives
 * payops and hands its environment on to whatever it starts, so the sign key (PAYOPS_SIGN_KEY),
 * the rest of PAYOPS_*, proxy credentials and any other secret of the shell stay behind (issue 24).
 */
export function openerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.toUpperCase().startsWith('PAYOPS_')) continue;
    const upper = name.toUpperCase();
    if (OPENER_ENV.has(upper) || upper.startsWith('XDG_') || upper.startsWith('LC_')) out[name] = value;
  }
  return out;
}

function start(target: string, env: NodeJS.ProcessEnv, deps: OpenDeps): Promise<boolean> {
  if (env.PAYOPS_NO_OPEN) return Promise.resolve(false);
  const { command, args } = openerFor(deps.platform ?? process.platform);
  const run = deps.spawn ?? (spawn as Spawner);
  return new Promise((resolve) => {
    try {
      const child = run(command, args(target), {
        detached: true,
        stdio: 'ignore',
        shell: false,
        env: openerEnv(env),
      });
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

/**
 * Opens a web address from an answer: 'refused' (nothing started) unless it is http(s), 'no-opener'
 * when no browser could be started (or PAYOPS_NO_OPEN is set), else 'opened'.
 */
export async function openUrl(
  address: string,
  env: NodeJS.ProcessEnv,
  deps: OpenDeps = {},
): Promise<'opened' | 'no-opener' | 'refused'> {
  const url = browsableUrl(address);
  if (url === undefined) return 'refused';
  return (await start(url.href, env, deps)) ? 'opened' : 'no-opener';
}

/**
 * Opens a file payops wrote itself (the checkout page). Resolves true once the opener started, false
 * when there is none (or PAYOPS_NO_OPEN is set).
 */
export function openInBrowser(target: string, env: NodeJS.ProcessEnv, deps: OpenDeps = {}): Promise<boolean> {
  return start(target, env, deps);
}

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
