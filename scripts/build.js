#!/usr/bin/env node
// Builds dist/ with esbuild in two parts, because `payops --help` and argument errors are started
// thousands of times by scripts and must cost little more than a bare node start:
// - the shell, dist/cli.cjs: src/cli.ts, the command files and commander in ONE CommonJS file
//   (a CommonJS file loads ~10 ms faster than the same code as ES modules);
// - the implementations, dist/<area>-<module>.js: every module the shell imports lazily
//   (`await import('../bulk/run-bulk.js')`), as ES modules with shared chunks, loaded only by the
//   command that runs. The shell's dynamic imports are rewritten to point at them.
// Both halves share one copy of src/errors.ts, dist/errors.cjs, so `instanceof PayopsError` holds
// for an error thrown by either half.
// - undici, bundled into ONE CommonJS file, dist/undici.cjs: from node_modules it is ~500 files,
//   whose resolving and reading cost a query more than its request (issue 15). The implementations
//   import it through a stand-in that loads that file.
// Which packages ship how (package.json): `dependencies` are exactly the packages dist/ loads at run
// time, left external; the packages in BUNDLED are copied into dist/ here, so they are
// devDependencies (the installed copies never run) and their versions are recorded in
// dist/bundled.json for `payops --version --verbose`. A bare import that is neither stops the build.
// Type checking is `npm run typecheck`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildImplementations, LOOKUP_ENTRIES } from './lookup-bundle.js';
import { checkUndiciParts, LLHTTP_FALLBACK, undiciParts } from './undici-parts.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = resolve(root, 'src');
const pkg = (await import('../package.json', { with: { type: 'json' } })).default;
/** Bundled into dist/ (devDependencies): a security fix in one reaches users by a new build and release. */
const BUNDLED = ['commander', 'undici', 'get-east-asian-width'];
const external = Object.keys(pkg.dependencies);
for (const name of BUNDLED) {
  if (!pkg.devDependencies[name] || pkg.dependencies[name]) {
    throw new Error(`${name} is bundled into dist/: list it in devDependencies, not dependencies`);
  }
}

/** src/bulk/run-bulk.ts → bulk-run-bulk */
const entryName = (file) =>
  relative(src, file)
    .replace(/\.[cm]?[jt]s$/, '')
    .replace(/[\\/]/g, '-');

// Build beside dist/ and swap it in at the end, so a binary already running from dist/ (a test in
// another terminal) never sees a half-written bundle; dist/ is missing only for the instant between
// the two renames.
const dist = resolve(root, 'dist');
const fresh = resolve(root, `dist.new-${process.pid}`);
const stale = resolve(root, `dist.old-${process.pid}`);
mkdirSync(fresh, { recursive: true });
// A build that fails leaves dist/ as it was and no half-built folder beside it (the linter would
// read that one).
let swapped = false;
process.on('exit', () => {
  if (!swapped) rmSync(fresh, { recursive: true, force: true });
});

const lazy = new Map();
const lookupEntries = new Set(LOOKUP_ENTRIES.map((f) => resolve(src, f)));
const lazyImports = {
  name: 'lazy-imports',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const file = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      const name = entryName(file);
      lazy.set(name, file);
      // A look-up's modules are all in dist/lookup.js (scripts/lookup-bundle.js).
      return { path: lookupEntries.has(file) ? './lookup.js' : `./${name}.js`, external: true };
    });
  },
};

// commander requires node:child_process when it loads, for executable subcommands, which payops
// never uses; loading it (and net, dgram and the streams behind it) was ~4 ms of every
// `payops --help`. The shell gets a stand-in that requires it on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child-process-on-first-use', namespace: 'payops-lazy' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'payops-lazy' }, () => ({
      contents:
        "let real; module.exports = new Proxy({}, { get: (_t, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

