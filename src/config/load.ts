import type { Context } from '../context.js';
import { ConfigError } from '../errors.js';
import type { ResolvedConfig } from './resolve.js';

export async function loadConfig(_ctx: Context): Promise<ResolvedConfig> {
  throw new ConfigError('configuration is not built yet');
}
