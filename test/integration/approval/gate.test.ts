// Run only what was approved (issue 28 item 5): the real binary, from the maker's PAYOPS_HOME, against
// a real sandbox, judged by its ledger. An approved plan moves exactly its rows; every other plan —
// approved by its maker or a stranger, altered, for a changed file or another gateway, expired, used,
// short of approvals, rejected — and a run without one under approval_required moves nothing and
// says why.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PlanFile } from '../../../src/approval/plan-doc.js';
import {
  approved,
  home,
  type Person,
  person,
  refundPlan,
  sandboxGateway,
  signed,
  writeApprovers,
  writePlan,
} from '../../helpers/approval.js';
import {
  type Order,
  payops,
  REFUND_HEADER,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from '../bulk/support.js';

const suite = useBulkSuite();

// The team: Ana makes plans, Bo and Cy check them; Eve's key is in no approvers file.
const ana = person('Ana Silva');
const bo = person('Bo Chen');
const cy = person('Cy Okafor');
const eve = person('Eve Stranger');

interface Setup {
  maker: string;
  checker: string;
  orders: Order[];
  file: string;
}

let s: Setup;

/** The maker's and the checker's homes (one approvers file, one policy), 3 orders and their refund file. */
async function setUp(profile: Record<string, unknown> = {}): Promise<Setup> {
  const approvers = writeApprovers(join(suite.dir, 'approvers.txt'), [ana, bo, cy]);
  const settings = { approvers_file: approvers, ...profile };
  const orders = await suite.gw.createOrders(3);
  return {
    maker: home(join(suite.dir, 'maker'), settings),
    checker: home(join(suite.dir, 'checker'), settings),
    orders,
    file: writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders)),
  };
}

beforeEach(async () => {
  s = await setUp();
});

/** A plan of `s.file` at this sandbox by Ana, approved by `checkers`. */
async function planFile(
  checkers: Person[] = [bo],
  over: Parameters<typeof refundPlan>[3] = {},
): Promise<PlanFile> {
  let file = signed(ana, await refundPlan(ana, s.file, sandboxGateway(suite.gw.url), over));
  for (const c of checkers) file = approved(file, c);
  return file;
}

function refund(plan: string | undefined, extra: string[] = [], file = s.file) {
  return payops(['refund', file, ...(plan ? ['--plan', plan] : []), '--yes', ...extra], {
    env: suite.gw.env(s.maker),
  });
}

async function expectNothingMoved(r: { code: number | null; stderr: string }, code: number, why: RegExp) {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).toMatch(why);
  expect(r.stderr).toMatch(/nothing was sent/);
  expect(await suite.gw.ledger()).toEqual([]);
}

function journalHeader(home: string, runId: string): Record<string, unknown> {
  const first = readFileSync(join(home, 'state', 'runs', runId, 'journal.jsonl'), 'utf8').split('\n')[0]!;
  return JSON.parse(first) as Record<string, unknown>;
}

