// Where configuration and state live. PAYOPS_HOME puts both under one folder; otherwise the XDG
// locations (~/.config/payops, ~/.local/state/payops) or their platform equivalents.
import { homedir } from 'node:os';
import { join } from 'node:path';

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** Folder of config.json. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PAYOPS_HOME) return env.PAYOPS_HOME;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'payops');
  return join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'payops');
}

export function configFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

/** Folder of journals and other state (runs). */
export function stateDir(env: NodeJS.ProcessEnv): string {
  if (env.PAYOPS_HOME) return join(env.PAYOPS_HOME, 'state');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'payops', 'state');
  return join(env.XDG_STATE_HOME || join(home(env), '.local', 'state'), 'payops');
}
