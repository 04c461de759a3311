// approval_required (approval/policy.ts): parsing and the decision, as one table. A run needs an
// approved plan when what it moves in ANY currency is above that currency's threshold (`*` for the
// others); a currency with no threshold and no `*` needs one (fail closed).
import { describe, expect, it } from 'vitest';
import { approvalNeeded, parsePolicy } from '../../../src/approval/policy.js';
import { parseConfigValue } from '../../../src/config/keys.js';
import { ConfigError, UsageError } from '../../../src/errors.js';

const m = (pairs: Record<string, bigint>) => new Map(Object.entries(pairs));

describe('approvalNeeded', () => {
  it.each([
    // policy, what the run moves (minor units), needed, why
    [undefined, { USD: 10_000_000n }, false, /never/],
    ['never', { USD: 10_000_000n }, false, /never/],
    ['always', {}, true, /always/],
    ['ALWAYS', { USD: 1n }, true, /always/],
    ['USD:1000', { USD: 100_000n }, false, /no more than/],
    ['USD:1000', { USD: 100_001n }, true, /USD 1,000\.01, above approval_required USD:1000/],
    ['USD:1000,EUR:50', { USD: 1n, EUR: 5_001n }, true, /EUR 50\.01, above approval_required EUR:50/],
    ['USD:1000', { GBP: 1n }, true, /moves GBP, which approval_required \(USD:1000\) names no threshold for/],
    ['USD:1000,*:10', { GBP: 1_000n }, false, /no more than/],
    ['USD:1000,*:10', { GBP: 1_001n }, true, /GBP 10\.01, above approval_required \*:10/],
    ['*:0', { USD: 1n }, true, /above approval_required \*:0/],
    ['*:0', { USD: 0n }, false, /no more than/],
    ['JPY:1000', { JPY: 1_000n }, false, /no more than/],
    ['JPY:1000', { JPY: 1_001n }, true, /JPY 1,001/],
    ['JPY:999.5', { JPY: 1_000n }, true, /above/],
    ['KWD:1.0005', { KWD: 1_000n }, false, /no more than/],
    ['KWD:1.0005', { KWD: 1_001n }, true, /above/],
    ['usd:1000', { USD: 100_001n }, true, /USD:1000/],
    ['USD : 1000 , * : 5', { EUR: 501n }, true, /\*:5/],
  ] as const)('%s moving %o: needed %s', (policy, totals, needed, why) => {
    const verdict = approvalNeeded(parsePolicy(policy), m(totals));
    expect(verdict.needed).toBe(needed);
    expect(verdict.why).toMatch(why);
  });

  it.each(['sometimes', 'USD', 'USD:', 'USD:-1', 'USD:1e3', 'XYZ:10', 'USD:10,USD:20', 'USD:10,', 'U$D:10'])(
    'refuses %j as a policy (exit 4: a hand-edited profile never loosens it)',
    (text) => {
      expect(() => parsePolicy(text)).toThrow(ConfigError);
      expect(() => parsePolicy(text)).toThrow(/is not a policy.*nothing was sent/);
    },
  );
});

describe('config set approval_required', () => {
  it('stores what the run reads, and refuses what the run would refuse', () => {
    const stored = parseConfigValue('approval_required', 'usd:1000, eur : 50,*:0') as string;
    expect(stored).toBe('USD:1000,EUR:50,*:0');
    expect(parsePolicy(stored)).toMatchObject({ kind: 'over' });
    for (const text of ['XYZ:10', 'USD:10,usd:20', 'USD:ten', 'sometimes']) {
      expect(() => parseConfigValue('approval_required', text)).toThrow(UsageError);
    }
  });
});
