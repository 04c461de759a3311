// Public face of the sandbox gateway (design.md §1.5). Tiny on purpose: the server and everything
// behind it load only when a sandbox is started, so importing this costs nothing (the types it
// re-exports from server.ts are erased).
import { fileURLToPath } from 'node:url';
import type { SandboxHandle, SandboxOptions } from './server.js';

export { SANDBOX_AUTO_CAPTURE_ACCOUNT, SANDBOX_CREDENTIALS } from './accounts.js';
export type { DeliveryRecord, EventEntry, NotifyOptions } from './notify-queue.js';
export { SANDBOX_TEST_TOKEN } from './payments.js';
export type { SandboxHandle, SandboxOptions };

/**
 * samples/sandbox-orders.csv. This module runs as src/sandbox/index.ts (tests), as a chunk of the
 * flat esbuild bundle in dist/, or as dist/sandbox/index.js (plain tsc): decided from the path
 * alone, so importing touches no file.
 */
export const SANDBOX_SAMPLE_ORDERS: string = fileURLToPath(
  new URL(
    /\/sandbox\/[^/]*$/.test(import.meta.url)
      ? '../../samples/sandbox-orders.csv'
      : '../samples/sandbox-orders.csv',
    import.meta.url,
  ),
);

export async function startSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const { startServer } = await import('./server.js');
  return startServer(opts);
}
