// The audit export's writers: a card number that reached a journal (a gateway message echoing one)
// is masked in every kind of file; the JSON document is one valid document, runs without rows
// included; CSV and .xlsx repeat the run's columns on each of its rows.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROW_COLUMNS, type RowData, RUN_COLUMNS, type RunData } from '../../../src/audit/audit-rows.js';
import { type AuditFormat, openAuditWriter } from '../../../src/audit/audit-view.js';
import { readCsv } from '../../../src/tabular/csv-reader.js';

const CARD = '4111111111111111';

function run(id: string): RunData {
  const d = Object.fromEntries(RUN_COLUMNS.map((c) => [c, ''])) as unknown as RunData;
  return {
    ...d,
    run_id: id,
    plan_id: 'none',
    chain: 'intact',
    chain_lines: 5,
    sandbox: false,
    approvers: [],
  };
}

function row(line: number): RowData {
  const r = Object.fromEntries(ROW_COLUMNS.map((c) => [c, ''])) as RowData;
  return {
    ...r,
    line,
    transaction_id: 'T0000000001',
    outcome: 'failed',
    detail: `E2005: card ${CARD} declined`,
    answer: JSON.stringify({ refund_message: `E2005: card ${CARD} declined` }),
  };
}

async function write(format: AuditFormat): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'payops-audit-')), `audit.${format}`);
  const w = await openAuditWriter(file, format);
  await w.run(run('20261206-000000-aaaa'));
  await w.row(row(2));
  await w.row(row(3));
  await w.run(run('20261206-000001-bbbb'));
  await w.end();
  return file;
}

describe('the audit export files', () => {
  it('JSON: one document, runs and their rows, a card number masked', async () => {
    const text = readFileSync(await write('json'), 'utf8');
    expect(text).not.toContain(CARD);
    const doc = JSON.parse(text) as { runs: Array<{ run_id: string; rows: Array<Record<string, unknown>> }> };
    expect(doc.runs.map((r) => [r.run_id, r.rows.length])).toEqual([
      ['20261206-000000-aaaa', 2],
      ['20261206-000001-bbbb', 0],
    ]);
    expect(doc.runs[0]!.rows[0]!.detail).toBe('E2005: card 411111******1111 declined');
    expect(doc.runs[0]!.rows[0]!.answer).toEqual({ refund_message: 'E2005: card 411111******1111 declined' });
  });

  it('CSV and .xlsx: a line per row with its run repeated, a run without rows on a line of its own, masked', async () => {
    for (const format of ['csv', 'xlsx'] as const) {
      const file = await write(format);
      if (format === 'csv') expect(readFileSync(file, 'utf8')).not.toContain(CARD);
      const r = readCsv({ file });
      await r.header;
      const rows: Array<Record<string, string>> = [];
      for await (const x of r.rows) rows.push(x.fields);
      expect(rows.map((x) => [x.run_id, x.line, x.chain])).toEqual([
        ['20261206-000000-aaaa', '2', 'intact'],
        ['20261206-000000-aaaa', '3', 'intact'],
        ['20261206-000001-bbbb', '', 'intact'],
      ]);
      expect(rows[0]!.detail, format).toBe('E2005: card 411111******1111 declined');
      expect(JSON.stringify(rows), format).not.toContain(CARD);
    }
  });
});
