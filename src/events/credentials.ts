// Whose events listen accepts: the profile's merchant, account and sign key, resolved as every
// command resolves them (flag > environment > profile). With no gateway configured (or --sandbox),
// the sandbox's published demo credentials, as other commands use the sandbox then — without
// starting an in-process sandbox, which listen does not talk to.
import type { Context } from '../context.js';
import { ConfigError } from '../errors.js';
import { SANDBOX_CREDENTIALS } from '../sandbox/accounts.js';

export interface EventCredentials {
  merchantId: string;
  accountId: string;
  signKey: string;
  profile: string;
  sandbox: boolean;
}

export async function eventCredentials(
  ctx: Context,
  unconfigured = "no gateway configured: accepting the built-in sandbox's events (merchant 800001)",
): Promise<EventCredentials> {
  const { loadConfig } = await import('../config/load.js');
  const config = await loadConfig(ctx);
  if (config.sandbox) {
    if (config.sandboxReason === 'unconfigured') {
      ctx.log.warn(unconfigured);
    }
    ctx.addSecret(SANDBOX_CREDENTIALS.signKey);
    return { ...SANDBOX_CREDENTIALS, profile: config.profile, sandbox: true };
  }
  if (!config.signKey) {
    throw new ConfigError(`profile "${config.profile}" has no sign key: events cannot be verified`, {
      hint: 'set it with `payops config set sign_key` or PAYOPS_SIGN_KEY',
    });
  }
  ctx.addSecret(config.signKey);
  return {
    merchantId: config.merchantId,
    accountId: config.accountId,
    signKey: config.signKey,
    profile: config.profile,
    sandbox: false,
  };
}