describe('a run given --plan', { timeout: 60_000 }, () => {
  it('runs an approved plan: exactly its rows move, the run names the plan, and the plan runs once', async () => {
    const file = await planFile([bo]);
    const plan = writePlan(join(suite.dir, 'refunds.plan'), file);
    const r = await refund(plan);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/approved plan .*refunds\.plan .*made by "Ana Silva".*approved by "Bo Chen"/);
    const moved = refundsByTransaction(await suite.gw.ledger());
    expect([...moved.keys()].sort()).toEqual(s.orders.map((o) => o.transaction_id).sort());
    expect([...moved.values()].every((l) => l.length === 1)).toBe(true);

    const runId = /run id: (\S+)/.exec(r.stderr)![1]!;
    expect(journalHeader(s.maker, runId).approval).toEqual({
      planId: file.plan.planId,
      planDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      maker: { name: 'Ana Silva', fingerprint: ana.ref.fingerprint },
      approvers: [{ name: 'Bo Chen', fingerprint: bo.ref.fingerprint, at: file.signatures[1]!.at }],
    });
    const use = JSON.parse(readFileSync(join(s.maker, 'state', 'plans', `${file.plan.planId}.json`), 'utf8'));
    expect(use).toMatchObject({ planId: file.plan.planId, runId, finishedAt: expect.any(String) });

    // A used plan: the same plan again, even with --force (which would send the file again), is refused.
    const again = await refund(plan, ['--force']);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(`was used by run ${runId} on .* UTC, which finished; nothing was sent`),
    );
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);

    // The plan's use keeps the journal's head: its last record cut away is seen by runs verify --journal.
    const journal = join(s.maker, 'state', 'runs', runId, 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(use.head).toBe(createHash('sha256').update(lines.at(-1)!).digest('hex'));
    const intact = await payops(['runs', 'verify', runId, '--journal'], { env: suite.gw.env(s.maker) });
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(/head kept with the run's approved plan/);
    writeFileSync(journal, `${lines.slice(0, -1).join('\n')}\n`);
    const cut = await payops(['runs', 'verify', runId, '--journal'], { env: suite.gw.env(s.maker) });
    expect(cut.code, cut.stdout).toBe(4);
    expect(cut.stdout).toMatch(/head kept with the run's approved plan/);
    expect(cut.stdout).toMatch(/no line of this journal/);
  });

  it('refuses a plan approved only by its maker', async () => {
    const plan = writePlan(join(suite.dir, 'self.plan'), await planFile([ana]));
    await expectNothingMoved(await refund(plan), 2, /the maker cannot approve or reject their own plan/);
  });

  it('refuses a plan approved by a key not in the approvers file', async () => {
    const plan = writePlan(join(suite.dir, 'eve.plan'), await planFile([eve]));
    await expectNothingMoved(await refund(plan), 2, /"Eve Stranger".*the key is not in the approvers file/);
  });

  it('refuses a plan with one byte changed', async () => {
    const path = writePlan(join(suite.dir, 'edited.plan'), await planFile([bo]));
    const text = readFileSync(path, 'utf8');
    // One digit of the refund total: 3 orders of the sandbox's amounts, a byte up.
    const at = text.indexOf('"USD": "') + 8;
    const digit = text[at]!;
    writeFileSync(path, text.slice(0, at) + String((Number(digit) + 1) % 10) + text.slice(at + 1));
    expect(readFileSync(path, 'utf8')).not.toBe(text);
    await expectNothingMoved(
      await refund(path),
      2,
      /the maker's signature \("Ana Silva".*\) does not verify: the plan was changed after it was signed/,
    );
  });

  it('refuses a file changed after approval: one amount', async () => {
    const plan = writePlan(join(suite.dir, 'refunds.plan'), await planFile([bo]));
    const rows = refundRows(s.orders);
    rows[1]![4] = '1.00';
    writeCsv(s.file, REFUND_HEADER, rows);
    await expectNothingMoved(
      await refund(plan),
      2,
      /does not fit this run \(content\); nothing was sent.*the file's content differs from the plan's: USD [\d.]+ → USD [\d,.]+/s,
    );
  });

  it('refuses a plan whose content key matches but whose rows digest does not (a content-key collision)', async () => {
    // The plan says this very file's content key, rows and totals, but another rows digest: as if
    // another file had been made to collide with it on the (non-cryptographic) content key.
    const plan = writePlan(
      join(suite.dir, 'collide.plan'),
      await planFile([bo], { rowsDigest: createHash('sha256').update('other rows').digest('hex') }),
    );
    await expectNothingMoved(
      await refund(plan),
      2,
      /does not fit this run \(rowsDigest\); nothing was sent.*rows digest differs from the plan's/s,
    );
  });

  it('refuses a plan without a rows digest as malformed', async () => {
    const file = await planFile([bo]);
    const { rowsDigest: _d, ...body } = file.plan;
    const plan = writePlan(join(suite.dir, 'old.plan'), approved(signed(ana, body as typeof file.plan), bo));
    const r = await refund(plan);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/not a payops plan: plan\.rowsDigest is not a SHA-256/);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('refuses a file changed after approval: one extra row', async () => {
    const plan = writePlan(join(suite.dir, 'refunds.plan'), await planFile([bo]));
    const [extra] = await suite.gw.createOrders(1);
    writeCsv(s.file, REFUND_HEADER, refundRows([...s.orders, extra!]));
    await expectNothingMoved(
      await refund(plan),
      2,
      /the file's content differs from the plan's: 3 rows → 4 rows/,
    );
  });

  it('refuses a plan made for another gateway: another merchant, another sandbox', async () => {
    const merchant = writePlan(
      join(suite.dir, 'merchant.plan'),
      await planFile([bo], { gateway: sandboxGateway(suite.gw.url, '800002'), merchantId: '800002' }),
    );
    await expectNothingMoved(
      await refund(merchant),
      2,
      /does not fit this run \(gateway\).*the plan is for \S+ merchant 800002 account 800001001; this run is at \S+ merchant 800001 /s,
    );
    const port = writePlan(
      join(suite.dir, 'port.plan'),
      await planFile([bo], { gateway: sandboxGateway('http://127.0.0.1:9') }),
    );
    await expectNothingMoved(
      await refund(port),
      2,
      /does not fit this run \(gateway\).*the plan is for http:\/\/127\.0\.0\.1:9 merchant/s,
    );
  });

  it('refuses an expired plan', async () => {
    const day = 86_400_000;
    const plan = writePlan(
      join(suite.dir, 'old.plan'),
      await planFile([bo], {
        createdAt: new Date(Date.now() - 9 * day).toISOString(),
        expiresAt: new Date(Date.now() - 2 * day).toISOString(),
      }),
    );
    await expectNothingMoved(await refund(plan), 2, /the plan expired at /);
  });

  it('refuses too few approvals: approvals 2, one given; two distinct approvers run it', async () => {
    s = {
      ...s,
      maker: home(join(suite.dir, 'maker2'), {
        approvers_file: join(suite.dir, 'approvers.txt'),
        approvals: 2,
      }),
    };
    const one = writePlan(join(suite.dir, 'one.plan'), await planFile([bo]));
    await expectNothingMoved(
      await refund(one),
      2,
      /has 1 approval; the profile requires 2 \(approvals\), by people other than the maker/,
    );
    const two = writePlan(join(suite.dir, 'two.plan'), await planFile([bo, cy]));
    const r = await refund(two);
    expect(r.code, r.stderr).toBe(0);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });

  it('refuses a plan with a rejection', async () => {
    let file = await planFile([bo]);
    file = approved(file, cy, 'reject', 'order 2 was already refunded by hand');
    const plan = writePlan(join(suite.dir, 'rejected.plan'), file);
    await expectNothingMoved(
      await refund(plan),
      2,
      /was rejected by "Cy Okafor" .*: "order 2 was already refunded by hand"/,
    );
  });
});

describe('a plan runs as approved', { timeout: 60_000 }, () => {
  it('refuses --force with a plan (it would send what the gateway shows done, which no one approved)', async () => {
    const plan = writePlan(join(suite.dir, 'refunds.plan'), await planFile([bo]));
    await expectNothingMoved(
      await refund(plan, ['--force']),
      2,
      /does not fit this run \(--force\).*--force sends what the gateway or earlier runs show done, which the approvers did not approve/s,
    );
  });

  it('refuses a plan made with --skip-done run without it', async () => {
    const plan = writePlan(join(suite.dir, 'refunds.plan'), await planFile([bo], { skipDone: true }));
    await expectNothingMoved(
      await refund(plan),
      2,
      /does not fit this run \(--skip-done\).*run it with --skip-done/s,
    );
    const r = await refund(plan, ['--skip-done']);
    expect(r.code, r.stderr).toBe(0);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });
});

describe('approval_required', { timeout: 60_000 }, () => {
  it('refuses a money-moving run without a plan, --yes or not; a dry run says a plan is needed', async () => {
    s = {
      ...s,
      maker: home(join(suite.dir, 'strict'), {
        approvers_file: join(suite.dir, 'approvers.txt'),
        approval_required: 'USD:10,*:0',
      }),
    };
    await expectNothingMoved(
      await refund(undefined),
      2,
      /requires an approved plan for this run \(the run moves USD [\d,.]+, above approval_required USD:10\); --yes does not replace one/,
    );
    const r = await refund(undefined);
    expect(r.stderr).toMatch(/payops plan refund \S+refunds\.csv --out refund\.plan/);
    const dry = await payops(['refund', s.file, '--dry-run'], { env: suite.gw.env(s.maker) });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/approval: a run needs an approved plan/);
    expect(await suite.gw.ledger()).toEqual([]);
    // With an approved plan, the same run goes ahead.
    const plan = writePlan(join(suite.dir, 'refunds.plan'), await planFile([bo]));
    const ok = await refund(plan);
    expect(ok.code, ok.stderr).toBe(0);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });

  it('lets a run below every threshold go without a plan', async () => {
    s = { ...s, maker: home(join(suite.dir, 'lenient'), { approval_required: 'USD:1000000' }) };
    const r = await refund(undefined);
    expect(r.code, r.stderr).toBe(0);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });
});

