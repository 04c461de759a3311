// The card-data guard on the raw argv of every command (src/argv-guard.ts): it runs before the
// command, its options or commander's own error messages see anything, so card data typed as an
// argument is refused (exit 2) even where commander would have echoed it.
import type { Command } from 'commander';

/** Commander keeps the argv it parsed as `rawArgs`, which its typings leave out. */
function rawArgsOf(cmd: Command): readonly string[] {
  const raw: unknown = Reflect.get(cmd, 'rawArgs');
  return Array.isArray(raw) ? raw : [];
}

/** `cwd`: where relative paths are, so that an existing file's name is not taken for a card number. */
export function registerArgvGuard(program: Command, cwd: string): void {
  program.hook('preSubcommand', async (root, sub) => {
    const [{ refuseCardArguments }, { existsSync }, { resolve }] = await Promise.all([
      import('../argv-guard.js'),
      import('node:fs'),
      import('node:path'),
    ]);
    refuseCardArguments(rawArgsOf(root), sub.name(), (p) => existsSync(resolve(cwd, p)));
  });
}
