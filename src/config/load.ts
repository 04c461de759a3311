// Builds the invocation's configuration: reads the config file and resolves flag > env > profile.
// A configuration that asks for the in-process sandbox (--sandbox, base_url "sandbox", or no gateway
// configured at all) comes back with `sandbox` set and no base_url: the Context then starts the
// sandbox (factory.ts startEmbeddedSandbox), so that settings never import the sandbox's server.
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
  return config;
}
