// `payops __complete KIND`: the values a shell completes that only this machine knows — profile
// names (from the config file) and run ids (the names of the run folders, newest first; no journal
// is read, so it stays fast with many runs). One per line; nothing at all on any error, since a
// completion must never print an error into the user's command line.
import { readdir } from 'node:fs/promises';
import { readStoredConfig } from '../config/file.js';
import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { isRunId, runsDir } from '../lifecycle/paths.js';

export const VALUE_KINDS = ['profiles', 'runs'] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

async function values(ctx: Context, kind: string): Promise<string[]> {
  if (kind === 'profiles') return Object.keys(readStoredConfig(ctx.io.env).profiles ?? {});
  if (kind === 'runs') {
    const names = await readdir(runsDir(stateDir(ctx.io.env)));
    return names.filter(isRunId).sort().reverse();
  }
  return [];
}

export async function printValues(ctx: Context, kind: string): Promise<number> {
  let list: string[] = [];
  try {
    list = await values(ctx, kind);
  } catch {
    // No config file, no runs yet, an unreadable file: nothing to offer.
  }
  if (list.length > 0) ctx.io.stdout.write(`${list.join('\n')}\n`);
  return 0;
}
