// Help and messages on a real terminal never break a word (issue 27, item 7): at 80 and 130
// columns the terminal wraps no line (screenOf counts every line it had to wrap), the top level
// shows its commands before the global options, `refund --help` keeps the --file description in
// its column, and the query's not-found hint and a run's end-of-run lines are wrapped at spaces.
// Under a pseudo-terminal (util-linux `script`), against the built-in sandbox.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, tempDir } from '../../helpers/run-cli.js';

async function screen(args: string[], columns: number) {
  const home = tempDir();
  const r = await underPty(args, { columns, env: cliEnv(home, { PAYOPS_PAGER: '', NO_COLOR: '1' }) });
  return { code: r.code, ...screenOf(r.raw, columns) };
}

describe.skipIf(!hasScript)('no word broken at the terminal (issue 27, item 7)', () => {
  for (const columns of [80, 130]) {
    it(`payops --help at ${columns} columns: no line wrapped, commands before global options`, async () => {
      const s = await screen(['--help'], columns);
      expect(s.code).toBe(0);
      expect(s.wraps).toEqual([]);
      const text = s.lines.join('\n');
      expect(text.indexOf('Money movements')).toBeLessThan(text.indexOf('Global options'));
      expect(text).toContain('payops runs show --only failed,not_sent --out fix.csv');
    });

    it(`payops refund --help at ${columns} columns: --file's description in its column`, async () => {
      const s = await screen(['refund', '--help'], columns);
      expect(s.wraps).toEqual([]);
      const at = s.lines.findIndex((l) => l.startsWith('  --file <csv>'));
      const column = s.lines[at]!.indexOf('orders to refund');
      expect(column).toBeGreaterThan(10);
      const next = s.lines[at + 1]!;
      if (!next.startsWith('  --')) expect(next.slice(0, column).trim()).toBe('');
      expect(s.lines.join('\n')).toMatch(/Global options it honours[^\n]*\n[^\n]*--profile/);
    });
  }

  it('the query not-found hint at 80 columns: wrapped at spaces', async () => {
    const s = await screen(['--sandbox', 'query', 'T0000000005'], 80);
    expect(s.wraps).toEqual([]);
    expect(s.lines.join(' ').replace(/\s+/g, ' ')).toMatch(
      /looked up as an order number; as a transaction id: payops --sandbox query --transaction-id T0000000005/,
    );
    // The command to copy is whole on its own line.
    expect(s.lines).toContain('  payops --sandbox query --transaction-id T0000000005');
  });

  it('the end-of-run lines at 80 columns: wrapped at spaces', async () => {
    const dir = tempDir();
    const file = join(dir, 'refunds-for-the-month-of-november.csv');
    writeFileSync(
      file,
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason\n' +
        'T0000000001,ORD-1001,USD,100.00,100.00,customer request\nT9999999999,ORD-NOPE,USD,1.00,1.00,r\n',
    );
    const s = await screen(['--sandbox', 'refund', file, '--yes', '--out', join(dir, 'r.csv')], 80);
    expect(s.code).toBe(1);
    // Only a path wider than the screen by itself (the temporary folders here) may run past the edge:
    // a line of words is always broken at a space.
    for (const w of s.wraps) expect(w.trim(), w).not.toMatch(/\s/);
    expect(s.lines.join('\n')).toMatch(/refund run \d{8}-\d{6}-[0-9a-f]+/);
  });
});
