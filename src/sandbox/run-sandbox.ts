// `payops sandbox`: start the sandbox, say where it is and how to point payops at it, log one line
// per request, serve until SIGINT/SIGTERM, close cleanly. It takes only the invocation's streams,
// flags and log (a Context is one), so the sandbox depends on nothing of the CLI.
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
import type { NotifyOptions } from './notify-queue.js';
import { deliveryLine, requestLine } from './request-log.js';

export interface SandboxCommandOptions {
  host: string;
  port: number;
  seed?: number;
  data?: string;
  registeredIp?: string[];
  samples?: boolean;
  allowRemote?: boolean;
  /** `1s,5s,30s,2m,10m` (design.md §1.9), or `none`. */
  notifyRetries?: string;
  notifyTimeout?: string;
}

const DURATION = /^(\d{1,9})(ms|s|m)$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/** `250ms`, `5s`, `2m` → ms (at most a day); undefined when it is none of these. */
export function notifyDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms <= 86_400_000 ? ms : undefined;
}

/** --notify-retries and --notify-timeout as the sandbox's notify options; a usage error names the flag. */
export function notifyOptions(
  opts: Pick<SandboxCommandOptions, 'notifyRetries' | 'notifyTimeout'>,
): NotifyOptions {
  const out: NotifyOptions = {};
  if (opts.notifyRetries !== undefined) {
    const text = opts.notifyRetries.trim();
    const parts = text === 'none' ? [] : text.split(',').map(notifyDuration);
    if (parts.some((p) => p === undefined) || parts.length > 20)
      throw new UsageError(
        `--notify-retries must be up to 20 delays such as 1s,5s,30s,2m,10m (or none), not "${opts.notifyRetries}"`,
      );
    out.retriesMs = parts as number[];
  }
  if (opts.notifyTimeout !== undefined) {
    const ms = notifyDuration(opts.notifyTimeout);
    if (ms === undefined || ms === 0)
      throw new UsageError(
        `--notify-timeout must be a duration such as 10s or 500ms, not "${opts.notifyTimeout}"`,
      );
    out.timeoutMs = ms;
  }
  return out;
}

export async function runSandbox(
  ctx: Pick<Invocation, 'io' | 'log'> & { globals?: Pick<Invocation['globals'], 'quiet'> },
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
  const notify = notifyOptions(opts);
  if (!ctx.globals?.quiet) notify.onDelivery = (record) => ctx.log.info(deliveryLine(record));
  let handle: SandboxHandle;
  try {
    handle = await startSandbox({
      host: opts.host,
      port: opts.port,
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.data !== undefined ? { dataDir: opts.data } : {}),
      ...(registeredIps?.length ? { registeredIps } : {}),
      ...(opts.samples ? { seedFiles: [SANDBOX_SAMPLE_ORDERS] } : {}),
      notify,
      // One line per request on stderr (ctx.log.info: terminal-safe). Under --quiet none, and none
      // made: the line's time, URL and text cost the sandbox ~50 µs a request for nothing.
      ...(ctx.globals?.quiet ? {} : { onRequest: (entry) => ctx.log.info(requestLine(entry)) }),
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
  if (!ctx.globals?.quiet) ctx.io.stderr.write(announcement(handle.url, opts));
  // The URL alone on stdout, so that scripts can capture it; on a terminal the export line above
  // already shows it, and it is printed once.
  if (!ctx.io.stdout.isTTY) ctx.io.stdout.write(`${handle.url}\n`);
  const received = await signal;
  await handle.close();
  ctx.log.info('sandbox stopped');
  return received === 'SIGINT' ? ExitCode.interrupted : ExitCode.ok;
}

/**
 * What a person needs to use the sandbox: the lines that point payops at it and a command to try.
 * Written to stderr as it is, not through the log: the log masks the sign key of the environment,
 * and a shell that has already run these exports holds the sandbox's demo key there. That key is
 * published (docs/sandbox.md) and the only value here that looks like a secret; nothing in these
 * lines comes from the user.
 */
export function announcement(url: string, opts: Pick<SandboxCommandOptions, 'samples' | 'seed'>): string {
  const example = opts.samples
    ? 'payops query --order-no ORD-1001'
    : opts.seed
      ? 'payops query --order-no SBX-1000000001'
      : // The card number is asked for; docs/sandbox.md lists the test cards.
        'payops pay card --amount 12.50 --currency USD --expiry 12/2030';
  return [
    'Sandbox gateway ready (test data only; Ctrl-C to stop).',
    'Point payops at it, in the shell you run payops from:',
    `  export PAYOPS_BASE_URL=${url}`,
    `  export PAYOPS_MERCHANT_ID=${SANDBOX_CREDENTIALS.merchantId}`,
    `  export PAYOPS_ACCOUNT_ID=${SANDBOX_CREDENTIALS.accountId}   # ${SANDBOX_AUTO_CAPTURE_ACCOUNT}: auto-capture`,
    `  export PAYOPS_SIGN_KEY=${SANDBOX_CREDENTIALS.signKey}   # the sandbox's public demo key`,
    `then try:  ${example}`,
    'Admin API: /_sandbox/health. Requests are logged below (--quiet: none).',
    '',
  ].join('\n');
}
