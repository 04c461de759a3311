// Whether what goes to stdout (tables, cards) is coloured: a leaf, so the look-up bundle that
// draws query tables does not take in the whole Context (scripts/lookup-bundle.js).
import type { GlobalOptions, Io } from '../io.js';

/**
 * Colour for what goes to stdout (tables, cards): ctx.color follows stderr, and stdout may be a
 * pipe or a file (--out) while stderr is a terminal — never coloured then (issue 27 item 10).
 */
export function stdoutColor(ctx: {
  color: boolean;
  io: Pick<Io, 'env' | 'stdout'>;
  globals: Pick<GlobalOptions, 'out'>;
}): boolean {
  if (!ctx.color || ctx.globals.out !== undefined) return false;
  const forced = ctx.io.env.FORCE_COLOR !== undefined && ctx.io.env.FORCE_COLOR !== '0';
  return forced || Boolean(ctx.io.stdout.isTTY);
}
