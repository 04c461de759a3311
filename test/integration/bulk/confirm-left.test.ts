// Issue 27, item 8 (money first): the typed confirmation holds for every currency — a threshold set
// for USD does not let a EUR run through on a plain y, and `*:N` is the limit of any currency — and
// a resumed run's plan totals the rows left, not the whole file. The real binary against the sandbox;
// the sandbox's ledger says what was sent.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { hasScript, underPty } from '../../helpers/pty-screen.js';
import { MID_RUN_LATENCY_MS, payops, REFUND_HEADER, refundRows, useBulkSuite, writeCsv } from './support.js';

const suite = useBulkSuite();
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-f]{4}\b/;

describe.skipIf(!hasScript)('confirm_typed_above per currency', { timeout: 120_000 }, () => {
  it('USD:N set, a EUR run is confirmed by typing its rows; *:N covers any currency', async () => {
    const orders = await suite.gw.createOrders(3, '3000', 'EUR');
    writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    const refund = (answer: string) =>
      underPty(['refund', '--file', 'refunds.csv'], {
        columns: 130,
        env,
        cwd: suite.dir,
        answers: [['? Refund', answer]],
      });
    const set = (value: string) => payops(['config', 'set', 'confirm_typed_above', value], { env });

    expect((await set('USD:1000000')).code).toBe(0);
    const no = await refund('y');
    expect(no.code, no.raw).toBe(2);
    expect(no.raw).toContain("the profile's confirm_typed_above sets no limit for EUR");
    expect(no.raw).toContain('type the number of rows (3) to go ahead:');
    expect(await suite.gw.ledger()).toEqual([]);

    // `*:N`: the limit of every currency not named — here passed (EUR 1.00 < the orders' amounts).
    expect((await set('USD:1000000,*:1')).code).toBe(0);
    const star = await refund('y');
    expect(star.code, star.raw).toBe(2);
    expect(star.raw).toContain("this is above the profile's confirm_typed_above (EUR 1.00, from *)");
    expect(await suite.gw.ledger()).toEqual([]);

    // Under the `*` limit a plain y goes ahead.
    expect((await set('USD:1,*:100000000')).code).toBe(0);
    const yes = await refund('y');
    expect(yes.code, yes.raw).toBe(0);
    expect((await suite.gw.ledger()).filter((e) => e.kind === 'refund')).toHaveLength(3);
  });
});

describe('a resumed run plans what is left', { timeout: 120_000 }, () => {
  it('the money line totals the rows left, and names the whole file apart', async () => {
    // 100 orders refunded 1.00 each: USD 100.00 for the file; the run interrupted after the first chunk.
    const orders = await suite.gw.createOrders(100);
    const rows = refundRows(orders).map((r) => [...r.slice(0, 4), '1.00', 'part']);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
    const env = suite.gw.env(suite.dir);
    await suite.gw.faults({ mode: 'none', latency_ms: MID_RUN_LATENCY_MS, paths: ['/v1/refund'] });
    let halfway = false;
    const watch = (async () => {
      while (!halfway) {
        if ((await suite.gw.ledger()).length >= 50) halfway = true;
        else await sleep(10);
      }
    })();
    const first = await payops(['refund', '--file', file, '--yes', '--concurrency', '1'], {
      env,
      // Ctrl-C: the first chunk's answer is journaled, the second chunk never sent.
      signal: { name: 'SIGINT', afterMs: 0, when: () => halfway },
    });
    halfway = true;
    await watch;
    await suite.gw.faults({ mode: 'none' });
    expect(first.code, first.stderr).toBe(130);
    const runId = RUN_ID.exec(first.stderr)?.[0];
    expect(runId, first.stderr).toBeDefined();

    // Without --yes and no terminal: the plan is shown, nothing is sent.
    const plan = await payops(['runs', 'resume', runId!], { env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toContain('to refund: USD 50.00 (the 50 rows left; the whole file: USD 100.00)');
    expect(plan.stderr).not.toContain("the totals above are the whole file's");
    expect(plan.stderr).toContain('50 of 100 rows done, 50 left');
    expect((await suite.gw.ledger()).length).toBe(50);
  });
});
