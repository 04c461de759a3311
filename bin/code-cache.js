// Loads a CommonJS file of dist/ with the V8 code cache `npm run build` wrote beside it
// (`<file>.cache`), so that node skips parsing and compiling what it already compiled once: the
// shell (dist/cli.cjs) at every start, and undici (dist/undici.cjs, ~1 MB) before a command's first
// request. Node 20 has no module.enableCompileCache (22.1+); this is the same idea for our two files.
//
// The cache is only an accelerator: when it is missing, or V8 refuses it (another node version,
// other V8 flags, a source of another length), the file is compiled as `require` would. A cache
// carries the SHA-1 of the source it was made from, checked here too, so a cache never runs with a
// source it was not made from even where V8's own check (the length) would let it through.
'use strict';

const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const HASH_BYTES = 20;
// A script compiled here cannot run `import()` itself on node 20 (the option that allows it is
// experimental there, and lost with a code cache): the file gets `__payopsImport(spec)`, which
// imports `spec` relative to it from this module. The build points the shell's lazy imports at it.
const WRAPPER = ['(function (exports, require, module, __filename, __dirname, __payopsImport) { ', '\n});'];

/** The cache file's content: the source's SHA-1, then V8's data. */
function cacheBytes(source, data) {
  return Buffer.concat([createHash('sha1').update(source).digest(), data]);
}

/** V8's data from the cache file, when it was made from this source. */
function readCache(file, source) {
  let bytes;
  try {
    bytes = readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
  const hash = createHash('sha1').update(source).digest();
  return bytes.length > HASH_BYTES && hash.equals(bytes.subarray(0, HASH_BYTES))
    ? bytes.subarray(HASH_BYTES)
    : undefined;
}

/**
 * `require(file)` (an absolute path), with the code cache. Returns the module's exports; with
 * `produce`, returns `{ exports, cache }`, where `cache()` makes the cache file's content from
 * what has been compiled by then (the build calls it after exercising the module).
 */
function requireCached(file, { produce = false } = {}) {
  const known = Module._cache[file];
  if (known && !produce) return known.exports;
  const source = readFileSync(file, 'utf8');
  const script = new vm.Script(WRAPPER[0] + source + WRAPPER[1], {
    filename: file,
    cachedData: produce ? undefined : readCache(file, source),
  });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(dirname(file));
  Module._cache[file] = mod;
  try {
    const wrapper = script.runInThisContext();
    const importNear = (spec) => import(pathToFileURL(join(dirname(file), spec)).href);
    wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file), importNear);
  } catch (err) {
    delete Module._cache[file];
    throw err;
  }
  mod.loaded = true;
  return produce
    ? { exports: mod.exports, cache: () => cacheBytes(source, script.createCachedData()) }
    : mod.exports;
}

module.exports = { requireCached };
