// Who the money moves at, as recorded in a run's header and compared by the re-run guard and resume.
import { randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config/resolve.js';

function baseIdentity(config: ResolvedConfig): string {
  return `${config.baseUrl.replace(/\/+$/, '')}|${config.merchantId}|${config.accountId}`;
}

/** Bulk runs: an in-process sandbox is a new gateway every process, so its runs never match. */
export function gatewayIdentity(config: ResolvedConfig): string {
  return config.sandbox
    ? `${baseIdentity(config)}|in-process-sandbox:${process.pid}-${randomBytes(4).toString('hex')}`
    : baseIdentity(config);
}

/**
 * Payout runs: undefined where no earlier run can be the same gateway (an in-process sandbox started
 * by --sandbox or for lack of configuration), so no request_id is reused there.
 */
export function payoutGatewayIdentity(config: ResolvedConfig): string | undefined {
  if (config.sandbox && (config.sandboxReason === 'flag' || config.sandboxReason === 'unconfigured'))
    return undefined;
  return baseIdentity(config);
}
