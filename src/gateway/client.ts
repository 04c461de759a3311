import type { ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ConfigError } from '../errors.js';

// Placeholder: the signed client lands with issue 2.
export interface GatewayClient {
  readonly baseUrl: string;
}

export async function clientFromConfig(_ctx: Context, _config: ResolvedConfig): Promise<GatewayClient> {
  throw new ConfigError('the gateway client is not built yet');
}
