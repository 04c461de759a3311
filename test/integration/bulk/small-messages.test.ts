// Issue 27, item 8: messages that made a person doubt. The end-of-run footer of a large run points
// at `runs show ID --out` (the same command with --out is refused as already processed); a plan
// refused for want of --yes names no run id (none is ever made). The real binary against the sandbox.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { payops, REFUND_HEADER, readResults, refundRows, useBulkSuite, writeCsv } from './support.js';

const suite = useBulkSuite();

describe('end-of-run and refusal messages', { timeout: 120_000 }, () => {
  it('a plan refused for want of --yes shows no run id, and none exists', async () => {
    const orders = await suite.gw.createOrders(2);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    const r = await payops(['refund', '--file', file], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('plan: refund 2 orders');
    expect(r.stderr).not.toMatch(/run id|\d{8}-\d{6}-[0-9a-f]{4}/);
    const list = await payops(['runs', 'list'], { env });
    expect(list.stdout + list.stderr).not.toMatch(/\d{8}-\d{6}-[0-9a-f]{4}/);
    expect(await suite.gw.ledger()).toEqual([]);
    // Confirmed, the run's id is said before anything is sent.
    const yes = await payops(['refund', '--file', file, '--yes'], { env });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toMatch(/run id: \d{8}-\d{6}-[0-9a-f]{4}/);
  });

  it.skipIf(!hasScript)('a large run points at runs show ID --out, which writes every row', async () => {
    const orders = await suite.gw.createOrders(201);
    writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    const run = await underPty(['refund', '--file', 'refunds.csv', '--yes'], {
      columns: 130,
      env,
      cwd: suite.dir,
    });
    expect(run.code, run.raw).toBe(0);
    const text = screenOf(run.raw, 130).lines.join('\n');
    expect(text).not.toContain('write them all with --out results.csv');
    const hint =
      /all 201 rows succeeded \(not listed here\): every row: (payops runs show (\S+) --out results\.csv)/.exec(
        text,
      );
    expect(hint, text).not.toBeNull();
    // The command as printed works.
    const show = await payops(['runs', 'show', hint![2]!, '--out', join(suite.dir, 'results.csv')], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(existsSync(join(suite.dir, 'results.csv'))).toBe(true);
    expect(readResults(join(suite.dir, 'results.csv'))).toHaveLength(201);
  });
});
