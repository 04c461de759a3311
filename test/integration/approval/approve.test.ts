// Four eyes with the real binary against a real sandbox on loopback (docs/approvals.md): a maker and
// a checker, each with their own PAYOPS_HOME and key; a plan made by one, approved by the other.
// Making and approving move no money (the ledger stays empty); each refusal exits 2 and says why.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApprovers, readPlanFile, verifyPlan } from '../../../src/approval/verify.js';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox, withSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger } from '../../helpers/sandbox-admin.js';
import { REFUND_HEADER, refundRows, writeCsv } from '../bulk/support.js';

let sandbox: TestSandbox;
const dir = tempDir('payops-approval-');
const maker = tempDir('payops-maker-');
const checker = tempDir('payops-checker-');
const stranger = tempDir('payops-stranger-');
const approversFile = join(dir, 'approvers.txt');
let csv: string;

const cli = (home: string, args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, { home, cwd: dir, env });
/** As the maker: the gateway settings of the sandbox. */
const asMaker = (args: string[]) => cli(maker, args, sandbox.env);

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const orders = await createOrders(sandbox.url, 3);
  csv = writeCsv(join(dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
  const lines: string[] = ['# the finance team'];
  for (const [home, name] of [
    [maker, 'Ana Silva'],
    [checker, 'Bo Chen'],
    [stranger, 'Mallory'],
  ] as const) {
    const made = await cli(home, ['keys', 'create', '--name', name]);
    expect(made.code, made.stderr).toBe(0);
    const shown = await cli(home, ['keys', 'show']);
    expect(shown.stdout).toBe(made.stdout);
    if (home !== stranger) lines.push(shown.stdout.trim());
    if (home !== stranger) {
      const set = await cli(home, ['config', 'set', 'approvers_file', approversFile]);
      expect(set.code, set.stderr).toBe(0);
    }
  }
  writeFileSync(approversFile, `${lines.join('\n')}\n`);
});

afterAll(async () => {
  await sandbox?.close();
});

