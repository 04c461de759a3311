// `payops sandbox`: start the sandbox, say where it is, serve until SIGINT/SIGTERM, close cleanly.
// It takes only the invocation's streams and log (a Context is one), so the sandbox depends on
// nothing of the CLI.
import { ExitCode, UsageError } from '../errors.js';
import type { Invocation } from '../io.js';
import { isLoopback } from './context.js';
import {
  SANDBOX_AUTO_CAPTURE_ACCOUNT,
  SANDBOX_CREDENTIALS,
  SANDBOX_SAMPLE_ORDERS,
  type SandboxHandle,
  startSandbox,
} from './index.js';

export interface SandboxCommandOptions {
  host: string;
  port: number;
  seed?: number;
  data?: string;
  registeredIp?: string[];
  samples?: boolean;
  allowRemote?: boolean;
}

export async function runSandbox(
  ctx: Pick<Invocation, 'io' | 'log'>,
  opts: SandboxCommandOptions,
): Promise<number> {
  const loopbackHost = opts.host === 'localhost' || isLoopback(opts.host);
  if (!loopbackHost && !opts.allowRemote) {
    throw new UsageError(`refusing to serve the sandbox on ${opts.host}: it accepts a public demo key`, {
      hint: 'use a loopback address, or add --allow-remote if you really mean it',
    });
  }
  const registeredIps = opts.registeredIp
    ?.flatMap((ip) => ip.split(',').map((s) => s.trim()))
    .filter(Boolean);
  let handle: SandboxHandle;
  try {
    handle = await startSandbox({
      host: opts.host,
      port: opts.port,
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.data !== undefined ? { dataDir: opts.data } : {}),
      ...(registeredIps?.length ? { registeredIps } : {}),
      ...(opts.samples ? { seedFiles: [SANDBOX_SAMPLE_ORDERS] } : {}),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`cannot listen on ${opts.host}:${opts.port} (${code})`, {
        hint: 'pick another --port, or --port 0 for a free one',
        cause: err,
      });
    }
    throw err;
  }
  // Listen for signals before announcing the URL: a script may signal as soon as it reads it.
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (s: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(s);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  ctx.log.info(
    [
      `sandbox gateway listening on ${handle.url}`,
      `  merchant_id  ${SANDBOX_CREDENTIALS.merchantId}`,
      `  account_id   ${SANDBOX_CREDENTIALS.accountId}  (${SANDBOX_AUTO_CAPTURE_ACCOUNT}: auto-capture)`,
      `  sign key     ${SANDBOX_CREDENTIALS.signKey}  (public demo key)`,
      `  admin API    ${handle.url}/_sandbox/health`,
      'Ctrl-C to stop.',
    ].join('\n'),
  );
  // The URL alone on stdout, so that scripts can capture it.
  ctx.io.stdout.write(`${handle.url}\n`);
  const received = await signal;
  await handle.close();
  ctx.log.info('sandbox stopped');
  return received === 'SIGINT' ? ExitCode.interrupted : ExitCode.ok;
}
