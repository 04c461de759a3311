// The profile's approval_required (docs/approvals.md): whether a money-moving run needs an approved
// plan, from what it moves in each currency. `always`, `never`, or thresholds such as
// `USD:1000,EUR:1000,*:1000`: a run needs approval when what it moves in ANY currency is above that
// currency's threshold (`*` for the currencies not named). A currency with no threshold and no `*`
// needs approval: fail closed. Amounts are compared as exact decimals, never floats.
import { ConfigError } from '../errors.js';
import { formatMoney } from '../money/amount.js';
import { currencyInfo } from '../money/currency.js';

export type ApprovalPolicy =
  | { kind: 'always' }
  | { kind: 'never' }
  /** Currency (or `*`) → threshold as decimal text, in the order written. */
  | { kind: 'over'; limits: Map<string, string>; text: string };

const PAIR = /^([A-Za-z]{3}|\*)\s*:\s*(\d+(?:\.\d+)?)$/;

/**
 * approval_required as written in the profile; unset is `never`. Text that is not a policy is a
 * ConfigError (exit 4): a hand-edited profile never loosens the policy by being unreadable.
 */
export function parsePolicy(text: string | undefined): ApprovalPolicy {
  if (text === undefined || text.trim() === '') return { kind: 'never' };
  const t = text.trim().toLowerCase();
  if (t === 'always' || t === 'never') return { kind: t };
  const limits = new Map<string, string>();
  for (const part of text.split(',')) {
    const m = PAIR.exec(part.trim());
    const code = m?.[1]?.toUpperCase();
    if (!m || !code || (code !== '*' && currencyInfo(code) === undefined) || limits.has(code)) {
      throw new ConfigError(
        `the profile's approval_required ${JSON.stringify(text)} is not a policy (at ${JSON.stringify(part.trim())}); nothing was sent`,
        {
          hint: 'payops config set approval_required always|never|USD:1000,EUR:1000,*:1000 (docs/approvals.md)',
        },
      );
    }
    limits.set(code, m[2]!);
  }
  return { kind: 'over', limits, text: [...limits].map(([c, a]) => `${c}:${a}`).join(',') };
}

export interface PolicyVerdict {
  needed: boolean;
  /** Why, in words: "approval_required always", "USD 1,500.00 is above USD:1000", … */
  why: string;
}

/** Whether a run moving `totals` (currency → minor units) needs an approved plan under `policy`. */
export function approvalNeeded(policy: ApprovalPolicy, totals: ReadonlyMap<string, bigint>): PolicyVerdict {
  if (policy.kind === 'always') return { needed: true, why: 'approval_required is always' };
  if (policy.kind === 'never') return { needed: false, why: 'approval_required is never' };
  for (const [currency, minor] of totals) {
    const limit = policy.limits.get(currency) ?? policy.limits.get('*');
    if (limit === undefined) {
      return {
        needed: true,
        why: `the run moves ${currency}, which approval_required (${policy.text}) names no threshold for (and no *)`,
      };
    }
    if (above(minor, currency, limit)) {
      const named = policy.limits.has(currency) ? currency : '*';
      return {
        needed: true,
        why: `the run moves ${formatMoney(minor, currency)}, above approval_required ${named}:${limit}`,
      };
    }
  }
  return { needed: false, why: `the run moves no more than approval_required (${policy.text}) allows alone` };
}

/** minor (in the currency's digits) > limit (decimal text), exactly. An unknown currency is above. */
function above(minor: bigint, currency: string, limit: string): boolean {
  const digits = currencyInfo(currency)?.minorDigits;
  if (digits === undefined) return true;
  const [whole, frac = ''] = limit.split('.');
  const scale = Math.max(digits, frac.length);
  const threshold =
    BigInt(whole!) * 10n ** BigInt(scale) + BigInt(frac || '0') * 10n ** BigInt(scale - frac.length);
  return minor * 10n ** BigInt(scale - digits) > threshold;
}

/** The threshold that applies to `currency`, as written (`USD:1000`, `*:1000`); undefined: none. */
export function thresholdOf(policy: ApprovalPolicy, currency: string): string | undefined {
  if (policy.kind !== 'over') return undefined;
  const named = policy.limits.has(currency) ? currency : policy.limits.has('*') ? '*' : undefined;
  return named === undefined ? undefined : `${named}:${policy.limits.get(named)}`;
}
