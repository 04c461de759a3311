// Issue 26, items 2 and 6, through the real binary against a sandbox on loopback, judged by its
// ledger: a workbook LibreOffice wrote (test/fixtures/xlsx/formats.fods → formats.xlsx) whose order
// numbers are numbers formatted 000000 (the sheet shows 001234) and whose reason is merged over
// three rows, with an extra column of dates. Before, the order numbers were read as 1234 (the gateway answered E2001) and the two
// lower rows were refused as having no reason; results.xlsx held the dates as serial numbers.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatOf, styleFormats } from '../../../src/sheets/number-format.js';
import { openWorkbook, sheetRows as rawRows } from '../../../src/sheets/workbook.js';
import { readCsv } from '../../../src/tabular/csv-reader.js';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { withSandbox } from '../../helpers/sandbox.js';
import { ledger } from '../../helpers/sandbox-admin.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');
const seeded = { seedFiles: [join(FIXTURES, 'orders-formats.csv')] };

async function sheetRows(file: string): Promise<Array<Record<string, string>>> {
  const r = readCsv({ file });
  await r.header;
  const out: Array<Record<string, string>> = [];
  for await (const row of r.rows) out.push(row.fields);
  return out;
}

describe('.xlsx number formats and merged cells against the sandbox', { timeout: 120_000 }, () => {
  it('zero-padded order numbers refund the orders the sheet shows; a merged reason is every row’s', async () => {
    await withSandbox(async (sandbox) => {
      const dir = tempDir();
      copyFileSync(join(FIXTURES, 'formats.xlsx'), join(dir, 'formats.xlsx'));
      const dry = await runCli(['refund', '--file', 'formats.xlsx', '--dry-run'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout + dry.stderr).toMatch(
        /merged cells: F2:F4 \(refund_reason\): the value of its first cell applies to every row it covers/,
      );
      const r = await runCli(['refund', '--file', 'formats.xlsx', '--yes', '--out', 'results.xlsx'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      const refunds = (await ledger(sandbox.url)).filter((e) => e.kind === 'refund');
      expect(refunds.map((e) => [e.transaction_id, e.order_no, e.refund_amount ?? e.amount]).sort()).toEqual([
        ['TX26000001', '001234', '10.20'],
        ['TX26000002', '001235', '49.99'],
        ['TX26000003', '020001', '0.50'],
      ]);
      const results = await sheetRows(join(dir, 'results.xlsx'));
      expect(results.map((x) => x.order_no)).toEqual(['001234', '001235', '020001']);
      expect(results.map((x) => x.refund_reason)).toEqual([
        'damaged in transit',
        'damaged in transit',
        'damaged in transit',
      ]);
      expect(results.every((x) => x.outcome === 'succeeded')).toBe(true);
      // The extra column of dates is dates again in results.xlsx: numbers in the sheet's own format.
      const wb = await openWorkbook(readFileSync(join(dir, 'results.xlsx')));
      const formats = await styleFormats(wb);
      const dates: Array<[string | undefined, string | undefined]> = [];
      for await (const batch of rawRows(wb, wb.sheets[0]!)) {
        for (const row of batch) {
          if (row.row === 1) continue;
          const g = row.cells.find((c) => c.col === 6)!;
          dates.push([g.value, formatOf(formats, g.style).code]);
        }
      }
      expect(dates).toEqual([
        ['46346', 'yyyy\\-mm\\-dd'],
        ['46347', 'yyyy\\-mm\\-dd'],
        ['46348', 'yyyy\\-mm\\-dd'],
      ]);
    }, seeded);
  });
});
