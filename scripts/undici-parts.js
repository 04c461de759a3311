// dist/undici.cjs holds only the parts of undici that payops uses (src/undici.ts names them), taken
// from undici's own files instead of its index, which loads all of undici (fetch, WebSocket, caches,
// mocks: ~1 MB compiled at every query, issue 15).
//
// Those files are internal to undici and may move in another release. Relying on them is safe here
// because they are read at build time only (nothing at run time refers to node_modules/undici), the
// lockfile pins undici's version, and every one is checked before the build uses it: it must be the
// very object undici's index exports under that name. If the installed undici is not the locked
// one, or a file moved or now holds something else, the build stops and says what to do.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Each name src/undici.ts may export → undici's file that defines it (undici's index.js requires it from there). */
export const UNDICI_PARTS = {
  Agent: 'lib/dispatcher/agent.js',
  Client: 'lib/dispatcher/client.js',
  EnvHttpProxyAgent: 'lib/dispatcher/env-http-proxy-agent.js',
  ProxyAgent: 'lib/dispatcher/proxy-agent.js',
};

// undici's index.js also adds request, stream, pipeline, upgrade and connect to every dispatcher
// (`Object.assign(Dispatcher.prototype, api)`); ProxyAgent opens its tunnels with `connect`.
const DISPATCHER = 'lib/dispatcher/dispatcher.js';
const API = 'lib/api/index.js';

class UndiciPartsError extends Error {}

/**
 * Checks the installed undici against the lockfile and `parts`; returns its folder and version.
 * Throws an error that says what to do when they do not match.
 */
export function checkUndiciParts(parts = UNDICI_PARTS) {
  const dir = dirname(require.resolve('undici/package.json'));
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const locked = lock.packages?.['node_modules/undici']?.version;
  const fix = `update UNDICI_PARTS in scripts/undici-parts.js from node_modules/undici/index.js (undici ${version})`;
  if (locked !== version) {
    throw new UndiciPartsError(
      `undici ${version} is installed but package-lock.json pins ${locked ?? 'none'}: run \`npm ci\`; ` +
        'after changing undici on purpose, check UNDICI_PARTS in scripts/undici-parts.js',
    );
  }
  const index = require(dir);
  const load = (rel, what) => {
    const file = join(dir, rel);
    if (!existsSync(file)) throw new UndiciPartsError(`undici ${version} has no ${rel} (${what}): ${fix}`);
    return require(file);
  };
  for (const [name, rel] of Object.entries(parts)) {
    if (load(rel, name) !== index[name]) {
      throw new UndiciPartsError(`undici ${version}: ${rel} is not undici's ${name}: ${fix}`);
    }
  }
  if (load(DISPATCHER, 'Dispatcher') !== index.Dispatcher) {
    throw new UndiciPartsError(`undici ${version}: ${DISPATCHER} is not undici's Dispatcher: ${fix}`);
  }
  load(LLHTTP_FALLBACK, 'llhttp without SIMD');
  load(FETCH_BODY, 'the fetch body helpers');
  const api = load(API, 'the dispatcher methods');
  const methods = Object.keys(api);
  if (!methods.includes('connect') || methods.some((m) => index.Dispatcher.prototype[m] !== api[m])) {
    throw new UndiciPartsError(`undici ${version}: ${API} is not what undici adds to Dispatcher: ${fix}`);
  }
  return { dir, version };
}

// Two files client-h1.js requires only in a case payops never meets are not bundled:
// - llhttp without SIMD (72 KB), for CPUs or settings without WebAssembly SIMD (UNDICI_NO_WASM_SIMD=1):
//   dist/llhttp-wasm.cjs beside the bundle, read only then (LLHTTP_FALLBACK is built on its own);
// - the fetch body helpers (with the fetch utilities and WebIDL behind them, ~80 KB), only for a
//   FormData request body; payops sends text. A stand-in says so if it is ever reached.
export const LLHTTP_FALLBACK = 'lib/llhttp/llhttp-wasm.js';
const FETCH_BODY = 'lib/web/fetch/body.js';

/**
 * esbuild plugin: `undici`, as src/undici.ts imports it, becomes the parts above. A name src/undici.ts
 * exports that is not among them fails the build ("No matching export").
 */
export function undiciParts() {
  const { dir } = checkUndiciParts();
  const file = (rel) => JSON.stringify(join(dir, rel));
  return {
    name: 'undici-parts',
    setup(b) {
      b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'payops-undici-parts' }));
      b.onResolve({ filter: /[\\/]llhttp-wasm\.js$/ }, (args) =>
        join(args.resolveDir, args.path) === join(dir, LLHTTP_FALLBACK)
          ? { path: './llhttp-wasm.cjs', external: true }
          : undefined,
      );
      b.onResolve({ filter: /[\\/]body\.js$/ }, (args) =>
        join(args.resolveDir, args.path) === join(dir, FETCH_BODY)
          ? { path: 'fetch-body', namespace: 'payops-undici-parts' }
          : undefined,
      );
      b.onLoad({ filter: /^fetch-body$/, namespace: 'payops-undici-parts' }, () => ({
        contents:
          "exports.extractBody = () => { throw new Error('payops sends no FormData request body: undici\\'s fetch body helpers are not in dist/undici.cjs'); };",
        loader: 'js',
      }));
      b.onLoad({ filter: /^undici$/, namespace: 'payops-undici-parts' }, () => ({
        contents: [
          `import Dispatcher from ${file(DISPATCHER)};`,
          `import api from ${file(API)};`,
          'Object.assign(Dispatcher.prototype, api);',
          ...Object.entries(UNDICI_PARTS).map(
            ([name, rel]) => `export { default as ${name} } from ${file(rel)};`,
          ),
        ].join('\n'),
        loader: 'js',
        resolveDir: dir,
      }));
    },
  };
}