describe('approval_required counts what this home moved without a plan', { timeout: 60_000 }, () => {
  it('a file split in two: the second half is refused, the ledger shows only the first', async () => {
    const orders = await suite.gw.createOrders(4);
    const first = writeCsv(join(suite.dir, 'part1.csv'), REFUND_HEADER, refundRows(orders.slice(0, 2)));
    const second = writeCsv(join(suite.dir, 'part2.csv'), REFUND_HEADER, refundRows(orders.slice(2)));
    const cents = (os: Order[]) => os.reduce((n, o) => n + BigInt(o.amount.replace('.', '')), 0n);
    const [a, b] = [cents(orders.slice(0, 2)), cents(orders.slice(2))];
    // Each half alone is within the threshold, the two together above it.
    const limit = a > b ? a : b;
    const text = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
    s = { ...s, maker: home(join(suite.dir, 'splitter'), { approval_required: `USD:${text(limit)}` }) };
    const one = await refund(undefined, [], first);
    expect(one.code, one.stderr).toBe(0);
    const runId = /run id: (\S+)/.exec(one.stderr)![1]!;
    expect(journalHeader(s.maker, runId).moving).toEqual({ USD: text(a) });

    const two = await refund(undefined, [], second);
    expect(two.code, two.stderr).toBe(2);
    expect(two.stderr).toMatch(/nothing was sent/);
    const money = (c: bigint) => `USD ${text(c).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
    expect(two.stderr).toContain(
      `this run moves ${money(b)}; with the ${money(a)} moved without a plan at this gateway in the last 24 hours (run ${runId}), that is ${money(a + b)}, above approval_required USD:${text(limit)}`,
    );
    const moved = refundsByTransaction(await suite.gw.ledger());
    expect([...moved.keys()].sort()).toEqual(
      orders
        .slice(0, 2)
        .map((o) => o.transaction_id)
        .sort(),
    );
  });
});

describe('a used plan whose run folder was moved aside', { timeout: 90_000 }, () => {
  it('is refused whether its run finished or stopped short: the registry says it began', async () => {
    const file = await planFile([bo]);
    const plan = writePlan(join(suite.dir, 'refunds.plan'), file);
    // Stopped short: nothing reached the ledger, the run exists.
    await suite.gw.faults({ mode: 'drop_before_commit', rate: 1, paths: ['/v1/refund'] });
    const first = await refund(plan, ['--max-attempts', '1']);
    await suite.gw.faults({ mode: 'none' });
    expect(first.code, first.stderr).toBe(3);
    const runId = /run id: (\S+)/.exec(first.stderr)![1]!;
    const runs = join(s.maker, 'state', 'runs');
    renameSync(join(runs, runId), join(suite.dir, `aside-${runId}`));
    const again = await refund(plan);
    await expectNothingMoved(
      again,
      2,
      new RegExp(`the plan's run ${runId} is missing from this home; nothing was sent`),
    );

    // Finished, then moved aside.
    renameSync(join(suite.dir, `aside-${runId}`), join(runs, runId));
    const resumed = await payops(['runs', 'resume', runId, '--yes'], { env: suite.gw.env(s.maker) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
    renameSync(join(runs, runId), join(suite.dir, `aside-${runId}`));
    const third = await refund(plan);
    expect(third.code, third.stderr).toBe(2);
    expect(third.stderr).toMatch(
      new RegExp(`the plan's run ${runId} is missing from this home; nothing was sent`),
    );
    const moved = refundsByTransaction(await suite.gw.ledger());
    expect([...moved.values()].every((l) => l.length === 1)).toBe(true);
  });
});

describe('resume keeps the plan', { timeout: 90_000 }, () => {
  it('an unfinished run of a plan: the plan points to it, --resume refuses another plan, runs resume finishes it once', async () => {
    const file = await planFile([bo]);
    const plan = writePlan(join(suite.dir, 'refunds.plan'), file);
    await suite.gw.faults({ mode: 'drop_before_commit', rate: 1, paths: ['/v1/refund'] });
    const first = await refund(plan, ['--max-attempts', '1']);
    await suite.gw.faults({ mode: 'none' });
    expect(first.code, first.stderr).toBe(3);
    expect(await suite.gw.ledger()).toEqual([]);
    const runId = /run id: (\S+)/.exec(first.stderr)![1]!;

    // The plan is in use by that run: a new run of it is refused and pointed at the resume.
    const forced = await refund(plan, ['--force']);
    await expectNothingMoved(forced, 2, new RegExp(`is in use by run ${runId} .* not finished`));
    expect(forced.stderr).toMatch(new RegExp(`payops runs resume ${runId}`));

    // Another approved plan of the same file is not this run's plan.
    const other = writePlan(join(suite.dir, 'other.plan'), await planFile([cy]));
    await expectNothingMoved(
      await refund(other, ['--resume']),
      2,
      new RegExp(`run ${runId} was started from plan ${file.plan.planId}, not from`),
    );

    const resumed = await payops(['runs', 'resume', runId, '--yes'], { env: suite.gw.env(s.maker) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`run ${runId} keeps its approved plan ${file.plan.planId}`));
    const moved = refundsByTransaction(await suite.gw.ledger());
    expect(moved.size).toBe(3);
    expect([...moved.values()].every((l) => l.length === 1)).toBe(true);
    const use = JSON.parse(readFileSync(join(s.maker, 'state', 'plans', `${file.plan.planId}.json`), 'utf8'));
    expect(use).toMatchObject({ runId, finishedAt: expect.any(String) });
    expect(existsSync(join(s.checker, 'state'))).toBe(false);
  });
});

describe('the workflow with the real commands, two homes', { timeout: 120_000 }, () => {
  it("keys, plan in the maker's home, approve in the checker's, the run from the maker's home under approval_required always", async () => {
    const dir = suite.dir;
    const approvers = join(dir, 'team-approvers.txt');
    const maker = join(dir, 'ana-home');
    const checker = join(dir, 'bo-home');
    const cli = (h: string, args: string[]) => payops(args, { env: { ...suite.gw.env(h) } });
    const lines: string[] = [];
    for (const [h, name] of [
      [maker, 'Ana Silva'],
      [checker, 'Bo Chen'],
    ] as const) {
      const made = await cli(h, ['keys', 'create', '--name', name]);
      expect(made.code, made.stderr).toBe(0);
      lines.push((await cli(h, ['keys', 'show'])).stdout.trim());
      for (const [k, v] of [
        ['approvers_file', approvers],
        ['approval_required', 'always'],
      ]) {
        const set = await cli(h, ['config', 'set', k!, v!]);
        expect(set.code, set.stderr).toBe(0);
      }
    }
    writeFileSync(approvers, `${lines.join('\n')}\n`);

    // A cron job's run without a plan: refused, --yes or not.
    await expectNothingMoved(await cli(maker, ['refund', s.file, '--yes']), 2, /requires an approved plan/);
    const planPath = join(dir, 'refunds.plan');
    const made = await cli(maker, ['plan', 'refund', s.file, '--out', planPath]);
    expect(made.code, made.stderr).toBe(0);
    // Made but not approved: refused.
    await expectNothingMoved(
      await cli(maker, ['refund', s.file, '--plan', planPath, '--yes']),
      2,
      /has 0 approvals; the profile requires 1/,
    );
    const ok = await cli(checker, ['approve', planPath, '--rows', '3']);
    expect(ok.code, ok.stderr).toBe(0);
    const run = await cli(maker, ['refund', s.file, '--plan', planPath, '--yes']);
    expect(run.code, run.stderr).toBe(0);
    const moved = refundsByTransaction(await suite.gw.ledger());
    expect([...moved.keys()].sort()).toEqual(s.orders.map((o) => o.transaction_id).sort());
    expect([...moved.values()].every((l) => l.length === 1)).toBe(true);
    const again = await cli(maker, ['refund', s.file, '--plan', planPath, '--yes', '--skip-done']);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/was used by run \S+ on .* UTC, which finished/);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(3);
  });
});
