// What a one-order look-up loads (issue 15: a support agent's look-up is fast). Speed itself is
// measured by `npm run bench` (BENCH_ONLY=lookup), never here; this checks the causes the bench
// found: undici's ~500 files, node's own copy of undici, and node:http2 were loaded by every
// command that sends a request; then all of undici's bundle (fetch, WebSocket, caches, mocks and the
// web streams, zlib and worker threads behind them), of which payops uses the Agent and the proxy
// agent. Needs `npm run build` first.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SAMPLE_ORDERS } from '../../../src/sandbox/index.js';
import { PAYOPS_BIN, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ seedFiles: [SANDBOX_SAMPLE_ORDERS] });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Runs `payops query --order-no ORD-1001` with a probe: the files it required and node's modules it loaded. */
async function probeQuery(
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ files: string[]; builtins: string[] }> {
  const dir = tempDir('payops-lookup-');
  const probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    `const Module = require('node:module');
const files = [];
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try { files.push(Module._resolveFilename(request, parent, isMain)); } catch {}
  return load.apply(this, arguments);
};
process.on('exit', () => {
  process.stderr.write('PROBE ' + JSON.stringify({ files, builtins: process.moduleLoadList }) + '\\n');
});`,
  );
  const { code, stdout, stderr } = await runCli(['query', '--order-no', 'ORD-1001'], {
    home: dir,
    env: { ...sandbox.env, ...extraEnv, NODE_OPTIONS: `--require ${probe}` },
  });
  expect(code, stderr).toBe(0);
  expect(stdout).toContain('ORD-1001');
  const line = stderr.split('\n').find((l) => l.startsWith('PROBE '));
  return JSON.parse(line!.slice(6)) as { files: string[]; builtins: string[] };
}

const llhttpFallback = (files: string[]) => files.filter((f) => /[\\/]dist[\\/]llhttp-wasm\.cjs$/.test(f));

describe('a one-order look-up', () => {
  it('loads undici as one bundled file, without node:http2 or node’s own undici', async () => {
    const { files, builtins } = await probeQuery();
    expect(files.filter((f) => /[\\/]node_modules[\\/]undici[\\/]/.test(f))).toEqual([]);
    expect(files.some((f) => /[\\/]dist[\\/]undici\.cjs$/.test(f))).toBe(true);
    expect(builtins.filter((m) => /\bhttp2\b|deps\/undici/.test(m))).toEqual([]);
    // undici's fetch and WebSocket parts are not in the bundle: nothing loads what they need.
    // (Some web-stream and dns helpers are loaded by node's own start; these modules are not.)
    const notNeeded =
      /^NativeModule (internal\/webstreams\/(readable|writable)stream|zlib|worker_threads|dns)$/;
    expect(builtins.filter((m) => notNeeded.test(m))).toEqual([]);
    // llhttp without SIMD is read only where SIMD is off.
    expect(llhttpFallback(files)).toEqual([]);
  });

  it('still works where WebAssembly SIMD is off, with llhttp without SIMD from its own file', async () => {
    const { files } = await probeQuery({ UNDICI_NO_WASM_SIMD: '1' });
    expect(llhttpFallback(files)).toHaveLength(1);
  });

  it('bundles only the parts of undici payops uses', () => {
    const bundle = readFileSync(join(PAYOPS_BIN, '..', '..', 'dist', 'undici.cjs'), 'utf8');
    expect(bundle).toContain('node_modules/undici/lib/dispatcher/agent.js');
    expect(bundle).toContain('node_modules/undici/lib/dispatcher/env-http-proxy-agent.js');
    for (const part of ['lib/web/', 'lib/mock/', 'lib/cache/', 'lib/llhttp/llhttp-wasm.js']) {
      expect(bundle).not.toContain(`node_modules/undici/${part}`);
    }
  });
});
