// Numbers and durations given as flags are bounded, each refusal saying the allowed range (issue 24):
// `--concurrency 99999999999999999999` was accepted (and shown as 100000000000000000000), and
// `--settle-time 0` concluded at once that a lost request was not applied.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/in-process.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { expectCleanProcess } from './support.js';

expectCleanProcess();

const SAMPLE = join(REPO_ROOT, 'samples', 'refunds.csv');
const FILE = ['refund', '--file', SAMPLE, '--dry-run'];

describe('bounded numbers', () => {
  it.each([
    [['--concurrency', '99999999999999999999', ...FILE], /--concurrency must be a whole number from 1 to 64/],
    [['--concurrency', '65', ...FILE], /--concurrency must be a whole number from 1 to 64/],
    [['--concurrency', '0', ...FILE], /--concurrency must be a whole number from 1 to 64/],
    [['--rate', '10001', ...FILE], /--rate must be a whole number from 1 to 10000/],
    [
      [...FILE, '--max-orders', '99999999999999999999'],
      /--max-orders must be a whole number ≥ 1, not "99999999999999999999"/,
    ],
  ])('%j is refused with its range, exit 2', async (argv, why) => {
    const r = await runMain(argv);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(why);
  });

  it('the bounds themselves are accepted', async () => {
    const r = await runMain(['--sandbox', '--concurrency', '64', '--rate', '10000', ...FILE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/concurrency 64/);
  });
});

describe('--settle-time', () => {
  it('0 is refused, saying why (a gateway that commits late would refund twice), exit 2', async () => {
    for (const zero of ['0', '0s', '0ms']) {
      const r = await runMain(['--sandbox', ...FILE, '--settle-time', zero]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--settle-time must be more than 0/);
      expect(r.stderr).toMatch(/twice/);
    }
  });

  it('below the default 30s, the plan says what it risks', async () => {
    const r = await runMain(['--sandbox', 'refund', '--file', SAMPLE, '--yes', '--settle-time', '2s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /caution: settle time 2s is below the default 30s: a gateway that applies a lost request later than that gets it a second time \(a refund: money moved twice/,
    );
    const normal = await runMain(['--sandbox', 'refund', '--file', SAMPLE, '--yes', '--settle-time', '30s']);
    expect(normal.code, normal.stderr).toBe(0);
    expect(normal.stderr).not.toMatch(/is below the default/);
  });
});
