#!/usr/bin/env node
// Bundles src/ into dist/ with esbuild. One bundle (plus a chunk per lazily imported command
// implementation) loads measurably faster than ~20 separate ESM files, and `payops --help` is
// started thousands of times by scripts. commander is bundled because every invocation needs it;
// the other dependencies stay external and are imported only by the commands that use them.
// Type checking is `npm run typecheck` (tsc --noEmit).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = (await import('../package.json', { with: { type: 'json' } })).default;
const external = Object.keys(pkg.dependencies).filter((name) => name !== 'commander');

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
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
