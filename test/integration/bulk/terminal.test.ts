// A bulk run on a terminal 80 columns wide (util-linux `script` gives the real binary a pty): while
// rows wait out the settle time, the progress line says so and still fits the terminal.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYOPS_BIN, REPO_ROOT } from '../../helpers/run-cli.js';
import { underPty as answeringPty, CTRL_C } from '../commands/pty.js';
import {
  REFUND_HEADER,
  readResults,
  refundRows,
  refundsByTransaction,
  useBulkSuite,
  writeCsv,
} from './support.js';

const suite = useBulkSuite();
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

function underPty(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const quoted = [process.execPath, PAYOPS_BIN, ...args]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(' ');
  const child = spawn('script', ['-qec', `stty cols 80 rows 24; ${quoted}`, '/dev/null'], {
    cwd: REPO_ROOT,
    // No pager: `less` would wait for keys nobody types (output/pager.ts).
    env: { PAYOPS_PAGER: '', ...env, TERM: 'xterm' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** What a person sees line by line: each redraw (back to column 1) a line, control sequences removed. */
function screenLines(out: string): string[] {
  const plain = out
    .replace(/\x1b\[1G/g, '\n')
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\x1b[78]/g, '');
  return plain.split(/\r\n|\r|\n/);
}

describe.skipIf(!hasScript)('a bulk run on an 80-column terminal', () => {
  it('says beside the bar that rows wait to settle, within 80 columns', async () => {
    const orders = await suite.gw.createOrders(200);
    const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const out = join(suite.dir, 'results.csv');
    await suite.gw.faults({ mode: 'error500', rate: 0.3, seed: 3, latency_ms: 100, paths: ['/v1/refund'] });
    const r = await underPty(
      ['refund', '--file', file, '--yes', '--out', out, '--settle-time', '2s', '--concurrency', '1'],
      suite.gw.env(suite.dir),
    );
    await suite.gw.faults({ mode: 'none' });
    expect(r.code, r.out).toBe(0);
    const bars = screenLines(r.out).filter((l) => l.startsWith('refund ['));
    expect(
      bars.some((l) => /\d+ lost, asked again in \d+s/.test(l)),
      r.out,
    ).toBe(true);
    expect(bars.filter((l) => l.length > 80)).toEqual([]);
    expect(readResults(out).every((x) => x.outcome === 'succeeded')).toBe(true);
    expect([...refundsByTransaction(await suite.gw.ledger()).values()].every((l) => l.length === 1)).toBe(
      true,
    );
  });

  it('says it is checking at the gateway while a slow gateway answers the look-ups, then clears it', async () => {
    // A file of thousands of rows against a slow or rate-limited gateway: the screen stayed blank
    // until the plan, a minute with no word of what payops was doing.
    const orders = await suite.gw.createOrders(300);
    const file = writeCsv(join(suite.dir, 'refunds-slow.csv'), REFUND_HEADER, refundRows(orders));
    await suite.gw.faults({ mode: 'none', latency_ms: 400, paths: ['/v1/retrievalRefund'] });
    const r = await underPty(['refund', '--file', file, '--dry-run'], suite.gw.env(suite.dir));
    await suite.gw.faults({ mode: 'none' });
    expect(r.code, r.out).toBe(0);
    const lines = screenLines(r.out);
    const checking = lines.filter((l) => l.startsWith('checking 300 rows at the gateway'));
    expect(checking.length, r.out).toBeGreaterThan(0);
    expect(checking.filter((l) => l.length > 80)).toEqual([]);
    // Cleared before the plan: its first line starts at column 1 on a line of its own.
    expect(
      lines.some((l) => /^(plan|dry run)/.test(l)),
      r.out,
    ).toBe(true);
  });

  it('Ctrl-C while it checks at the gateway ends it at once, saying nothing was sent', async () => {
    // It ended silently: the terminal showed "^C" and the prompt, no word of what had moved.
    const orders = await suite.gw.createOrders(300);
    const file = writeCsv(join(suite.dir, 'refunds-stop.csv'), REFUND_HEADER, refundRows(orders));
    await suite.gw.faults({ mode: 'none', latency_ms: 5000, paths: ['/v1/retrievalRefund'] });
    const r = await answeringPty(
      ['refund', '--file', file, '--yes'],
      [['checking 300 rows at the gateway', CTRL_C]],
      suite.gw.env(suite.dir),
    );
    await suite.gw.faults({ mode: 'none' });
    expect(r.unanswered).toEqual([]);
    expect(r.out).toMatch(/stopped while checking at the gateway: nothing was sent/);
    expect(r.code).toBe(130);
    expect(refundsByTransaction(await suite.gw.ledger()).size).toBe(0);
  });
});
