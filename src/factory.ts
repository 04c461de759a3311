// Builds the gateway client of an invocation from its resolved configuration: checks that the
// configuration can sign, registers the sign key as a secret, and wires transport + signer + client
// (in the spirit of gh's cmdutil.Factory). It lives outside src/gateway/ so that the gateway knows
// nothing of configuration or of the CLI; the Context loads it lazily, and tests replace it through
// ContextOverrides.clientFactory (src/context.ts). It also starts the embedded sandbox when the
// configuration asks for one, so that src/config/ (settings) does not import the sandbox's server.
import { existsSync } from 'node:fs';
import { type ResolvedConfig, setBaseUrlHint } from './config/resolve.js';
import { ConfigError, UsageError } from './errors.js';
import { createClient, type GatewayClient, type PreparedRequest, prepareRaw } from './gateway/client.js';
import { ENDPOINTS, endpointByPath } from './gateway/endpoints.js';
import { createSigner } from './gateway/signer.js';
import { assertSecureOrigin, createTransport } from './gateway/transport.js';
import { type ClientCall, wrapClient } from './gateway/wrap-client.js';
import type { Invocation } from './io.js';

/** The credentials a signed request needs, or the ConfigError saying which is missing. */
function signingConfig(inv: Invocation, config: ResolvedConfig) {
  if (!config.signKey) {
    throw new ConfigError(`no sign key configured for profile "${config.profile}"`, {
      hint: 'set one with `payops config set sign_key` (it asks for the key, or reads one line from stdin) or export PAYOPS_SIGN_KEY',
    });
  }
  if (!config.baseUrl) {
    throw new ConfigError(`no gateway base_url configured for profile "${config.profile}"`, {
      hint: setBaseUrlHint(config.profile),
    });
  }
  for (const [key, value] of [
    ['merchant_id', config.merchantId],
    ['account_id', config.accountId],
  ] as const) {
    if (!value) {
      throw new ConfigError(`no ${key} configured for profile "${config.profile}"`, {
        hint: `payops config set ${key} VALUE, or export PAYOPS_${key.toUpperCase()}`,
      });
    }
  }
  inv.addSecret(config.signKey);
  // Fail before anything is read or built when the URL would be refused anyway.
  assertSecureOrigin(config.baseUrl, Boolean(inv.globals.allowInsecureHttp));
  return {
    signKey: config.signKey,
    baseUrl: config.baseUrl,
    merchantId: config.merchantId,
    accountId: config.accountId,
  };
}

/**
 * How `payops --dry-run call` builds the signed request it prints: the same checks and signing as
 * the client, and no transport at all, so nothing can be sent.
 */
export function preparerFromConfig(
  inv: Invocation,
  config: ResolvedConfig,
): (path: string, body: Record<string, unknown>, form: boolean) => PreparedRequest {
  const { signKey, ...where } = signingConfig(inv, config);
  const signer = createSigner(signKey);
  return (path, body, form) => prepareRaw({ ...where, signer }, path, body, form);
}

export async function clientFromConfig(inv: Invocation, config: ResolvedConfig): Promise<GatewayClient> {
  const { signKey, ...where } = signingConfig(inv, config);
  const transport = await createTransport({
    timeoutMs: config.timeoutMs,
    ...(config.rate === undefined ? {} : { rate: config.rate }),
    allowInsecureHttp: Boolean(inv.globals.allowInsecureHttp),
    env: inv.io.env,
    log: inv.log,
  });
  const client = createClient({ transport, signer: createSigner(signKey), ...where });
  inv.onClose(() => client.close());
  return noteMoneyMoving(client, () => inv.noteMoneyMoving());
}

/**
 * The same client, telling `note` when a request that can move money is handed to it (a money-moving
 * endpoint, a batch, or a raw call to any path but the read-only ones): main() keeps such a
 * command's exit code when its stdout's reader went away, and gives a pure reader the quiet 141, and
 * says when the built-in sandbox served it (src/cli.ts).
 */
export function noteMoneyMoving(client: GatewayClient, note: () => void): GatewayClient {
  return wrapClient(client, (call, opts) => {
    if (canMoveMoney(call)) note();
    return opts;
  });
}

/** Whether a request can move money: unknown paths may (subscription cancel); the known read-only ones do not. */
function canMoveMoney(call: ClientCall): boolean {
  const endpoint =
    call.kind === 'raw' ? endpointByPath(call.path.startsWith('/') ? call.path : `/${call.path}`) : undefined;
  return (
    call.kind === 'batch' ||
    (call.kind === 'send' && ENDPOINTS[call.op].moneyMoving) ||
    (call.kind === 'raw' && (!endpoint || endpoint.moneyMoving))
  );
}

/**
 * The client of a --dry-run (src/context.ts wraps every one, injected ones too): read-only look-ups
 * go through (a bulk dry run checks at the gateway what is already done), and a request that can
 * move money is refused before it is handed over. Each command stops short of sending on its own;
 * this is the backstop should one ever not (issue 23: `--dry-run call /v1/refund` refunded).
 */
export function refuseMoneyMoving(client: GatewayClient): GatewayClient {
  // A rejected promise, as a failed request would be, never a throw from the call itself.
  const refused = (what: string) =>
    Promise.reject(
      new UsageError(
        `--dry-run sends nothing, but this command was about to send ${what}; nothing was sent`,
        {
          hint: 'this is a bug in payops: please report it with the command you ran',
        },
      ),
    );
  return {
    get baseUrl() {
      return client.baseUrl;
    },
    get merchantId() {
      return client.merchantId;
    },
    get accountId() {
      return client.accountId;
    },
    send: (op, body, opts) =>
      canMoveMoney({ kind: 'send', op }) ? refused(op) : client.send(op, body, opts),
    sendBatch: (op) => refused(op),
    raw: (path, body, opts) =>
      canMoveMoney({ kind: 'raw', path }) ? refused(path) : client.raw(path, body, opts),
    close: () => client.close(),
  };
}

/**
 * The in-process sandbox for a configuration that asks for it (config/load.ts leaves `sandbox` set
 * and no base_url): started on a free loopback port, closed with the invocation, its demo
 * credentials filled in.
 */
export async function startEmbeddedSandbox(ctx: Invocation, config: ResolvedConfig): Promise<ResolvedConfig> {
  if (config.sandboxReason === 'unconfigured') {
    ctx.log.warn(
      'no gateway configured: using the built-in sandbox — run `payops config init` to set one up',
    );
  }
  const { startSandbox, SANDBOX_CREDENTIALS, SANDBOX_SAMPLE_ORDERS } = await import('./sandbox/index.js');
  const handle = await startSandbox({
    port: 0,
    // The events this one command made are delivered before the sandbox stops with it.
    notify: { drainMs: 2000 },
    ...(existsSync(SANDBOX_SAMPLE_ORDERS) ? { seedFiles: [SANDBOX_SAMPLE_ORDERS] } : {}),
  });
  ctx.onClose(() => handle.close());
  ctx.log.verbose(`sandbox gateway listening on ${handle.url}`);
  return {
    ...config,
    baseUrl: handle.url,
    merchantId: SANDBOX_CREDENTIALS.merchantId,
    accountId: SANDBOX_CREDENTIALS.accountId,
    signKey: SANDBOX_CREDENTIALS.signKey,
    sources: {
      ...config.sources,
      base_url: 'sandbox',
      merchant_id: 'sandbox',
      account_id: 'sandbox',
      sign_key: 'sandbox',
    },
  };
}
