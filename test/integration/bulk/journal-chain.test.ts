// Issue 28, item 6: a run journal edited after the run (one record changed, removed, two swapped) is
// named by `runs verify ID --journal` (exit 4) and refused by `runs resume` and `--resume`: the
// sandbox's ledger shows nothing more moved. Restored, the same run resumes and finishes.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { MID_RUN_LATENCY_MS, payops, REFUND_HEADER, refundRows, useBulkSuite, writeCsv } from './support.js';

const suite = useBulkSuite();
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-f]{4}\b/;

const lines = (text: string) => text.split('\n').filter(Boolean);
const lf = (ls: string[]) => `${ls.join('\n')}\n`;

describe('a run journal edited after the run', { timeout: 180_000 }, () => {
  it('is named by runs verify --journal and refused by resume; nothing more moves; restored, it resumes', async () => {
    // 100 orders, one request at a time, stopped by Ctrl-C once the first chunk of 50 is at the gateway.
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
      signal: { name: 'SIGINT', afterMs: 0, when: () => halfway },
    });
    halfway = true;
    await watch;
    await suite.gw.faults({ mode: 'none' });
    expect(first.code, first.stderr).toBe(130);
    const runId = RUN_ID.exec(first.stderr)![0];
    expect((await suite.gw.ledger()).length).toBe(50);

    const journal = join(suite.dir, 'state', 'runs', runId, 'journal.jsonl');
    const original = readFileSync(journal, 'utf8');
    const ls = lines(original);
    const types = ls.map((l) => JSON.parse(l).type as string);
    // header, the gateway check, intents (written ahead of their requests), outcomes, …, interrupted.
    expect(types.slice(0, 3)).toEqual(['header', 'preflight', 'intent']);
    expect(types.at(-1)).toBe('interrupted');
    const k = types.indexOf('outcome');
    expect(k).toBeGreaterThan(2);

    const intact = await payops(['runs', 'verify', runId, '--journal'], { env });
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(/chain: intact/);
    const head = /head: ([0-9a-f]{64})/.exec(intact.stdout)![1]!;

    const edits: Array<[string, string[], RegExp]> = [
      [
        'one record changed (a row failed instead of succeeded)',
        ls.map((l, i) => (i === k ? l.replace('"succeeded"', '"failed"') : l)),
        new RegExp(
          `line ${k + 2} \\(${types[k + 1]}\\): its prev does not match line ${k + 1} \\(outcome\\) — line ${k + 1} was changed`,
        ),
      ],
      [
        'one record removed',
        ls.filter((_, i) => i !== 2),
        new RegExp(`line 3 \\(${types[3]}\\): its prev does not match line 2 \\(preflight\\)`),
      ],
      [
        'two records swapped',
        [ls[0]!, ls[1]!, ls[3]!, ls[2]!, ...ls.slice(4)],
        new RegExp(`line 3 \\(${types[3]}\\): .*reordered`),
      ],
    ];
    for (const [what, edited, named] of edits) {
      expect(edited.join('\n'), what).not.toBe(ls.join('\n'));
      writeFileSync(journal, lf(edited));
      const v = await payops(['runs', 'verify', runId, '--journal'], { env });
      expect(v.code, `${what}: ${v.stdout}${v.stderr}`).toBe(4);
      expect(v.stdout, what).toMatch(/chain: broken at /);
      expect(v.stdout, what).toMatch(named);

      const byId = await payops(['runs', 'resume', runId, '--yes'], { env });
      expect(byId.code, `${what}: ${byId.stderr}`).toBe(4);
      expect(byId.stderr).toMatch(
        new RegExp(`the journal of run ${runId} was changed after it was written \\(line \\d+`),
      );
      expect(byId.stderr).toContain(`payops runs verify ${runId} --journal`);
      expect(byId.stderr).toMatch(/nothing was sent/);

      const byFile = await payops(['refund', '--file', file, '--resume', '--yes'], { env });
      expect(byFile.code, `${what}: ${byFile.stderr}`).toBe(4);
      expect(byFile.stderr).toContain(`payops runs verify ${runId} --journal`);
      expect((await suite.gw.ledger()).length, what).toBe(50);

      // Shown all the same, with a warning first.
      const shown = await payops(['runs', 'show', runId, '--output', 'csv'], { env });
      expect(shown.stderr).toMatch(/warning: the journal of run .* was changed after it was written/);
      expect(lines(shown.stdout).length).toBe(101);
    }

    // The head kept before: the last record cut away is seen only against it.
    writeFileSync(journal, lf(ls.slice(0, -1)));
    const cut = await payops(['runs', 'verify', runId, '--journal', '--head', head], { env });
    expect(cut.code, cut.stdout).toBe(4);
    expect(cut.stdout).toMatch(/chain: intact/);
    expect(cut.stdout).toMatch(/the head you hold is no line of this journal/);

    // Restored: the same run resumes from where it stopped, every order refunded once.
    writeFileSync(journal, original);
    const resumed = await payops(['runs', 'resume', runId, '--yes'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const ledger = await suite.gw.ledger();
    expect(ledger.length).toBe(100);
    expect(new Set(ledger.map((e) => e.transaction_id)).size).toBe(100);
    const after = await payops(['runs', 'verify', runId, '--journal', '--head', head], { env });
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toMatch(/chain: intact/);
    expect(after.stdout).toMatch(
      /the head you hold is line \d+: the journal goes on for \d+ more records? after it/,
    );
  });
});

describe('a payout run journal edited after the run', { timeout: 120_000 }, () => {
  it('is named by runs verify --journal; the same payout again is refused, nothing paid', async () => {
    const env = suite.gw.env(suite.dir);
    const payout = join(suite.dir, 'payout.json');
    writeFileSync(payout, readFileSync(join(REPO_ROOT, 'samples', 'payout-request.json')));
    const first = await payops(['payout', '--request', payout, '--yes'], { env });
    expect(first.code, first.stderr).toBe(0);
    const paid = async () => (await suite.gw.ledger()).filter((e) => e.kind === 'payout').length;
    expect(await paid()).toBe(1);
    const [runId] = readdirSync(join(suite.dir, 'state', 'runs')).filter((d) => RUN_ID.test(d));
    const journal = join(suite.dir, 'state', 'runs', runId!, 'journal.jsonl');
    const ls = lines(readFileSync(journal, 'utf8'));
    const at = ls.findIndex((l) => JSON.parse(l).type === 'result');
    // The payout made to read as failed: a re-run would pay it again under its request_id.
    writeFileSync(
      journal,
      lf(ls.map((l, i) => (i === at ? l.replace('"outcome":"completed"', '"outcome":"failed"') : l))),
    );
    const v = await payops(['runs', 'verify', runId!, '--journal'], { env });
    expect(v.code, v.stdout).toBe(4);
    expect(v.stdout).toContain(`line ${at + 2} (`);
    expect(v.stdout).toContain(`its prev does not match line ${at + 1} (result)`);
    const again = await payops(['payout', '--request', payout, '--yes'], { env });
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toContain(`payops runs verify ${runId} --journal`);
    expect(await paid()).toBe(1);
  });
});
