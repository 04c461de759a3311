// `payops status`: what payops would use right now and whether it works, like `gh auth status`.
// The profile and where each setting came from (flag, environment, profile file, default), the
// gateway and what it answers to two signed read-only look-ups (check.ts), whether the profile is
// read-only, the journal folder, and the runs someone must act on, each with its command.
// Sends nothing that can move money. Data only: src/status/status-view.ts renders it.
import { configFile, stateDir } from '../config/paths.js';
import type { ConfigSource, ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { runsDir } from '../lifecycle/paths.js';
import { listRunsChecked } from '../lifecycle/read.js';
import { shownUrl } from '../quote.js';
import { runsNeedingAttention } from '../runs/latest.js';
import { checkGateway, type GatewayCheck } from './check.js';
import type { SettingView, StatusReport } from './types.js';

const FLAGS: Record<string, string> = {
  base_url: '--base-url',
  merchant_id: '--merchant-id',
  account_id: '--account-id',
  sign_key: '--sign-key',
  timeout: '--timeout',
  concurrency: '--concurrency',
  profile: '--profile',
};
const ENVS: Record<string, string> = {
  base_url: 'PAYOPS_BASE_URL',
  merchant_id: 'PAYOPS_MERCHANT_ID',
  account_id: 'PAYOPS_ACCOUNT_ID',
  sign_key: 'PAYOPS_SIGN_KEY',
  settle_time: 'PAYOPS_SETTLE_TIME',
  profile: 'PAYOPS_PROFILE',
};

function fromWords(key: string, source: ConfigSource, profile: string): string {
  switch (source) {
    case 'flag':
      return FLAGS[key] ?? 'flag';
    case 'env':
      return ENVS[key] ?? 'environment';
    case 'profile':
      return key === 'profile' ? "the config file's current profile" : `profile "${profile}"`;
    case 'sandbox':
      return 'built-in sandbox';
    default:
      return key === 'profile' ? 'none chosen' : 'default';
  }
}

function settingsOf(config: ResolvedConfig): SettingView[] {
  const s = config.sources;
  const row = (key: keyof typeof s, value: string): SettingView => ({
    key,
    value,
    from: fromWords(key, s[key], config.profile),
  });
  return [
    row('base_url', config.sandbox ? `${config.baseUrl} (built-in sandbox)` : shownUrl(config.baseUrl)),
    row('merchant_id', config.merchantId || '(not set)'),
    row('account_id', config.accountId || '(not set)'),
    row('sign_key', config.signKey ? 'set' : 'not set'),
    row('read_only', String(config.readOnly)),
    row('timeout', `${config.timeoutMs} ms`),
    row('concurrency', String(config.concurrency)),
    row('settle_time', `${config.settleMs / 1000}s`),
  ];
}

export async function gatherStatus(ctx: Context): Promise<StatusReport> {
  const config = await ctx.config();
  let check: GatewayCheck;
  try {
    check = await checkGateway(await ctx.client());
  } catch (err) {
    // No client could be built (no sign key, an http:// address refused): say so, ask nothing.
    check = {
      answers: 'not checked',
      keyAccepted: 'not checked',
      queryAllowed: 'not checked',
      problem: {
        message: err instanceof Error ? err.message : String(err),
        ...(err instanceof Error && 'hint' in err && typeof err.hint === 'string' ? { hint: err.hint } : {}),
      },
    };
  }
  const state = stateDir(ctx.io.env);
  const { runs, damaged } = await listRunsChecked(state);
  return {
    profile: {
      name: config.profile,
      from: fromWords('profile', config.sources.profile, config.profile),
      exists: config.profileExists,
    },
    configFile: configFile(ctx.io.env),
    gateway: { url: shownUrl(config.baseUrl), sandbox: config.sandbox },
    check,
    settings: settingsOf(config),
    readOnly: config.readOnly,
    journal: runsDir(state),
    attention: runsNeedingAttention(runs),
    damaged: damaged.map((d) => d.runId),
  };
}

/**
 * Like `gh auth status`: 0 when the gateway answers and accepts the key and the query calls of this
 * machine; 4 (configuration) when it refuses the key, the merchant or this machine's IP, or no
 * client can be built; 3 when the gateway does not answer. Runs that need attention are listed but
 * do not change the code: they are work to do, not a broken setup.
 */
export function statusExitCode(r: StatusReport): number {
  const c = r.check;
  if (c.answers === 'no') return ExitCode.gateway;
  if (c.answers === 'yes' && c.keyAccepted === 'yes' && c.queryAllowed === 'yes') return ExitCode.ok;
  if (c.answers === 'yes' && c.keyAccepted === 'yes' && c.queryAllowed === 'not checked') {
    // The query look-up failed for another reason than the IP (a 500): the gateway's trouble.
    return ExitCode.gateway;
  }
  return ExitCode.config;
}

export async function runStatus(ctx: Context): Promise<number> {
  const report = await gatherStatus(ctx);
  const { printStatus } = await import('./status-view.js');
  printStatus(ctx.io, report, ctx.globals.output === 'json' ? 'json' : 'text');
  return statusExitCode(report);
}