async function makePlan(name: string, extra: string[] = []): Promise<string> {
  const out = join(dir, name);
  const r = await asMaker(['plan', 'refund', csv, '--out', out, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

describe('keys', () => {
  it('keys show prints one line: name, fingerprint, public key; keys create refuses to overwrite', async () => {
    const shown = await cli(maker, ['keys', 'show']);
    expect(shown.stdout).toMatch(/^Ana Silva SHA256:[A-Za-z0-9_-]{43} ed25519:[A-Za-z0-9_-]{43}\n$/);
    const again = await cli(maker, ['keys', 'create', '--name', 'Ana Silva']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/you have a key already/);
    expect((await cli(maker, ['keys', 'show'])).stdout).toBe(shown.stdout);
  });
});

describe('plan and approve', () => {
  it('a plan approved by someone else holds two valid signatures; no money moved', async () => {
    const planPath = await makePlan('ok.plan');
    const file = await readPlanFile(planPath);
    expect(file.plan).toMatchObject({
      op: 'refund',
      rows: 3,
      file: { name: 'refunds.csv' },
      maker: { name: 'Ana Silva' },
    });
    expect(file.plan.totals).toEqual({ USD: expect.stringMatching(/^\d+\.\d\d$/) });
    expect(file.plan.largest).toHaveLength(3);

    // No gateway settings at all: approving is offline.
    const noRows = await cli(checker, ['approve', planPath]);
    expect(noRows.code).toBe(2);
    expect(noRows.stderr).toMatch(/no terminal to type the row count at: give it with --rows N/);
    const wrong = await cli(checker, ['approve', planPath, '--rows', '4']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/not approved: the row count given was "4", the plan has 3 rows/);
    expect((await readPlanFile(planPath)).signatures).toHaveLength(1);

    const ok = await cli(checker, ['approve', planPath, '--rows', '3']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/moves {6}USD /);
    expect(ok.stderr).toMatch(/made by {4}Ana Silva \(SHA256:/);
    expect(ok.stderr).toMatch(/approved .*ok\.plan as "Bo Chen"/);
    const signed = await readPlanFile(planPath);
    expect(signed.signatures.map((s) => s.role)).toEqual(['maker', 'approve']);
    const v = verifyPlan(signed, await loadApprovers(approversFile), new Date());
    expect(v.approvals.map((a) => a.name)).toEqual(['Bo Chen']);

    const twice = await cli(checker, ['approve', planPath, '--rows', '3']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/you approved this plan already/);
    expect(await ledger(sandbox.url)).toEqual([]);
  });

  it('the maker cannot approve their own plan', async () => {
    const planPath = await makePlan('own.plan');
    const r = await cli(maker, ['approve', planPath, '--rows', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/you made this plan .*someone else must approve/);
    expect((await readPlanFile(planPath)).signatures).toHaveLength(1);
  });

  it('a key not in the approvers file is refused; no approvers file set says how to set one', async () => {
    const planPath = await makePlan('stranger.plan');
    const unset = await cli(stranger, ['approve', planPath, '--rows', '3']);
    expect(unset.code).toBe(4);
    expect(unset.stderr).toMatch(/names no approvers file/);
    expect(unset.stderr).toMatch(/payops config set approvers_file/);
    await cli(stranger, ['config', 'set', 'approvers_file', approversFile]);
    const r = await cli(stranger, ['approve', planPath, '--rows', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/your key "Mallory" SHA256:\S+ is not in the approvers file/);
    expect((await readPlanFile(planPath)).signatures).toHaveLength(1);
  });

  it('a plan with one byte changed is refused, naming the maker signature', async () => {
    const planPath = await makePlan('changed.plan');
    const text = readFileSync(planPath, 'utf8');
    const changed = text.replace('"rows": 3', '"rows": 2');
    expect(changed).not.toBe(text);
    expect(changed.length).toBe(text.length);
    writeFileSync(planPath, changed);
    const r = await cli(checker, ['approve', planPath, '--rows', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the maker's signature \("Ana Silva".*\) does not verify/);
  });

  it('an expired plan is refused', async () => {
    const planPath = await makePlan('expired.plan', ['--expires', '1s']);
    const { expiresAt } = (await readPlanFile(planPath)).plan;
    // Waits for the clock the check reads, not for the program: the plan says when it expires.
    while (Date.now() <= Date.parse(expiresAt)) await new Promise((r) => setTimeout(r, 50));
    const r = await cli(checker, ['approve', planPath, '--rows', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`the plan expired at ${expiresAt.replace(/\./g, '\\.')}`));
  });

  it('a rejection is recorded with its reason, and the plan can no longer be approved', async () => {
    const planPath = await makePlan('rejected.plan');
    const r = await cli(checker, ['approve', planPath, '--reject', '--reason', 'row 2 is refunded twice']);
    expect(r.code, r.stderr).toBe(0);
    const file = await readPlanFile(planPath);
    expect(file.signatures[1]).toMatchObject({
      role: 'reject',
      reason: 'row 2 is refunded twice',
      name: 'Bo Chen',
    });
    const v = verifyPlan(file, await loadApprovers(approversFile), new Date());
    expect(v.rejections).toHaveLength(1);
    expect(v.approvals).toHaveLength(0);
    const noReason = await cli(checker, ['approve', planPath, '--reject']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toMatch(/--reject needs --reason/);
  });

  it('a plan needs the maker key and --out, and never overwrites a file', async () => {
    const noKey = await cli(
      tempDir('payops-nokey-'),
      ['plan', 'refund', csv, '--out', join(dir, 'x.plan')],
      sandbox.env,
    );
    expect(noKey.code).toBe(4);
    expect(noKey.stderr).toMatch(/payops keys create/);
    const noOut = await asMaker(['plan', 'refund', csv]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out is required/);
    const planPath = await makePlan('once.plan');
    const again = await asMaker(['plan', 'refund', csv, '--out', planPath]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists already/);
  });

  it('a file the run would refuse is refused by plan with the same error', async () => {
    const bad = writeCsv(join(dir, 'bad.csv'), REFUND_HEADER, [['T1', 'O1', 'USD', '10.00', '-1', 'x']]);
    const r = await asMaker(['plan', 'refund', bad, '--out', join(dir, 'bad.plan')]);
    const run = await asMaker(['refund', bad, '--yes']);
    expect(r.code).toBe(2);
    expect(run.code).toBe(2);
    const first = (s: string) => s.split('\n').slice(0, 2).join('\n');
    expect(first(r.stderr)).toBe(first(run.stderr));
  });

  it('a passphrase-protected key signs with PAYOPS_KEY_PASSPHRASE; a wrong one signs nothing; neither is ever shown', async () => {
    const pass = 'tr0ub4dor&3-horse';
    const home = tempDir('payops-pass-');
    const made = await cli(home, ['keys', 'create', '--name', 'Cy Diaz'], { PAYOPS_KEY_PASSPHRASE: pass });
    expect(made.code, made.stderr).toBe(0);
    await cli(home, ['config', 'set', 'approvers_file', approversFile]);
    writeFileSync(approversFile, `${readFileSync(approversFile, 'utf8')}${made.stdout}`);
    const planPath = await makePlan('pass.plan');
    const wrong = await cli(home, ['approve', planPath, '--rows', '3'], { PAYOPS_KEY_PASSPHRASE: 'not it' });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/the passphrase does not open your key/);
    expect((await readPlanFile(planPath)).signatures).toHaveLength(1);
    const ok = await cli(home, ['approve', planPath, '--rows', '3', '--debug'], {
      PAYOPS_KEY_PASSPHRASE: pass,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect((await readPlanFile(planPath)).signatures.map((s) => s.name)).toEqual(['Ana Silva', 'Cy Diaz']);
    const keyFile = JSON.parse(readFileSync(join(home, 'keys', 'personal.json'), 'utf8')) as {
      privateKey: string;
    };
    const body = keyFile.privateKey.split('\n').slice(1, -2).join('');
    for (const r of [made, wrong, ok]) {
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toContain(pass);
        expect(text).not.toContain(body.slice(0, 40));
        expect(text).not.toMatch(/PRIVATE KEY/);
      }
    }
  });

  it('rows the gateway shows done: refused as the run refuses them; --skip-done leaves them out of the plan', async () => {
    await withSandbox(async (other) => {
      const orders = await createOrders(other.url, 3, '3000', 'EUR');
      const file = writeCsv(join(dir, 'partly.csv'), REFUND_HEADER, refundRows(orders));
      const one = writeCsv(join(dir, 'one.csv'), REFUND_HEADER, refundRows(orders.slice(0, 1)));
      expect((await cli(maker, ['refund', one, '--yes'], other.env)).code).toBe(0);
      const before = await ledger(other.url);
      const refused = await cli(
        maker,
        ['plan', 'refund', file, '--out', join(dir, 'partly.plan')],
        other.env,
      );
      const run = await cli(maker, ['refund', file, '--yes'], other.env);
      expect(refused.code).toBe(2);
      expect(refused.stderr.split('\n')[0]).toBe(run.stderr.split('\n')[0]);
      expect(refused.stderr).toMatch(/1 of 3 rows is already refunded at the gateway/);
      const out = join(dir, 'skip.plan');
      const r = await cli(maker, ['plan', 'refund', file, '--out', out, '--skip-done'], other.env);
      expect(r.code, r.stderr).toBe(0);
      const { plan } = await readPlanFile(out);
      // EUR amounts in cents, as bigint (the sandbox writes them with two decimals).
      const left = orders.slice(1).reduce((sum, o) => sum + BigInt(o.amount.replace('.', '')), 0n);
      expect(plan).toMatchObject({ rows: 3, skipDone: true, gatewayShows: { done: 1, possiblyDone: 0 } });
      expect(plan.totals).toEqual({ EUR: `${left / 100n}.${String(left % 100n).padStart(2, '0')}` });
      expect(plan.largest.map((l) => l.line).sort()).toEqual([3, 4]);
      // Planning sent nothing: the ledger holds the one refund made on purpose above.
      expect(await ledger(other.url)).toEqual(before);
    });
  });

  it("--file: the checker's own copy of the file approves when its rows are the plan's; one changed amount is refused", async () => {
    const planPath = await makePlan('copy.plan');
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    // The checker's copy: the same rows saved otherwise (rows reversed, CRLF) — the same rows digest.
    const mine = join(dir, 'my-copy.csv');
    writeFileSync(mine, `${[rows[0], ...rows.slice(1).reverse()].join('\r\n')}\r\n`);
    // And one with one amount changed: the refund amount of the first row.
    const changed = join(dir, 'changed-copy.csv');
    const cells = rows[1]!.split(',');
    const at = REFUND_HEADER.indexOf('refund_amount');
    cells[at] = '1.00';
    writeFileSync(changed, `${[rows[0], cells.join(','), ...rows.slice(2)].join('\n')}\n`);

    const refused = await cli(checker, ['approve', planPath, '--file', changed, '--list', '--rows', '3']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /your copy of the file is not the file planned: .*changed-copy\.csv.*nothing was signed/,
    );
    expect((await readPlanFile(planPath)).signatures).toHaveLength(1);

    const ok = await cli(checker, ['approve', planPath, '--file', mine, '--list', '--rows', '3']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/your copy .*my-copy\.csv.*: the rows planned/);
    // --list: every row, with its line, ids, amounts and reason.
    expect(ok.stderr).toMatch(/line +transaction_id +order_no +currency +amount +refund +reason/);
    for (const row of rows.slice(1)) {
      const [tx] = row.split(',');
      expect(ok.stderr).toContain(tx);
    }
    expect((await readPlanFile(planPath)).signatures.map((s) => s.role)).toEqual(['maker', 'approve']);
    expect(await ledger(sandbox.url)).toEqual([]);
  });

  it('without --file, approve says once how to check your copy; --list needs --file', async () => {
    const planPath = await makePlan('nofile.plan');
    const list = await cli(checker, ['approve', planPath, '--list', '--rows', '3']);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/--list goes with --file FILE/);
    const ok = await cli(checker, ['approve', planPath, '--rows', '3']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr.match(/--file FILE/g)).toHaveLength(1);
  });

  it('payouts: a plan of a payout file, approved the same way', async () => {
    const out = join(dir, 'payouts.plan');
    const r = await asMaker(['plan', 'payout', join(REPO_ROOT, 'samples', 'payouts.csv'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const { plan } = await readPlanFile(out);
    expect(plan).toMatchObject({ op: 'payout', rows: 3, file: { name: 'payouts.csv' } });
    expect(plan.totals).toMatchObject({ EUR: expect.stringMatching(/^\d+\.\d\d$/) });
    expect(plan.content).toMatch(/\S/);
    const ok = await cli(checker, ['approve', out, '--rows', '3']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/next: the run, given this plan: payops payout payouts\.csv --plan /);
  });

  it('a plan against the in-process sandbox is refused: its gateway ends with the command', async () => {
    const r = await cli(maker, ['--sandbox', 'plan', 'refund', csv, '--out', join(dir, 'sb.plan')]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/in-process sandbox/);
    expect(r.stderr).toMatch(/payops sandbox/);
  });

  it.skipIf(!hasScript)(
    'plan and approve fit an 80-column terminal: lines break at spaces, no id is cut',
    async () => {
      const orders = await createOrders(sandbox.url, 6);
      // Long ids, as a dashboard export has them: the lines with them are wider than 80 columns.
      const rows = refundRows(orders).map((r, i) => {
        const row = [...r];
        row[REFUND_HEADER.indexOf('refund_reason')] =
          `customer asked on the phone for a refund of order number ${i}`;
        return row;
      });
      writeCsv(join(dir, 'wide.csv'), REFUND_HEADER, rows);
      const made = await underPty(['plan', 'refund', 'wide.csv', '--out', 'wide.plan'], {
        columns: 80,
        env: { ...cliEnv(maker), ...sandbox.env },
        cwd: dir,
      });
      const planScreen = screenOf(made.raw, 80);
      expect(made.code, made.raw).toBe(0);
      expect(planScreen.wraps, planScreen.lines.join('\n')).toEqual([]);
      const approved = await underPty(['approve', 'wide.plan', '--file', 'wide.csv', '--list'], {
        columns: 80,
        env: cliEnv(checker),
        cwd: dir,
        answers: [['type the number of rows (6)', '6']],
      });
      const screen = screenOf(approved.raw, 80);
      expect(approved.code, approved.raw).toBe(0);
      expect(screen.wraps, screen.lines.join('\n')).toEqual([]);
      // Every id whole on one line: the 5 largest in the plan's summary, all 6 in approve's list.
      const largest = planScreen.lines.filter((l) => /transaction T/.test(l));
      expect(largest, planScreen.lines.join('\n')).toHaveLength(5);
      for (const l of largest) expect(l).toMatch(/transaction T\d{10}$/);
      for (const o of orders) {
        expect(
          screen.lines.some((l) => new RegExp(`${o.transaction_id} +${o.order_no} `).test(l)),
          screen.lines.join('\n'),
        ).toBe(true);
      }
    },
  );

  it.skipIf(!hasScript)('on a terminal the row count is typed', async () => {
    const planPath = await makePlan('typed.plan');
    const run = await underPty(['approve', planPath], {
      env: cliEnv(checker),
      cwd: dir,
      answers: [['type the number of rows (3)', '3']],
    });
    expect(run.code, run.raw).toBe(0);
    expect(run.raw).toMatch(/approved .*typed\.plan/);
    expect((await readPlanFile(planPath)).signatures.map((s) => s.role)).toEqual(['maker', 'approve']);
    expect(await ledger(sandbox.url)).toEqual([]);
  });
});
