// Payouts run only as approved (issue 28 item 5): the real binary from the maker's PAYOPS_HOME
// against a real sandbox, judged by its ledger. Payouts are idempotent at the gateway, so paying the
// same file again is no refusal of its own: the registry of used plans is what stops a second run.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  approved,
  home,
  payoutPlan,
  person,
  sandboxGateway,
  signed,
  writeApprovers,
  writePlan,
} from '../../helpers/approval.js';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { admin, ledger } from '../pay/support.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(async () => {
  await admin(sandbox.url, '/_sandbox/reset', {});
});

const ana = person('Ana Silva');
const bo = person('Bo Chen');

async function payouts() {
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
}

describe('payout --plan', { timeout: 90_000 }, () => {
  it('pays an approved plan once; without a plan approval_required refuses; the used plan is refused', async () => {
    const dir = tempDir();
    const approvers = writeApprovers(join(dir, 'approvers.txt'), [ana, bo]);
    const maker = home(join(dir, 'maker'), { approvers_file: approvers, approval_required: 'always' });
    const file = join(dir, 'payouts.csv');
    copyFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), file);
    const run = (extra: string[]) =>
      runCli(['payout', file, '--yes', '--output', 'json', ...extra], { env: sandbox.env, home: maker });

    const bare = await run([]);
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stderr).toMatch(/requires an approved plan for this run \(approval_required is always\)/);
    expect(bare.stderr).toMatch(/payops plan payout \S+payouts\.csv --out payout\.plan/);
    expect(await payouts()).toEqual([]);

    const mine = writePlan(
      join(dir, 'mine.plan'),
      signed(ana, await payoutPlan(ana, file, sandboxGateway(sandbox.url))),
    );
    const unapproved = await run(['--plan', mine]);
    expect(unapproved.code, unapproved.stderr).toBe(2);
    expect(unapproved.stderr).toMatch(/has 0 approvals; the profile requires 1/);
    expect(await payouts()).toEqual([]);

    const plan = writePlan(
      join(dir, 'payouts.plan'),
      approved(signed(ana, await payoutPlan(ana, file, sandboxGateway(sandbox.url))), bo),
    );
    // The same payouts with one amount changed: not the approved content.
    const changed = join(dir, 'changed.csv');
    writeFileSync(changed, readFileSync(file, 'utf8').replace('1250.00', '1250.01'));
    const edited = await runCli(['payout', changed, '--plan', plan, '--yes'], {
      env: sandbox.env,
      home: maker,
    });
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toMatch(/the file's content differs from the plan's: EUR [\d,.]+ → EUR [\d,.]+/);
    expect(await payouts()).toEqual([]);

    const ok = await run(['--plan', plan]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await payouts()).toHaveLength(3);

    const again = await run(['--plan', plan]);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/was used by run \S+ on .* UTC, which finished; nothing was sent/);
    expect(await payouts()).toHaveLength(3);
  });

  it('an unfinished payout run of a plan: the plan points to it; runs resume keeps the plan and finishes it', async () => {
    const dir = tempDir();
    const approvers = writeApprovers(join(dir, 'approvers.txt'), [ana, bo]);
    const maker = home(join(dir, 'maker'), { approvers_file: approvers, approval_required: 'always' });
    const file = join(dir, 'payouts.csv');
    copyFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), file);
    const body = await payoutPlan(ana, file, sandboxGateway(sandbox.url));
    const plan = writePlan(join(dir, 'payouts.plan'), approved(signed(ana, body), bo));
    // Every request lost before the gateway commits it: the run ends with its payouts unknown.
    await admin(sandbox.url, '/_sandbox/faults', {
      mode: 'drop_before_commit',
      rate: 1,
      paths: ['/v1/payout'],
    });
    let lost: Awaited<ReturnType<typeof runCli>>;
    try {
      lost = await runCli(['payout', file, '--plan', plan, '--yes'], { env: sandbox.env, home: maker });
    } finally {
      await admin(sandbox.url, '/_sandbox/faults', { mode: 'none' });
    }
    expect(lost.code, lost.stderr).toBe(3);
    expect(await payouts()).toEqual([]);
    const runId =
      /payops runs resume (\d{8}-\d{6}-[0-9a-f]{4})/.exec(lost.stderr)?.[1] ??
      /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(lost.stderr)![1]!;

    const again = await runCli(['payout', file, '--plan', plan, '--yes'], { env: sandbox.env, home: maker });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(new RegExp(`is in use by run ${runId} .* not finished; nothing was sent`));
    expect(again.stderr).toMatch(new RegExp(`payops runs resume ${runId}`));
    expect(await payouts()).toEqual([]);

    const resumed = await runCli(['runs', 'resume', runId, '--yes'], { env: sandbox.env, home: maker });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`run ${runId} keeps its approved plan ${body.planId}`));
    expect(await payouts()).toHaveLength(3);
    const use = JSON.parse(readFileSync(join(maker, 'state', 'plans', `${body.planId}.json`), 'utf8'));
    expect(use).toMatchObject({ runId, finishedAt: expect.any(String) });
  });

  it("the real commands: plan payout in the maker's home, approve in the checker's, the payouts paid once", async () => {
    const dir = tempDir();
    const approvers = join(dir, 'approvers.txt');
    const maker = join(dir, 'ana');
    const checker = join(dir, 'bo');
    const file = join(dir, 'payouts.csv');
    copyFileSync(join(REPO_ROOT, 'samples', 'payouts.csv'), file);
    const cli = (h: string, args: string[]) => runCli(args, { env: sandbox.env, home: h, cwd: dir });
    const lines: string[] = [];
    for (const [h, name] of [
      [maker, 'Ana Silva'],
      [checker, 'Bo Chen'],
    ] as const) {
      expect((await cli(h, ['keys', 'create', '--name', name])).code).toBe(0);
      lines.push((await cli(h, ['keys', 'show'])).stdout.trim());
      expect((await cli(h, ['config', 'set', 'approvers_file', approvers])).code).toBe(0);
    }
    writeFileSync(approvers, `${lines.join('\n')}\n`);
    expect((await cli(maker, ['config', 'set', 'approval_required', 'EUR:100,*:0'])).code).toBe(0);

    const planPath = join(dir, 'payouts.plan');
    const made = await cli(maker, ['plan', 'payout', file, '--out', planPath]);
    expect(made.code, made.stderr).toBe(0);
    const approvedNow = await cli(checker, ['approve', planPath, '--rows', '3']);
    expect(approvedNow.code, approvedNow.stderr).toBe(0);
    const bare = await cli(maker, ['payout', file, '--yes']);
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stderr).toMatch(/above approval_required/);
    const forced = await cli(maker, ['payout', file, '--plan', planPath, '--yes', '--new-request-ids']);
    expect(forced.code, forced.stderr).toBe(2);
    expect(forced.stderr).toMatch(/does not fit this run \(--new-request-ids\)/);
    expect(await payouts()).toEqual([]);
    const ok = await cli(maker, ['payout', file, '--plan', planPath, '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await payouts()).toHaveLength(3);
  });
});
