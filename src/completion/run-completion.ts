// `payops completion SHELL`: walks the live commander tree this invocation was parsed with.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { completionScript, SHELLS, type Shell } from './scripts.js';
import { describeTree } from './tree.js';

export function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

export async function runCompletion(ctx: Context, shell: string, cmd: Command): Promise<number> {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`unsupported shell "${shell}"`, { hint: `choose one of ${SHELLS.join(', ')}` });
  }
  // The script as it is, on stdout (a shell sources it).
  ctx.io.stdout.write(completionScript(shell as Shell, describeTree(rootOf(cmd))));
  return 0;
}
