// --plan and approval_required through main(argv, io) in this process, against a real sandbox: the
// refusals that come before any look-up or send (a missing plan file, a profile without an approvers
// file, an unreadable policy, an in-process sandbox no plan can name), a dry run that checks a plan
// without using it, a claim given up when the confirmation is declined, and a resume that is given a
// plan its run never had. The ledger shows nothing moved where nothing may.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvalsNeeded } from '../../../src/approval/gate.js';
import {
  approved,
  home,
  payoutPlan,
  person,
  refundPlan,
  sandboxGateway,
  signed,
  writeApprovers,
  writePlan,
} from '../../helpers/approval.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger, setFaults } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, writeRefunds } from '../commands/support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

const ana = person('Ana Silva');
const bo = person('Bo Chen');

let dir: string;
let approvers: string;
beforeEach(() => {
  dir = tempDir('payops-gate-');
  approvers = writeApprovers(join(dir, 'approvers.txt'), [ana, bo]);
});

/** The maker's desk: PAYOPS_HOME and working folder in one, the gateway from the environment. */
function desk(profile: Record<string, unknown>, env: Record<string, string> = sandbox.env) {
  const path = home(join(dir, 'maker'), profile);
  return () => fakeIo({ home: path, cwd: dir, env });
}

async function refundFile(): Promise<{ file: string; ids: Set<string> }> {
  const orders = await createOrders(sandbox.url, 2);
  return { file: join(dir, writeRefunds(dir, orders)), ids: new Set(orders.map((o) => o.transaction_id)) };
}

async function moved(ids: Set<string>) {
  return (await ledger(sandbox.url)).filter((e) => ids.has(e.transaction_id));
}

async function approvedPlan(file: string, name = 'refunds.plan'): Promise<string> {
  const plan = approved(signed(ana, await refundPlan(ana, file, sandboxGateway(sandbox.url))), bo);
  return writePlan(join(dir, name), plan);
}

describe('--plan refused before anything is sent', () => {
  it('a plan file that is not there (exit 2)', async () => {
    const { file, ids } = await refundFile();
    const r = await runMain(
      ['refund', file, '--plan', 'missing.plan', '--yes'],
      desk({ approvers_file: approvers })(),
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/plan file ".*missing\.plan": no such file/);
    expect(await moved(ids)).toEqual([]);
  });

  it('a profile without an approvers file (exit 4, naming approvers_file, as payops approve)', async () => {
    const { file, ids } = await refundFile();
    const plan = await approvedPlan(file);
    const r = await runMain(['refund', file, '--plan', plan, '--yes'], desk({})());
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/profile "default" names no approvers file/);
    expect(r.stderr).toMatch(/payops config set approvers_file/);
    expect(await moved(ids)).toEqual([]);
  });

  it('an approvers file named relative to the config folder, not the current one', async () => {
    const { file, ids } = await refundFile();
    const plan = await approvedPlan(file);
    const io = desk({ approvers_file: '../approvers.txt' });
    const r = await runMain(['refund', file, '--plan', plan, '--yes'], io());
    expect(r.code, r.stderr).toBe(0);
    expect(await moved(ids)).toHaveLength(2);
  });

  it('an approval_required the profile cannot be read as (exit 4), with or without --plan', async () => {
    const { file, ids } = await refundFile();
    const io = desk({ approvers_file: approvers, approval_required: 'USD:lots' });
    const r = await runMain(['refund', file, '--yes'], io());
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/approval_required "USD:lots" is not a policy/);
    expect(await moved(ids)).toEqual([]);
  });

  it.each([0, -1, 1.5, '1', 10])(
    'a hand-edited approvals of %j (exit 4, naming the profile and the fix): a plan nobody approved does not run',
    async (approvals) => {
      const { file, ids } = await refundFile();
      // Signed by its maker, approved by no one.
      const plan = writePlan(
        join(dir, 'unapproved.plan'),
        signed(ana, await refundPlan(ana, file, sandboxGateway(sandbox.url))),
      );
      const io = desk({ approvers_file: approvers, approval_required: 'always', approvals });
      const r = await runMain(['refund', file, '--plan', plan, '--yes'], io());
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(
        /profile "default" has an invalid approvals: expected a whole number from 1 to 9/,
      );
      expect(r.stderr).toMatch(/payops config set approvals 1 --profile default/);
      expect(await moved(ids)).toEqual([]);
    },
  );

  it('an in-process sandbox, which no plan can name', async () => {
    const { file } = await refundFile();
    const plan = await approvedPlan(file);
    const r = await runMain(
      ['refund', file, '--plan', plan, '--yes', '--sandbox'],
      desk({ approvers_file: approvers }, {})(),
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /does not fit this run \(gateway\).*this run is at an in-process sandbox, a new gateway every time/s,
    );
  });
});

describe('the gate itself, whatever the config holds', () => {
  it('never needs fewer than one approval', () => {
    for (const v of [0, -3, 0.5, Number.NaN, undefined]) expect(approvalsNeeded(v)).toBe(1);
    expect(approvalsNeeded(3)).toBe(3);
  });
});

