// Inputs that hung, spun or were refused for nothing (issue 24 item 10), through the real binary
// against the sandbox, judged by its ledger; every run bounded by a timeout so a hang fails the test.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYOPS_BIN, REPO_ROOT } from '../../helpers/run-cli.js';
import {
  payops,
  REFUND_HEADER,
  type Result,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();

/** A command line run by bash (process substitution, a FIFO's writer), killed after `timeoutMs`. */
function bash(script: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    // The whole group: bash, payops and a FIFO's writer.
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const PAYOPS = `${q(process.execPath)} ${q(PAYOPS_BIN)}`;

async function refundFile(n: number, name = 'refunds.csv') {
  const orders = await suite.gw.createOrders(n);
  return { orders, file: writeCsv(join(suite.dir, name), REFUND_HEADER, refundRows(orders)) };
}

async function expectRefundedOnce(orders: Array<{ transaction_id: string }>) {
  const byTx = refundsByTransaction(await suite.gw.ledger());
  expect(byTx.size).toBe(orders.length);
  for (const o of orders) expect(byTx.get(o.transaction_id)?.length).toBe(1);
}

describe('--file that is not a regular file', () => {
  it('a named FIFO is read once, and the run works (it hung: opened twice)', async () => {
    const { orders, file } = await refundFile(3);
    const fifo = join(suite.dir, 'refunds.fifo');
    const out = join(suite.dir, 'results.csv');
    const r = await bash(
      `mkfifo ${q(fifo)} && { cat ${q(file)} > ${q(fifo)} & } && ${PAYOPS} refund --file ${q(fifo)} --yes --out ${q(out)}`,
      suite.gw.env(suite.dir),
    );
    expect(r.signal, `hung: ${r.stderr}`).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/is a pipe: read once/);
    expect(readResults(out).map((x) => x.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await expectRefundedOnce(orders);
  });

  it('--file <(cat f.csv) is read once and works (it said "/dev/fd/63 is empty")', async () => {
    const { orders, file } = await refundFile(2);
    const r = await bash(`${PAYOPS} refund --file <(cat ${q(file)}) --yes`, suite.gw.env(suite.dir));
    expect(r.signal, `hung: ${r.stderr}`).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/is empty/);
    await expectRefundedOnce(orders);
  });

  it('query --file and payout --file read a pipe once too', async () => {
    const [order] = await suite.gw.createOrders(1);
    const env = suite.gw.env(suite.dir);
    const query = await bash(
      `${PAYOPS} --output csv query --file <(printf 'order_no\\n%s\\n' ${q(order!.order_no)})`,
      env,
    );
    expect(query.code, query.stderr).toBe(0);
    expect(query.stdout).toContain(order!.transaction_id);
    const payout = await bash(`${PAYOPS} --dry-run payout --file <(cat samples/payouts.csv)`, env);
    expect(payout.code, payout.stderr).toBe(0);
    expect(payout.stderr).toMatch(/is a pipe: read once/);
  });

  it('a character device is refused, saying so, nothing sent', async () => {
    const r = await payops(['refund', '--file', '/dev/null', '--yes'], {
      env: suite.gw.env(suite.dir),
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/\/dev\/null is not a file or a pipe/);
    expect(await suite.gw.ledger()).toEqual([]);
  });
});

describe('PAYOPS_HOME that cannot work', () => {
  it('/proc/self is refused with exit 4 (it spun at 94 % CPU forever), nothing sent', async () => {
    const { file } = await refundFile(1);
    const started = Date.now();
    const r = await payops(['refund', '--file', file, '--yes'], {
      env: suite.gw.env(suite.dir, { PAYOPS_HOME: '/proc/self' }),
      timeoutMs: 20_000,
    });
    expect(r.signal, 'spun until killed').toBeNull();
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/PAYOPS_HOME \/proc\/self/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await suite.gw.ledger()).toEqual([]);
  });

  it('a file, or a folder payops cannot write, is refused the same way', async () => {
    const { file } = await refundFile(1);
    // A folder payops cannot write: only for a user the file system holds to its modes (not root).
    const homes = process.getuid?.() === 0 ? [file] : [file, '/'];
    for (const home of homes) {
      const r = await payops(['refund', '--file', file, '--yes'], {
        env: suite.gw.env(suite.dir, { PAYOPS_HOME: home }),
        timeoutMs: 20_000,
      });
      expect(r.code, `${home}: ${r.stderr}`).toBe(4);
      expect(r.stderr).toContain(`PAYOPS_HOME ${home}`);
    }
    expect(await suite.gw.ledger()).toEqual([]);
  });
});

describe('a file name holding a card-like number', () => {
  it('is a file, not a card number: --file and the bare argument both run', async () => {
    const { orders, file } = await refundFile(2);
    const named = join(suite.dir, 'refunds-4242424242424242.csv');
    copyFileSync(file, named);
    const r = await payops(['refund', '--file', named, '--yes'], {
      env: suite.gw.env(suite.dir),
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/looks like a card number/);
    await expectRefundedOnce(orders);
    // The same number as a bare argument that is no file is still refused.
    const bare = await payops(['refund', '4242424242424242', '--yes'], { env: suite.gw.env(suite.dir) });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/looks like a card number/);
  });
});

describe('results cells', () => {
  it('a raw ESC from an input cell is written escaped in the results CSV', async () => {
    const orders = await suite.gw.createOrders(1);
    const file = writeCsv(
      join(suite.dir, 'refunds.csv'),
      [...REFUND_HEADER, 'Note'],
      refundRows(orders).map((r) => [...r, 'see \x1b]0;owned\x07 \x1b[2J']),
    );
    const out = join(suite.dir, 'results.csv');
    const r = await payops(['refund', '--file', file, '--yes', '--out', out], {
      env: suite.gw.env(suite.dir),
    });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
    expect(readResults(out)[0]!.Note).toBe('see \\x1b]0;owned\\x07 \\x1b[2J');
  });
});
