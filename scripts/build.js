#!/usr/bin/env node
// Bundles src/ into dist/ with esbuild. One bundle (plus a chunk per lazily imported command
// implementation) loads measurably faster than ~20 separate ESM files, and `payops --help` is
// started thousands of times by scripts. commander is bundled because every invocation needs it;
// the other dependencies stay external and are imported only by the commands that use them.
// Type checking is `npm run typecheck` (tsc --noEmit).
import { renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = (await import('../package.json', { with: { type: 'json' } })).default;
const external = Object.keys(pkg.dependencies).filter((name) => name !== 'commander');

// Build beside dist/ and swap it in at the end, so a binary already running from dist/ (a test in
// another terminal) never sees a half-written or missing bundle.
const dist = new URL('../dist', import.meta.url);
const fresh = new URL(`../dist.new-${process.pid}`, import.meta.url);
const stale = new URL(`../dist.old-${process.pid}`, import.meta.url);
await build({
  entryPoints: ['src/cli.ts'],
  outdir: fresh.pathname,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // commander is CommonJS: give the ESM bundle a real `require` for node built-ins.
  banner: {
    js: "import { createRequire as __payopsRequire } from 'node:module'; const require = __payopsRequire(import.meta.url);",
  },
});
try {
  renameSync(dist, stale);
} catch {
  // no previous build
}
renameSync(fresh, dist);
rmSync(stale, { recursive: true, force: true });