// src/errors.ts is built on its own as dist/errors.cjs, and both bundles import it from there instead
// of carrying a copy each: the shell `require`s it, and the ES module chunks `import` it (node gives
// an ES module the exports of a CommonJS file it has already loaded, the same objects). CommonJS,
// because the shell loads it at every start and a CommonJS file is the cheaper one to load.
const errorsModule = resolve(src, 'errors.ts');
/** An onResolve answer for a relative import (by its .js name) of the source file `module`, else none. */
const importOf = (module, answer) => (args) =>
  resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts') === module ? answer() : undefined;
const sharedErrors = {
  name: 'shared-errors',
  setup(b) {
    b.onResolve(
      { filter: /^\..*[\\/]errors\.js$/ },
      importOf(errorsModule, () => ({ path: './errors.cjs', external: true })),
    );
  },
};
// In the ES module chunks, a stand-in that `require`s dist/errors.cjs and re-exports its names
// (taken from the built file): an ES module importing a CommonJS file makes node read it again and
// scan its text for its exports (its CommonJS lexer, ~3 ms at the first use), which a require skips.
let errorNames = [];
/** The stand-in's text: require dist/`file` (a sibling of every chunk) and re-export `names`. */
const requireStandIn = (file, names) =>
  [
    "import { createRequire } from 'node:module';",
    `const shared = createRequire(import.meta.url)('./${file}');`,
    `export const { ${names.join(', ')} } = shared;`,
  ].join('\n');
const sharedErrorsEsm = {
  name: 'shared-errors-esm',
  setup(b) {
    b.onResolve(
      { filter: /^\..*[\\/]errors\.js$/ },
      importOf(errorsModule, () => ({ path: 'errors', namespace: 'payops-errors' })),
    );
    b.onLoad({ filter: /.*/, namespace: 'payops-errors' }, () => ({
      contents: requireStandIn('errors.cjs', errorNames),
      loader: 'js',
    }));
  },
};

// The implementations import undici through src/undici.ts; in their bundle that module is a stand-in
// that requires dist/undici.cjs (built first, below) and re-exports its names. An import of
// 'undici' itself (other than its types) would bring all of it back: the build stops.
const undiciModule = resolve(src, 'undici.ts');
let undiciNames = [];
const sharedUndici = {
  name: 'shared-undici',
  setup(b) {
    b.onResolve(
      { filter: /^\..*[\\/]undici\.js$/ },
      importOf(undiciModule, () => ({ path: 'undici', namespace: 'payops-undici' })),
    );
    b.onResolve({ filter: /^undici$/ }, (args) => ({
      errors: [
        {
          text: `${relative(root, args.importer)} imports 'undici': import '../undici.js' (src/undici.ts) instead`,
        },
      ],
    }));
    b.onLoad({ filter: /.*/, namespace: 'payops-undici' }, () => ({
      contents: requireStandIn('undici.cjs', undiciNames),
      loader: 'js',
      resolveDir: dirname(fileURLToPath(import.meta.url)),
    }));
  },
};

