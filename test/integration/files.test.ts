// The files payops writes, through the real binary against a sandbox in this process (issue 13,
// items 4–6): --out never follows a link, never replaces what is not the user's own regular file,
// never is the input; results go to a private temporary file renamed into place; a PAYOPS_HOME
// payops cannot write stops the run before anything is sent (exit 4). Money is judged by the ledger.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, PAYOPS_BIN, REPO_ROOT, type RunResult, runCli, tempDir } from '../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { createOrders, ledger, type SandboxOrder } from '../helpers/sandbox-admin.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox?.close());

const HEADER = 'transaction_id,order_no,currency,amount,refund_amount,refund_reason';

function refundFile(dir: string, orders: readonly SandboxOrder[], name = 'refunds.csv'): string {
  const rows = orders.map((o) => `${o.transaction_id},${o.order_no},${o.currency},${o.amount},1.00,test`);
  const path = join(dir, name);
  writeFileSync(path, `${[HEADER, ...rows].join('\n')}\n`);
  return path;
}

async function refundsOf(orders: readonly SandboxOrder[]): Promise<number> {
  const ids = new Set(orders.map((o) => o.transaction_id));
  return (await ledger(sandbox.url)).filter((e) => e.kind === 'refund' && ids.has(e.transaction_id)).length;
}

/** Names in a folder that look like payops's temporary results files. */
function strayTemps(dir: string): string[] {
  return readdirSync(dir).filter((n) => /\.payops-[0-9a-f]+\.tmp$/.test(n));
}

const run = (args: string[], cwd: string, home?: string) =>
  runCli(args, { env: sandbox.env, cwd, ...(home ? { home } : {}) });

describe('--out: results written to a private temporary file, renamed into place', () => {
  it('refuses a symbolic link before anything is sent; the file it points at is untouched (exit 2)', async () => {
    const dir = tempDir();
    const orders = await createOrders(sandbox.url, 3);
    const file = refundFile(dir, orders);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n', { mode: 0o644 });
    chmodSync(victim, 0o644);
    symlinkSync('victim.txt', join(dir, 'link.csv'));
    const r = await run(['refund', '--file', file, '--yes', '--out', 'link.csv'], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--out link\.csv is a symbolic link/);
    expect(r.stderr).toContain('nothing was sent');
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(await refundsOf(orders)).toBe(0);
    expect(strayTemps(dir)).toEqual([]);
  });

  it('refuses a folder or a pipe as --out (exit 2, nothing sent)', async () => {
    const dir = tempDir();
    const orders = await createOrders(sandbox.url, 2);
    const file = refundFile(dir, orders);
    mkdirSync(join(dir, 'folder.csv'));
    const asDir = await run(['refund', '--file', file, '--yes', '--out', 'folder.csv'], dir);
    expect(asDir.code, asDir.stderr).toBe(2);
    expect(asDir.stderr).toMatch(/--out folder\.csv is a folder/);
    const asDevice = await run(['refund', '--file', file, '--yes', '--out', '/dev/null'], dir);
    expect(asDevice.code, asDevice.stderr).toBe(2);
    expect(asDevice.stderr).toMatch(/--out \/dev\/null is a device/);
    expect(await refundsOf(orders)).toBe(0);
  });

  it('replaces an existing results file of the user: private (0600), complete, no temporary file left', async () => {
    const dir = tempDir();
    const orders = await createOrders(sandbox.url, 3);
    const file = refundFile(dir, orders);
    const out = join(dir, 'results.csv');
    writeFileSync(out, 'old results\n');
    chmodSync(out, 0o644);
    const r = await run(['refund', '--file', file, '--yes', '--out', 'results.csv'], dir);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('old results');
    expect(text.trim().split('\r\n')).toHaveLength(4);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(strayTemps(dir)).toEqual([]);
    expect(await refundsOf(orders)).toBe(3);
  });

  it('leaves an existing --out as it was when the run never began (nothing sent)', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `${HEADER}\nT1,O1,USD,abc,1.00,x\n`);
    writeFileSync(join(dir, 'results.csv'), 'old results\n');
    const r = await run(['refund', '--file', file, '--yes', '--out', 'results.csv'], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(readFileSync(join(dir, 'results.csv'), 'utf8')).toBe('old results\n');
    expect(strayTemps(dir)).toEqual([]);
  });

  it('pay checkout --out refuses a link to another file before the payment is made', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'victim.txt'), 'keep me\n');
    symlinkSync('victim.txt', join(dir, 'page.html'));
    const r = await run(
      [
        '--out',
        'page.html',
        'pay',
        'checkout',
        '--request',
        join(REPO_ROOT, 'samples/checkout-request.json'),
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--out page\.html is a symbolic link/);
    expect(readFileSync(join(dir, 'victim.txt'), 'utf8')).toBe('keep me\n');
  });

  it('pay checkout --open puts the page in a private folder of its own, not at a predictable name', async () => {
    const r = await runCli(
      ['--yes', 'pay', 'checkout', '--request', join(REPO_ROOT, 'samples/checkout-request.json'), '--open'],
      { env: { ...sandbox.env, PAYOPS_NO_OPEN: '1' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const page = /the page is in (\S+\.html)/.exec(r.stderr)?.[1];
    expect(page, r.stderr).toBeDefined();
    const folder = dirname(page!);
    expect(folder).not.toBe(tmpdir());
    expect(basename(folder)).toMatch(/^payops-checkout-/);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(page!).mode & 0o777).toBe(0o600);
    expect(readFileSync(page!, 'utf8')).toMatch(/<form/i);
  });
});

