import { describe, expect, it } from 'vitest';
import { resultLayout } from '../../../src/bulk/results.js';
import { openResultSink, TABLE_ROWS } from '../../../src/bulk/ui.js';
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
    expect(text).toContain(`${rows - 1} of ${rows} rows not shown (only rows that did not succeed are)`);
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