/** `lodash/fp` → lodash, `@scope/name/x` → @scope/name. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const builtins = new Set(builtinModules);
// A bare import must name a dependency (external) or a BUNDLED package: anything else would be
// bundled silently, and its version shown nowhere.
const knownPackages = {
  name: 'known-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      // Entry points and the build's own stand-ins (namespaces of their own) are not imports.
      if (args.kind === 'entry-point' || args.namespace !== 'file') return undefined;
      const name = packageOf(args.path);
      if (
        name.startsWith('node:') ||
        builtins.has(name) ||
        BUNDLED.includes(name) ||
        external.includes(name)
      ) {
        return undefined;
      }
      return {
        errors: [
          {
            text: `${relative(root, args.importer)} imports '${args.path}': add ${name} to dependencies (loaded at run time) or to BUNDLED in scripts/build.js and devDependencies`,
          },
        ],
      };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20.18',
  external,
  legalComments: 'none',
  logLevel: 'warning',
  // Every byte of dist/ a command loads is read, decoded and compiled at each start (and a function's
  // text parsed again when it first runs): without comments and blanks the query's files are ~40%
  // smaller. Names are kept (stack traces under --debug, and errors' names, read them).
  minifyWhitespace: true,
  minifySyntax: true,
};

await build({
  ...common,
  entryPoints: [errorsModule],
  outfile: resolve(fresh, 'errors.cjs'),
  format: 'cjs',
});
errorNames = Object.keys(createRequire(import.meta.url)(resolve(fresh, 'errors.cjs')));

await build({
  ...common,
  entryPoints: [resolve(src, 'cli.ts')],
  outfile: resolve(fresh, 'cli.cjs'),
  format: 'cjs',
  plugins: [knownPackages, lazyImports, lazyChildProcess, sharedErrors],
  // version.ts finds package.json from its own URL; in CommonJS that is the file's path.
  define: { 'import.meta.url': '__payopsUrl' },
  banner: { js: "const __payopsUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// undici requires node:http2 when it loads, for HTTP/2 connections, which payops never opens
// (undici's allowH2 stays off); loading it cost ~15-30 ms of CPU before each command's first
// request. The bundle gets a stand-in: node's HTTP/2 constants (protocol values, taken here from
// node:http2, which undici reads as it loads) and the real module on first use of anything else.
const http2Constants = JSON.stringify((await import('node:http2')).constants);
const lazyHttp2 = {
  name: 'lazy-http2',
  setup(b) {
    b.onResolve({ filter: /^(node:)?http2$/ }, () => ({
      path: 'http2-on-first-use',
      namespace: 'payops-lazy',
    }));
    b.onLoad({ filter: /^http2-on-first-use$/, namespace: 'payops-lazy' }, () => ({
      contents: `const constants = ${http2Constants};
let real;
module.exports = new Proxy({ constants }, {
  get: (_t, key) => (key === 'constants' ? constants : (real ??= require('node:http2'))[key]),
});`,
      loader: 'js',
    }));
  },
};

// dist/undici.cjs: src/undici.ts with the parts of undici it names (scripts/undici-parts.js), built
// before the implementations, whose stand-in for src/undici.ts re-exports exactly its names.
await build({
  ...common,
  entryPoints: [undiciModule],
  outfile: resolve(fresh, 'undici.cjs'),
  format: 'cjs',
  external: [],
  plugins: [knownPackages, undiciParts(), lazyHttp2],
});
await build({
  ...common,
  entryPoints: [join(checkUndiciParts().dir, LLHTTP_FALLBACK)],
  outfile: resolve(fresh, 'llhttp-wasm.cjs'),
  format: 'cjs',
  external: [],
});
undiciNames = Object.keys(createRequire(import.meta.url)(resolve(fresh, 'undici.cjs')));
for (const name of undiciNames) {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`dist/undici.cjs exports ${name}: not a name`);
}

await buildImplementations({
  root,
  src,
  outdir: fresh,
  lazy,
  entryName,
  options: { ...common, plugins: [knownPackages, sharedErrorsEsm, sharedUndici] },
});

// The top-level help as the shell prints it into a pipe (no terminal width to fit): the launcher
// writes this file for `payops --help` from a script without loading the shell (bin/payops.js).
// Made by the shell just built, so it is never another version's text.
const help = spawnSync(
  process.execPath,
  [
    '-e',
    "require(process.argv[1]).main(['--help']).then((code) => { process.exitCode = code; })",
    resolve(fresh, 'cli.cjs'),
  ],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
);
if (help.status !== 0 || !help.stdout.startsWith('Usage: payops')) {
  throw new Error(`payops --help from the new build failed (${help.status}): ${help.stderr}`);
}
writeFileSync(resolve(fresh, 'help.txt'), help.stdout);

// The versions of the packages inside dist/, as built (`payops --version --verbose`).
const bundledVersions = Object.fromEntries(
  BUNDLED.map((name) => [
    name,
    JSON.parse(readFileSync(resolve(root, 'node_modules', name, 'package.json'), 'utf8')).version,
  ]),
);
writeFileSync(resolve(fresh, 'bundled.json'), `${JSON.stringify(bundledVersions, null, 2)}\n`);

try {
  renameSync(dist, stale);
} catch {
  // no previous build
}
renameSync(fresh, dist);
swapped = true;
rmSync(stale, { recursive: true, force: true });
