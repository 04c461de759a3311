// Builds the invocation's configuration: reads the config file, resolves flag > env > profile, and
// starts the in-process sandbox when asked to (--sandbox, base_url "sandbox") or when no gateway
// is configured at all.
import { existsSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import type { Invocation } from '../io.js';
import { readStoredConfig } from './file.js';
import { type ResolvedConfig, resolveConfig } from './resolve.js';

export async function loadConfig(ctx: Invocation): Promise<ResolvedConfig> {
  const { env } = ctx.io;
  if (ctx.globals.signKey) {
    ctx.log.warn(
      'warning: --sign-key leaves the key in your shell history; prefer PAYOPS_SIGN_KEY or `payops config set sign_key`',
    );
  }
  const stored = readStoredConfig(env, (path) =>
    ctx.log.warn(`warning: ${path} was readable by other users; its mode is now 0600`),
  );
  const config = resolveConfig(ctx.globals, env, stored);
  if (!config.profileExists && (config.sources.profile === 'flag' || config.sources.profile === 'env')) {
    const known = Object.keys(stored.profiles ?? {});
    throw new ConfigError(`there is no profile "${config.profile}"`, {
      hint: known.length
        ? `profiles: ${known.join(', ')} — or create it with \`payops config init --profile ${config.profile}\``
        : `create it with \`payops config init --profile ${config.profile}\``,
    });
  }
  ctx.addSecret(config.signKey);
  if (!config.sandbox) return config;
  return startEmbeddedSandbox(ctx, config);
}

async function startEmbeddedSandbox(ctx: Invocation, config: ResolvedConfig): Promise<ResolvedConfig> {
  if (config.sandboxReason === 'unconfigured') {
    ctx.log.warn(
      'no gateway configured: using the built-in sandbox — run `payops config init` to set one up',
    );
  }
  const { startSandbox, SANDBOX_CREDENTIALS, SANDBOX_SAMPLE_ORDERS } = await import('../sandbox/index.js');
  const handle = await startSandbox({
    port: 0,
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