describe('--plan that fits', () => {
  it('a dry run checks it and uses nothing: no registry entry, no claim', async () => {
    const { file, ids } = await refundFile();
    const plan = await approvedPlan(file);
    const io = desk({ approvers_file: approvers, approval_required: 'always' });
    const r = await runMain(['refund', file, '--plan', plan, '--dry-run'], io());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/approved plan .*refunds\.plan .*made by "Ana Silva"/);
    expect(existsSync(join(dir, 'maker', 'state', 'plans'))).toBe(false);
    expect(await moved(ids)).toEqual([]);
  });

  it('a declined confirmation gives its claim up: the plan still runs afterwards', async () => {
    const { file, ids } = await refundFile();
    const plan = await approvedPlan(file);
    const io = desk({ approvers_file: approvers });
    const declined = await runMain(['refund', file, '--plan', plan], io());
    expect(declined.code, declined.stderr).toBe(2);
    // The claim named a run that never began: given up when the command closed.
    expect(readdirSync(join(dir, 'maker', 'state', 'plans'))).toEqual([]);
    expect(await moved(ids)).toEqual([]);
    const r = await runMain(['refund', file, '--plan', plan, '--yes'], io());
    expect(r.code, r.stderr).toBe(0);
    expect(await moved(ids)).toHaveLength(2);
  });

  it('a payout plan in a dry run: checked, and the payouts are not paid', async () => {
    const file = join(dir, 'payouts.csv');
    writeFileSync(file, readFileSync(join(REPO_ROOT, 'samples', 'payouts.csv')));
    const plan = writePlan(
      join(dir, 'payouts.plan'),
      approved(signed(ana, await payoutPlan(ana, file, sandboxGateway(sandbox.url))), bo),
    );
    const r = await runMain(
      ['payout', file, '--plan', plan, '--dry-run'],
      desk({ approvers_file: approvers })(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/approved plan .*payouts\.plan/);
  });
});

describe('hints with --plan offer no --force (it is refused with a plan)', () => {
  it('rows the gateway shows done since the plan was made', async () => {
    const { file, ids } = await refundFile();
    const plan = await approvedPlan(file);
    // Another home refunds the same file meanwhile.
    const other = fakeIo({ home: home(join(dir, 'other'), {}), cwd: dir, env: sandbox.env });
    expect((await runMain(['refund', file, '--yes'], other)).code).toBe(0);
    const before = (await moved(ids)).length;
    const r = await runMain(['refund', file, '--plan', plan, '--yes'], desk({ approvers_file: approvers })());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/already refunded at the gateway; nothing was sent/);
    expect(r.stderr).not.toMatch(/--force/);
    expect(await moved(ids)).toHaveLength(before);
  });

  it('an interrupted run of the plan, run again without --resume', async () => {
    const { file, ids } = await refundFile();
    const plan = await approvedPlan(file);
    const io = desk({ approvers_file: approvers });
    await setFaults(sandbox.url, { mode: 'drop_before_commit', rate: 1, paths: ['/v1/refund'] });
    const first = await runMain(['refund', file, '--plan', plan, '--yes', '--max-attempts', '1'], io());
    await setFaults(sandbox.url, { mode: 'none' });
    expect(first.code, first.stderr).toBe(3);
    const r = await runMain(['refund', file, '--plan', plan, '--yes'], io());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/add --resume/);
    expect(r.stderr).not.toMatch(/--force/);
    expect(await moved(ids)).toEqual([]);
  });
});

describe('a plan of other content', () => {
  async function refusedOther() {
    const { file, ids } = await refundFile();
    const body = await refundPlan(ana, file, sandboxGateway(sandbox.url), {
      content: 'f'.repeat(64),
      totals: { USD: '1234.50' },
    });
    const plan = writePlan(join(dir, 'other.plan'), approved(signed(ana, body), bo));
    const r = await runMain(['refund', file, '--plan', plan, '--yes'], desk({ approvers_file: approvers })());
    expect(r.code, r.stderr).toBe(2);
    expect(await moved(ids)).toEqual([]);
    return { r, file };
  }

  it("says the plan's totals and the file's in one format", async () => {
    const { r } = await refusedOther();
    expect(r.stderr).toMatch(/content differs from the plan's: USD 1,234\.50 → USD [\d,]+\.\d\d\b/);
  });

  it('gives the full plan command, --out included', async () => {
    const { r, file } = await refusedOther();
    expect(r.stderr).toContain(`payops plan refund ${file} --out ${file.replace(/\.csv$/, '')}.plan`);
  });
});

describe('a resume given --plan', () => {
  it('is refused when its run began without a plan', async () => {
    const { file, ids } = await refundFile();
    const io = desk({ approvers_file: approvers });
    await setFaults(sandbox.url, { mode: 'drop_before_commit', rate: 1, paths: ['/v1/refund'] });
    const first = await runMain(['refund', file, '--yes', '--max-attempts', '1'], io());
    await setFaults(sandbox.url, { mode: 'none' });
    expect(first.code, first.stderr).toBe(3);
    const plan = await approvedPlan(file);
    const r = await runMain(['refund', file, '--resume', '--plan', plan, '--yes'], io());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/was started without a plan, so --plan .* cannot be its plan; nothing was sent/);
    expect(await moved(ids)).toEqual([]);
  });
});

describe('payops call under approval_required', () => {
  it('refuses a money-moving request no plan can approve; a read-only one still goes', async () => {
    // Authorised, so the capture would be taken: only the refusal keeps it out of the ledger.
    const orders = await createOrders(sandbox.url, 1, '2000');
    const o = orders[0]!;
    const io = desk({ approval_required: 'USD:1000000' });
    const data = (k: string, v: string) => ['--data', `capture_orders[0].${k}=${v}`];
    const r = await runMain(
      [
        '--yes',
        'call',
        '/v1/capture',
        ...data('order_no', o.order_no),
        ...data('transaction_id', o.transaction_id),
        ...data('currency', o.currency),
        ...data('amount', o.amount),
      ],
      io(),
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /payops call \/v1\/capture can move money and no plan can approve it.*approval_required USD:1000000/,
    );
    expect(await moved(new Set([o.transaction_id]))).toEqual([]);
    const read = await runMain(['call', '/v1/retrievalTrans', '--data', `order_no=${o.order_no}`], io());
    expect(read.code, read.stderr).toBe(0);
  });
});