/** payops with its file size limited to `kb` KB (writes beyond it fail with EFBIG, as on a full disk). */
function runLimited(kb: number, args: string[], cwd: string, home: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'bash',
      ['-c', `ulimit -f ${kb}; exec "$0" "$@"`, process.execPath, PAYOPS_BIN, ...args],
      { cwd, env: cliEnv(home, sandbox.env), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, home }));
  });
}

describe.runIf(process.platform === 'linux' && existsSync('/bin/bash'))(
  'a results file that cannot be written',
  () => {
    it('does not stop the run: it ends in its journal, the old --out stays, exit 4 says why', async () => {
      const dir = tempDir();
      const home = tempDir();
      const orders = await createOrders(sandbox.url, 1000);
      const file = refundFile(dir, orders);
      writeFileSync(join(dir, 'results.json'), '"old"\n');
      // 1,000 rows: a journal of ~90 KB fits under 160 KB, their JSON results (~330 KB) do not.
      const r = await runLimited(
        160,
        ['refund', '--file', file, '--yes', '--out', 'results.json'],
        dir,
        home,
      );
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(
        /cannot write the results to \S+results\.json: the file is larger than this process may write \(EFBIG\)/,
      );
      expect(r.stderr).toContain('payops runs show');
      expect(readFileSync(join(dir, 'results.json'), 'utf8')).toBe('"old"\n');
      expect(strayTemps(dir)).toEqual([]);
      const refunds = (await ledger(sandbox.url)).filter(
        (e) => e.kind === 'refund' && orders.some((o) => o.transaction_id === e.transaction_id),
      );
      expect(refunds).toHaveLength(1000);
      // The journal has every row: the results are written again from it.
      const runId = /refund run (\S+):/.exec(r.stderr)![1]!;
      const shown = await run(['runs', 'show', runId, '--out', 'results.json'], dir, home);
      expect(shown.code, shown.stderr).toBe(0);
      const rows = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Array<{ outcome: string }>;
      expect(rows).toHaveLength(1000);
      expect(rows.every((x) => x.outcome === 'succeeded')).toBe(true);
    });
  },
);

