import { describe, expect, it } from 'vitest';
import { resultLayout } from '../../../src/bulk/report/results.js';
import { openResultSink, TABLE_ROWS } from '../../../src/bulk/report/ui.js';
import type { Context } from '../../../src/context.js';
import { fakeIo } from '../output/helpers.js';

function tableContext() {
  const { io, stdout } = fakeIo({ stdoutTTY: true });
  return { ctx: { globals: {}, io, color: false } as unknown as Context, stdout };
}

describe('result table on a terminal', () => {
  it('shows a large run’s rows that did not succeed, even when the input has its own outcome column', async () => {
    const layout = resultLayout('refund', ['transaction_id', 'outcome']);
    expect(layout.outcomeColumn).toBe('result_outcome');
    const { ctx, stdout } = tableContext();
    const sink = await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn);
    const rows = TABLE_ROWS + 50;
    for (let i = 0; i < rows; i++) {
      const failed = i === 230;
      const cells = layout.columns.map(() => '');
      cells[0] = `T${i}`;
      cells[1] = 'their own note';
      cells[layout.columns.indexOf(layout.outcomeColumn)] = failed ? 'failed' : 'succeeded';
      cells[layout.columns.indexOf(layout.detailColumn)] = failed ? 'E2003:state 5000' : 'accepted';
      sink.writeCells(cells);
    }
    await sink.close();
    const text = stdout.text();
    expect(text).toContain('T230');
    expect(text).not.toContain('T0 ');
    // Changed on purpose (issue 15): the footer counts the rows that succeeded and are not shown.
    expect(text).toContain(`${rows - 1} rows that succeeded not shown (${rows} rows in all)`);
  });

  it('counts every row that did not succeed, beyond those the table has room for', async () => {
    const layout = resultLayout('refund', ['transaction_id']);
    const { ctx, stdout } = tableContext();
    const sink = await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn);
    const rows = 5000;
    for (let i = 0; i < rows; i++) {
      const cells = layout.columns.map(() => '');
      cells[0] = `T${i}`;
      cells[layout.columns.indexOf(layout.outcomeColumn)] = i % 2 === 0 ? 'succeeded' : 'failed';
      sink.writeCells(cells);
    }
    await sink.close();
    expect(stdout.text()).toContain(
      `${TABLE_ROWS} of the 2,500 rows that did not succeed shown (5,000 rows in all)`,
    );
  });

  it('says plainly that every row of a large run succeeded', async () => {
    const layout = resultLayout('refund', ['transaction_id']);
    const { ctx, stdout } = tableContext();
    const sink = await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn);
    for (let i = 0; i < 3000; i++) {
      const cells = layout.columns.map(() => '');
      cells[0] = `T${i}`;
      cells[layout.columns.indexOf(layout.outcomeColumn)] = 'succeeded';
      sink.writeCells(cells);
    }
    await sink.close();
    expect(stdout.text()).toBe(
      'all 3,000 rows succeeded (not listed here): write them all with --out results.csv\n',
    );
  });

  it('prints no rows for an interrupted run', async () => {
    const layout = resultLayout('refund', ['transaction_id']);
    const { ctx, stdout } = tableContext();
    const sink = await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn);
    const cells = layout.columns.map(() => '');
    cells[0] = 'T1';
    cells[layout.columns.indexOf(layout.outcomeColumn)] = 'not_sent';
    sink.writeCells(cells);
    await sink.close({ interrupted: true });
    expect(stdout.text()).toBe('');
  });

  it('shows every row of a small run', async () => {
    const layout = resultLayout('refund', ['transaction_id']);
    const { ctx, stdout } = tableContext();
    const sink = await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn);
    for (const id of ['T1', 'T2']) {
      const cells = layout.columns.map(() => '');
      cells[0] = id;
      cells[layout.columns.indexOf(layout.outcomeColumn)] = 'succeeded';
      sink.writeCells(cells);
    }
    await sink.close();
    expect(stdout.text()).toMatch(/T1[\s\S]*T2/);
    expect(stdout.text()).not.toContain('not shown');
  });
});
