// Builds the gateway client of an invocation from its resolved configuration: checks that the
// configuration can sign, registers the sign key as a secret, and wires transport + signer + client
// (in the spirit of gh's cmdutil.Factory). It lives outside src/gateway/ so that the gateway knows
// nothing of configuration or of the CLI; the Context loads it lazily, and tests replace it through
// ContextOverrides.clientFactory (src/context.ts).
import type { ResolvedConfig } from './config/resolve.js';
import { ConfigError } from './errors.js';
import { createClient, type GatewayClient } from './gateway/client.js';
import { ENDPOINTS, endpointByPath } from './gateway/endpoints.js';
import { createSigner } from './gateway/signer.js';
import { assertSecureOrigin, createTransport } from './gateway/transport.js';
import { wrapClient } from './gateway/wrap-client.js';
import type { Invocation } from './io.js';

export async function clientFromConfig(inv: Invocation, config: ResolvedConfig): Promise<GatewayClient> {
  if (!config.signKey) {
    throw new ConfigError(`no sign key configured for profile "${config.profile}"`, {
      hint: 'set one with `payops config set sign_key` (it asks for the key, or reads one line from stdin) or export PAYOPS_SIGN_KEY',
    });
  }
  if (!config.baseUrl) {
    throw new ConfigError('no gateway base_url configured', { hint: 'payops config set base_url https://…' });
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
  const transport = await createTransport({
    timeoutMs: config.timeoutMs,
    ...(config.rate === undefined ? {} : { rate: config.rate }),
    allowInsecureHttp: Boolean(inv.globals.allowInsecureHttp),
    env: inv.io.env,
    log: inv.log,
  });
  const client = createClient({
    transport,
    signer: createSigner(config.signKey),
    baseUrl: config.baseUrl,
    merchantId: config.merchantId,
    accountId: config.accountId,
  });
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
    // Unknown paths may move money (subscription cancel); the known read-only ones do not.
    const endpoint =
      call.kind === 'raw'
        ? endpointByPath(call.path.startsWith('/') ? call.path : `/${call.path}`)
        : undefined;
    const moves =
      call.kind === 'batch' ||
      (call.kind === 'send' && ENDPOINTS[call.op].moneyMoving) ||
      (call.kind === 'raw' && (!endpoint || endpoint.moneyMoving));
    if (moves) note();
    return opts;
  });
}
