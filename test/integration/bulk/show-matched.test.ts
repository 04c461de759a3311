// `payops runs show` of a run whose file named its columns as a dashboard does ("Transaction ID",
// "Order No.", "Refund Amount"): the table shows the order's id, number and amount columns under the
// file's own headers, as the run's own results table did (issue 26, item 4). It showed only the
// currency and the gateway's columns. Under a pseudo-terminal 100 columns wide, the real binary
// with the built-in sandbox (its demo orders are the sample's); `runs show` needs no gateway.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';

describe.skipIf(!hasScript)('runs show of a file with dashboard headers', { timeout: 120_000 }, () => {
  it('shows Transaction ID, Order No. and Refund Amount, as the run did', async () => {
    const [, ...rows] = readFileSync(join(REPO_ROOT, 'samples', 'refunds.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    const dir = tempDir();
    writeFileSync(
      join(dir, 'export.csv'),
      `Transaction ID,Order No.,Currency,Amount,Refund Amount,Reason,Ticket\n${rows.slice(0, 3).join('\n')}\n`,
    );
    const home = tempDir();
    const run = await runCli(['--sandbox', 'refund', 'export.csv', '--yes'], { cwd: dir, home });
    expect(run.code, run.stderr).toBe(0);
    const shown = await underPty(['runs', 'show'], {
      columns: 100,
      env: cliEnv(home, { NO_COLOR: '1' }),
      cwd: dir,
    });
    const screen = screenOf(shown.raw, 100).lines.join('\n');
    expect(shown.code, screen).toBe(0);
    // The header may fold over two lines ("Order" / "No."); the first row holds the values.
    const head = screenOf(shown.raw, 100).lines.find((l) => l.includes('outcome')) ?? '';
    for (const h of ['Transaction', 'Order', 'Refund']) expect(head, screen).toContain(h);
    const [tx, order, , , refund] = rows[0]!.split(',');
    const first = screenOf(shown.raw, 100).lines.find((l) => l.includes(tx!)) ?? '';
    for (const v of [tx!, order!, refund!]) expect(first, screen).toContain(v);
  });
});