describe('--out the same file as the input is refused up front (exit 2, nothing sent)', () => {
  it('bulk: the same path, another spelling of it, a hard link and a symbolic link to it', async () => {
    const dir = tempDir();
    const orders = await createOrders(sandbox.url, 2);
    const file = refundFile(dir, orders);
    const before = readFileSync(file, 'utf8');
    mkdirSync(join(dir, 'sub'));
    linkSync(file, join(dir, 'hard.csv'));
    symlinkSync('refunds.csv', join(dir, 'soft.csv'));
    for (const out of ['refunds.csv', 'sub/../refunds.csv', 'hard.csv', 'soft.csv']) {
      const r = await run(['refund', '--file', 'refunds.csv', '--yes', '--out', out], dir);
      expect(r.code, `${out}: ${r.stderr}`).toBe(2);
      expect(r.stderr, out).toContain(`--out ${out} is the same file as --file refunds.csv`);
      expect(r.stderr, out).toContain('nothing was sent');
      expect(r.stderr, out).not.toMatch(/changed while payops was checking it/);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
    expect(await refundsOf(orders)).toBe(0);
  });

  it('query --file', async () => {
    const dir = tempDir();
    const [order] = await createOrders(sandbox.url, 1);
    const file = join(dir, 'orders.csv');
    writeFileSync(file, `order_no\n${order!.order_no}\n`);
    const r = await run(['query', '--file', 'orders.csv', '--out', 'orders.csv'], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--out orders.csv is the same file as --file orders.csv');
    expect(readFileSync(file, 'utf8')).toBe(`order_no\n${order!.order_no}\n`);
  });

  it('payout --file and --request', async () => {
    const dir = tempDir();
    const csv = join(dir, 'payouts.csv');
    writeFileSync(csv, readFileSync(join(REPO_ROOT, 'samples/payouts.csv')));
    const json = join(dir, 'payout.json');
    writeFileSync(json, readFileSync(join(REPO_ROOT, 'samples/payout-request.json')));
    const payoutsBefore = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout').length;
    for (const [flag, name] of [
      ['--file', 'payouts.csv'],
      ['--request', 'payout.json'],
    ] as const) {
      const r = await run(['--yes', 'payout', flag, name, '--out', name], dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--out ${name} is the same file as ${flag} ${name}`);
    }
    expect(readFileSync(csv)).toEqual(readFileSync(join(REPO_ROOT, 'samples/payouts.csv')));
    expect((await ledger(sandbox.url)).filter((e) => e.kind === 'payout').length).toBe(payoutsBefore);
  });
});

/** payops as another user (root cannot be kept out of a read-only folder). */
function runAsNobody(args: string[], cwd: string, home: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAYOPS_BIN, ...args], {
      cwd,
      env: cliEnv(home, sandbox.env),
      uid: 65534,
      gid: 65534,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, home }));
  });
}

describe('a PAYOPS_HOME payops cannot write', () => {
  it('stops before anything is sent: exit 4, "cannot write the run journal in …", what to do', async () => {
    const dir = tempDir();
    const orders = await createOrders(sandbox.url, 2);
    const file = refundFile(dir, orders);
    // Its state folder is a file: nothing can be created under it, for root too.
    const home = tempDir();
    writeFileSync(join(home, 'state'), '');
    const r = await run(['refund', '--file', file, '--yes', '--out', 'results.csv'], dir, home);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`cannot write the run journal in ${join(home, 'state')}`);
    expect(r.stderr).toMatch(/PAYOPS_HOME/);
    expect(r.stderr).not.toMatch(/unexpected/);
    expect(await refundsOf(orders)).toBe(0);
    expect(existsSync(join(dir, 'results.csv'))).toBe(false);
    expect(strayTemps(dir)).toEqual([]);
  });

  it('read-only: exit 4, nothing sent', async () => {
    const dir = tempDir();
    const orders = await createOrders(sandbox.url, 2);
    const file = refundFile(dir, orders);
    const home = tempDir();
    // A home anyone can write, its state folder read-only: the journal cannot be written.
    chmodSync(home, 0o777);
    mkdirSync(join(home, 'state'));
    chmodSync(join(home, 'state'), 0o555);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    const args = ['refund', '--file', file, '--yes'];
    const root = process.getuid?.() === 0;
    // Another user must be able to reach the folders (the test run's scratch folder is private).
    if (root) chmodSync(dirname(home), 0o711);
    const r = root ? await runAsNobody(args, dir, home) : await run(args, dir, home);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`cannot write the run journal in ${join(home, 'state')}`);
    expect(r.stderr).toMatch(/permission denied/);
    // The home itself read-only: refused before anything is read or written (issue 24, config/home.ts).
    chmodSync(home, 0o555);
    const h = root ? await runAsNobody(args, dir, home) : await run(args, dir, home);
    expect(h.code, h.stderr).toBe(4);
    expect(h.stderr).toContain(
      `PAYOPS_HOME ${home} cannot hold payops's configuration and runs: you cannot write to it`,
    );
    expect(await refundsOf(orders)).toBe(0);
  });
});

// Seen by hand: `--out $PAYOPS_HOME/state/runs/<id>/journal.jsonl` replaced a finished run's journal
// with the new run's results (the file is the user's own, so it passed), after which every refund in
// that PAYOPS_HOME stopped on "the journal of run … cannot be read"; `--out $PAYOPS_HOME/config.json`
// replaced the profiles and the sign key. payops's own files are not results files.
describe("--out into payops's own state is refused (exit 2, nothing sent)", () => {
  it('a run journal and the config file stay as they were', async () => {
    const dir = tempDir();
    const home = tempDir('payops-home-');
    const first = await createOrders(sandbox.url, 2);
    refundFile(dir, first, 'first.csv');
    const done = await run(['refund', '--file', 'first.csv', '--yes'], dir, home);
    expect(done.code, done.stderr).toBe(0);
    const runId = /refund run (\S+):/.exec(done.stderr)![1]!;
    const journal = join(home, 'state', 'runs', runId, 'journal.jsonl');
    const journalBefore = readFileSync(journal, 'utf8');
    const config = join(home, 'config.json');
    writeFileSync(config, '{"profiles":{"default":{"merchant_id":"800001"}},"current":"default"}\n', {
      mode: 0o600,
    });
    const configBefore = readFileSync(config, 'utf8');
    const second = await createOrders(sandbox.url, 2);
    refundFile(dir, second, 'second.csv');
    for (const out of [journal, config]) {
      const r = await run(['refund', '--file', 'second.csv', '--yes', '--out', out], dir, home);
      expect(r.code, `${out}: ${r.stderr}`).toBe(2);
      expect(r.stderr, out).toContain('nothing was sent');
    }
    expect(readFileSync(journal, 'utf8')).toBe(journalBefore);
    expect(readFileSync(config, 'utf8')).toBe(configBefore);
    expect(await refundsOf(second)).toBe(0);
  });
});
