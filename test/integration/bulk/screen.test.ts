// What a person sees at a terminal 80 and 130 columns wide (issue 15): the real binary under a
// pseudo-terminal, its output applied to a model of the terminal. No line is wider than the
// terminal (the terminal wraps none) in the plan, the summary, `runs list`, `runs show`, `query` and
// `refunds search`; run ids stay whole; Ctrl-C clears the bar, prints no row table, counts right.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { REFUND_HEADER, refundRows, useBulkSuite, writeCsv } from './support.js';

const suite = useBulkSuite();
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-f]{4}\b/;
const LONG_REASON =
  'the customer wrote twice that the parcel never arrived although the carrier marked it delivered';

describe.skipIf(!hasScript)('payops on a terminal', { timeout: 120_000 }, () => {
  for (const columns of [80, 130]) {
    it(`at ${columns} columns: the plan, the results, the summary, runs list and runs show fit`, async () => {
      const orders = await suite.gw.createOrders(12);
      const rows = refundRows(orders, LONG_REASON);
      // Two rows the gateway refuses, with its long reason; one order refunded in two parts.
      rows.push(['T9999999991', 'ORD-NOPE-1', 'USD', '10.00', '10.00', LONG_REASON]);
      rows.push(['T9999999992', 'ORD-NOPE-2', 'USD', '10.00', '10.00', LONG_REASON]);
      const half = (Number(orders[0]!.amount) / 2).toFixed(2);
      rows[0]![4] = half;
      rows.push([...rows[0]!.slice(0, 4), half, 'second half']);
      writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
      const env = suite.gw.env(suite.dir);

      const run = await underPty(['refund', '--file', 'refunds.csv', '--yes'], {
        columns,
        env,
        cwd: suite.dir,
      });
      const screen = screenOf(run.raw, columns);
      expect(run.code, run.raw).toBe(1);
      expect(screen.wraps, screen.lines.join('\n')).toEqual([]);
      const text = screen.lines.join('\n');
      // Rows and orders apart: 15 rows of 14 orders.
      expect(text).toMatch(/plan: refund 15 rows \(14 orders\) from/);
      expect(text).toContain('T9999999991');
      expect(text).toMatch(/failed\s+2 /);
      const runId = RUN_ID.exec(text)?.[0];
      expect(runId, text).toBeDefined();

      // In colour too (--color): colour codes take no room.
      for (const args of [
        ['runs', 'list'],
        ['--color', 'runs', 'list'],
        ['runs', 'show', runId!],
        ['--wide', 'runs', 'list'],
      ]) {
        const colour = args[0] === '--color';
        const { NO_COLOR: _, ...withColour } = env;
        const r = await underPty(colour ? args.slice(1) : args, { columns, env: colour ? withColour : env });
        const s = screenOf(r.raw, columns);
        expect(r.code, r.raw).not.toBe(null);
        if (args[0] !== '--wide') expect(s.wraps, s.lines.join('\n')).toEqual([]);
        // Whole on one line of the screen: copied, it is the id.
        expect(
          s.lines.some((l) => l.includes(runId!)),
          s.lines.join('\n'),
        ).toBe(true);
      }
    });

    it(`at ${columns} columns: query and refunds search fit, ids whole`, async () => {
      const orders = await suite.gw.createOrders(5);
      // Partly refunded orders: the status label that used to break over two lines.
      const rows = refundRows(orders, 'partial').map((r) => {
        const part = (Number(r[3]) / 4).toFixed(2);
        return [...r.slice(0, 4), part, ...r.slice(5)];
      });
      const env = suite.gw.env(suite.dir);
      const file = writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, rows);
      expect((await underPty(['refund', '--file', file, '--yes'], { columns, env })).code).toBe(0);
      const ids = orders.map((o) => o.transaction_id).join(',');
      for (const args of [
        ['query', '--transaction-id', ids],
        ['refunds', 'search', '--transaction-id', ids],
      ]) {
        const r = await underPty(args, { columns, env });
        const s = screenOf(r.raw, columns);
        expect(r.code, r.raw).toBe(0);
        expect(s.wraps, s.lines.join('\n')).toEqual([]);
        for (const o of orders) expect(s.lines.some((l) => l.includes(o.transaction_id))).toBe(true);
      }
    });
  }

  it('Ctrl-C at 80 columns: the bar is cleared, no row table, the counts add up, what to do next', async () => {
    const columns = 80;
    const orders = await suite.gw.createOrders(1500);
    writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    await suite.gw.faults({ mode: 'none', latency_ms: 100 });
    // Run where the file is, as an operator does: the resume command (never broken, a command to
    // copy) then fits the terminal too.
    const run = await underPty(['refund', '--file', 'refunds.csv', '--yes', '--concurrency', '2'], {
      columns,
      cwd: suite.dir,
      env: suite.gw.env(suite.dir),
      // Once some rows have settled: the bar shows a count above zero.
      interruptWhen: (raw) => /refund \[[█░]+\] [1-9][\d,]*\/1,500/.test(raw),
    });
    await suite.gw.faults({ mode: 'none' });
    const screen = screenOf(run.raw, columns);
    const text = screen.lines.join('\n');
    expect(run.code, text).toBe(130);
    expect(screen.wraps, text).toEqual([]);
    // The bar is gone from the screen, and never reached the end.
    expect(
      screen.lines.filter((l) => l.startsWith('refund [')),
      text,
    ).toEqual([]);
    expect(run.raw).not.toContain('1,500/1,500');
    expect(text).toContain('stopping after the requests in flight…');
    // No row table: its borders and the not_sent rows are not on the screen.
    expect(text).not.toMatch(/[│┌└]/);
    expect(text).not.toContain(orders[1499]!.transaction_id);
    const succeeded = Number(/succeeded\s+([\d,]+)/.exec(text)?.[1]?.replace(/,/g, ''));
    const notSent = Number(/not sent\s+([\d,]+)/.exec(text)?.[1]?.replace(/,/g, ''));
    expect(succeeded + notSent, text).toBe(1500);
    expect(succeeded).toBeGreaterThan(0);
    const ledger = await suite.gw.ledger();
    expect(ledger.filter((e) => e.kind === 'refund')).toHaveLength(succeeded);
    expect(text).toMatch(/every row: payops runs show \d{8}-\d{6}-[0-9a-f]{4}/);
    expect(text).toMatch(/resume with: payops refund --file refunds\.csv --resume/);
  });

  it('above confirm_typed_above the number of rows is typed: another answer sends nothing', async () => {
    const columns = 80;
    const orders = await suite.gw.createOrders(3);
    writeCsv(join(suite.dir, 'refunds.csv'), REFUND_HEADER, refundRows(orders));
    const env = suite.gw.env(suite.dir);
    const set = await underPty(['config', 'set', 'confirm_typed_above', 'usd:1, EUR:5'], { columns, env });
    expect(set.code, set.raw).toBe(0);
    const prompt = 'type the number of rows (3) to go ahead:';
    const refund = (answer: string) =>
      underPty(['refund', '--file', 'refunds.csv'], {
        columns,
        env,
        cwd: suite.dir,
        answers: [[prompt, answer]],
      });
    const no = await refund('y');
    expect(no.code, no.raw).toBe(2);
    expect(no.raw).toContain("this is above the profile's confirm_typed_above (USD 1.00)");
    expect(no.raw).toContain('nothing was sent: the answer was');
    expect(await suite.gw.ledger()).toEqual([]);
    const yes = await refund('3');
    expect(yes.code, yes.raw).toBe(0);
    expect((await suite.gw.ledger()).filter((e) => e.kind === 'refund')).toHaveLength(3);
    expect(screenOf(yes.raw, columns).wraps).toEqual([]);
  });
});
