// package.json's `dependencies` are exactly the packages the shipped code loads at run time: read
// from dist/ itself (every import and require in it, parsed by esbuild), not from src/, since the
// build bundles some packages in. Bundled ones are devDependencies, their versions in
// dist/bundled.json (`payops --version --verbose`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** `@scope/name/x` → @scope/name, `name/x` → name. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Every package dist/ imports or requires (node's own modules left out). */
async function packagesLoadedByDist(): Promise<Set<string>> {
  const builtins = new Set(builtinModules);
  const loaded = new Set<string>();
  const files = readdirSync(dist).filter((f) => /\.c?js$/.test(f));
  await build({
    entryPoints: files.map((f) => join(dist, f)),
    bundle: true,
    write: false,
    outdir: join(dist, 'unused'),
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    plugins: [
      {
        name: 'record-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const name = packageOf(args.path);
            if (!name.startsWith('node:') && !builtins.has(name)) loaded.add(name);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return loaded;
}

describe('the dependency list', () => {
  beforeAll(() => {
    if (existsSync(join(dist, 'cli.cjs'))) return;
    const r = spawnSync(process.execPath, ['scripts/build.js'], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the build failed: ${r.stderr}`);
  }, 120_000);

  it('is exactly the packages dist/ loads at run time', async () => {
    const loaded = await packagesLoadedByDist();
    expect([...loaded].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('lists bundled packages as devDependencies, with their built versions in dist/bundled.json', () => {
    const bundled = JSON.parse(readFileSync(join(dist, 'bundled.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(bundled)).toEqual(expect.arrayContaining(['commander', 'undici']));
    for (const [name, version] of Object.entries(bundled)) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeDefined();
      const installed = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
      expect(version, name).toBe(installed.version);
    }
  });
});
