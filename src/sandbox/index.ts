// Public face of the sandbox gateway (design.md §1.5). Tiny on purpose: the server and everything
// behind it load only when a sandbox is started, so importing this costs nothing.
import { fileURLToPath } from 'node:url';

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8787; 0 picks an ephemeral port. */
  port?: number;
  /** Create N captured (3000) orders at start. */
  seed?: number;
  /** Persist state in an append-only log there and reload it at start. */
  dataDir?: string;
  /** CSV files (transaction_id,order_no,currency,amount,payment_status) to load at start. */
  seedFiles?: string[];
  /** Callers allowed on the query endpoint; default 127.0.0.1 and ::1 (::ffff:127.0.0.1 too). */
  registeredIps?: string[];
}

export interface SandboxHandle {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43121. */
  url: string;
  close(): Promise<void>;
}

export const SANDBOX_CREDENTIALS = {
  merchantId: '800001',
  accountId: '800001001',
  signKey: 'sandbox-sign-key',
} as const satisfies { merchantId: '800001'; accountId: '800001001'; signKey: 'sandbox-sign-key' };

/** Second demo account, set to auto-capture: approved card payments go straight to 3000. */
export const SANDBOX_AUTO_CAPTURE_ACCOUNT = '800001002';

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
