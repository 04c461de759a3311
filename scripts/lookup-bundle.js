// The implementations in two builds, so that a one-order `payops query` reads one ES module file
// instead of ~30 (issue 15): node's ES module loader opens, stats, reads and resolves each file on
// its own, ~0.5 ms a file here, more than the code in most of them.
// - dist/lookup.js: every module a look-up needs (LOOKUP_ENTRIES and everything they import
//   statically, plus LOOKUP_ALSO), in ONE file. It exports the entries' own names (the shell imports
//   it for them) and, under `m<N>$<name>`, every export of every module in it.
// - the rest, as before (ES modules with shared chunks): a module of dist/lookup.js that they import
//   is a stand-in that re-exports its names from dist/lookup.js, so every module exists once in a
//   process (one class, one cache), whichever command runs. dist/lookup.js's own dynamic imports of
//   modules outside it point at entries of the rest, built under their own names.
import { relative, resolve } from 'node:path';
import { build } from 'esbuild';

/** The shell's lazy imports that a look-up makes (src/ paths); the build stops if one is not lazy. */
export const LOOKUP_ENTRIES = ['argv-guard.ts', 'config/load.ts', 'factory.ts', 'query/command.ts'];
/** Imported dynamically on every look-up: in dist/lookup.js too. */
const LOOKUP_ALSO = ['query/search-view.ts'];

const tsOf = (resolveDir, path) => resolve(resolveDir, path).replace(/\.js$/, '.ts');

/**
 * Builds dist/lookup.js and the rest into `outdir`. `lazy`: the shell's lazy entries (name → file);
 * `entryName`: a file's entry name; `options`: esbuild options both builds share (plugins included).
 */
export async function buildImplementations({ root, src, outdir, lazy, entryName, options }) {
  const entries = LOOKUP_ENTRIES.map((f) => resolve(src, f));
  const lazyFiles = new Set(lazy.values());
  for (const file of entries) {
    if (!lazyFiles.has(file)) {
      throw new Error(
        `${relative(root, file)} is not imported lazily by the shell: update LOOKUP_ENTRIES in scripts/lookup-bundle.js`,
      );
    }
  }
  const graph = {
    ...options,
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir,
    write: false,
    metafile: true,
    absWorkingDir: root,
  };

  // The modules of dist/lookup.js: the entries' static imports, followed.
  const roots = [...entries, ...LOOKUP_ALSO.map((f) => resolve(src, f))];
  const { inputs } = (await build({ ...graph, entryPoints: roots })).metafile;
  const inLookup = new Set();
  const visit = (rel) => {
    const file = resolve(root, rel);
    if (inLookup.has(file) || !inputs[rel] || rel.includes(':')) return;
    inLookup.add(file);
    for (const i of inputs[rel].imports) if (!i.external && i.kind !== 'dynamic-import') visit(i.path);
  };
  for (const file of roots) visit(relative(root, file));

  // Each module's exports, as esbuild sees them.
  const modules = [...inLookup];
  const out = await build({ ...graph, entryPoints: modules });
  const exportsOf = new Map();
  for (const meta of Object.values(out.metafile.outputs)) {
    if (meta.entryPoint) exportsOf.set(resolve(root, meta.entryPoint), meta.exports);
  }
  const index = new Map(modules.map((file, i) => [file, i]));

  // The entries' names, unprefixed, must not collide: the shell takes them from the one file.
  const seen = new Map();
  for (const file of entries) {
    for (const name of exportsOf.get(file)) {
      if (seen.has(name)) {
        throw new Error(
          `${relative(root, file)} and ${relative(root, seen.get(name))} both export ${name}: dist/lookup.js can export it once only`,
        );
      }
      seen.set(name, file);
    }
  }
  const q = JSON.stringify;
  const lookupEntry = [
    ...entries.map((file) => `export { ${exportsOf.get(file).join(', ')} } from ${q(file)};`),
    ...modules
      .filter((file) => exportsOf.get(file).length > 0)
      .map(
        (file) =>
          `export { ${exportsOf
            .get(file)
            .map((e) => `${e} as m${index.get(file)}$${e}`)
            .join(', ')} } from ${q(file)};`,
      ),
  ].join('\n');

  const rest = new Map([...lazy].filter(([, file]) => !inLookup.has(file)));
  const lookupPlugin = {
    name: 'lookup-entry',
    setup(b) {
      b.onResolve({ filter: /^payops-lookup$/ }, () => ({ path: 'lookup', namespace: 'payops-lookup' }));
      b.onLoad({ filter: /.*/, namespace: 'payops-lookup' }, () => ({
        contents: lookupEntry,
        loader: 'js',
        resolveDir: src,
      }));
      // A dynamic import of a module outside dist/lookup.js: that module's entry in the rest.
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const file = tsOf(args.resolveDir, args.path);
        if (inLookup.has(file) || !file.startsWith(src)) return undefined;
        rest.set(entryName(file), file);
        return { path: `./${entryName(file)}.js`, external: true };
      });
    },
  };
  const lookup = await build({
    ...options,
    entryPoints: { lookup: 'payops-lookup' },
    outdir,
    format: 'esm',
    splitting: false,
    metafile: true,
    absWorkingDir: root,
    plugins: [...options.plugins, lookupPlugin],
  });

  // The rest: a module of dist/lookup.js is a stand-in for its part of that file.
  const fromLookup = {
    name: 'from-lookup',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.namespace === 'payops-from-lookup') return { path: './lookup.js', external: true };
        const file = tsOf(args.resolveDir, args.path);
        return inLookup.has(file) ? { path: file, namespace: 'payops-from-lookup' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'payops-from-lookup' }, (args) => {
        const i = index.get(args.path);
        const names = exportsOf.get(args.path);
        return {
          contents:
            names.length > 0
              ? `export { ${names.map((e) => `m${i}$${e} as ${e}`).join(', ')} } from './lookup.js';`
              : "import './lookup.js';",
          loader: 'js',
          resolveDir: src,
        };
      });
    },
  };
  const others = await build({
    ...options,
    entryPoints: Object.fromEntries(rest),
    outdir,
    format: 'esm',
    splitting: true,
    metafile: true,
    absWorkingDir: root,
    plugins: [...options.plugins, fromLookup],
  });

  // Every module in one of the two, never both: two copies would be two classes, two caches.
  const files = (meta) =>
    Object.keys(meta.inputs)
      .filter((rel) => !rel.includes(':'))
      .map((rel) => resolve(root, rel));
  const strays = [
    ...files(lookup.metafile).filter((file) => !inLookup.has(file)),
    ...files(others.metafile).filter((file) => inLookup.has(file)),
  ];
  if (strays.length > 0) {
    throw new Error(
      `bundled twice (in dist/lookup.js and another file): ${strays.map((f) => relative(root, f)).join(', ')}`,
    );
  }
  return { lookupFiles: inLookup };
}
