// The card-data guard on the raw argv of every command (src/argv-guard.ts): it runs before the
// command, its options or commander's own error messages see anything, so card data typed as an
// argument is refused (exit 2) even where commander would have echoed it.
import type { Command } from 'commander';

/** Commander keeps the argv it parsed as `rawArgs`, which its typings leave out. */
function rawArgsOf(cmd: Command): readonly string[] {
  const raw: unknown = Reflect.get(cmd, 'rawArgs');
  return Array.isArray(raw) ? raw : [];
}

export function registerArgvGuard(program: Command): void {
  program.hook('preSubcommand', async (root, sub) => {
    const { refuseCardArguments } = await import('../argv-guard.js');
    refuseCardArguments(rawArgsOf(root), sub.name());
  });
}
