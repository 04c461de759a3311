// A big CSV export (/_sandbox/orders?format=csv) is written in pieces, waiting for the socket to drain between
// them. Each wait once left a 'close' listener behind on the response, and after ten of them node
// printed "MaxListenersExceededWarning … close listeners added to [ServerResponse]" into the
// terminal of whoever ran `payops sandbox`.
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { withSandbox } from './helpers.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  ({ sandbox } = await withSandbox({ seed: 20_000 }));
}, 60_000);
afterAll(() => sandbox.close());

/** The export's body, read slowly at first so that the sandbox has to wait for the socket. */
function slowExport(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/_sandbox/orders?format=csv`, (res) => {
      const parts: Buffer[] = [];
      res.pause();
      setTimeout(() => res.resume(), 300);
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

it('exports 20,000 orders as CSV without piling up listeners on the response', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const body = await slowExport(sandbox.url);
    expect(body.trim().split('\n')).toHaveLength(20_001);
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
}, 60_000);
