// Pass 1 and pass 2 with a workbook's hidden rows (issue 23, item 7): which rows are checked,
// counted, keyed and read again, for each of --include-hidden, --skip-hidden and neither; the plan's
// words; a file whose every row is hidden. The workbooks were saved by LibreOffice
// (test/fixtures/xlsx/README.md).
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type InputSource, inputRows } from '../../../src/bulk/input.js';
import { planBulk } from '../../../src/bulk/plan/plan.js';
import { InputError } from '../../../src/errors.js';
import { ZipWriter } from '../../../src/sheets/zip.js';
import type { HiddenMode } from '../../../src/tabular/csv-reader.js';
import { hiddenLines, hiddenRefusal } from '../../../src/tabular/hidden.js';
import { DEFAULT_READ_AS } from '../../../src/tabular/read-as.js';
import { REPO_ROOT, tempDir } from '../../helpers/run-cli.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');

function source(name: string, hidden?: HiddenMode): InputSource {
  const dir = tempDir();
  copyFileSync(join(FIXTURES, name), join(dir, name));
  return {
    path: join(dir, name),
    label: name,
    readAs: { ...DEFAULT_READ_AS, ...(hidden === undefined ? {} : { hidden }) },
  };
}

describe('pass 1 with hidden rows', () => {
  it('without a flag: hidden rows are listed, not checked or counted; a run is refused naming each cell', async () => {
    const plan = await planBulk('refund', source('filtered.xlsx'));
    expect(plan.rows).toBe(2);
    expect(plan.moving).toEqual(
      new Map([
        ['USD', 1250n],
        ['JPY', 12000n],
      ]),
    );
    expect(plan.hidden?.mode).toBeUndefined();
    expect(plan.hidden?.rows.map((h) => [h.line, h.ref])).toEqual([
      [3, 'Refunds!A3'],
      [5, 'Refunds!A5'],
    ]);
    const err = hiddenRefusal('filtered.xlsx', plan);
    expect(err).toBeInstanceOf(InputError);
    expect(err?.problems.map((p) => p.file)).toEqual([
      'filtered.xlsx:Refunds!A3',
      'filtered.xlsx:Refunds!A5',
    ]);
    expect(err?.message).toMatch(/filter on A1:H5/);
    expect(hiddenLines(plan).join('\n')).toMatch(
      /sheet read: Refunds \(its only sheet\)\n {2}2 rows hidden \(by hand or by the sheet's filter on A1:H5\): not in the totals; a run refuses them/,
    );
  });

  it('--include-hidden: every row checked, counted and sent; nothing refused', async () => {
    const plan = await planBulk('refund', source('hidden-rows.xlsx', 'include'));
    expect(plan.rows).toBe(4);
    expect(plan.moving.get('EUR')).toBe(10n);
    expect(hiddenRefusal('hidden-rows.xlsx', plan)).toBeUndefined();
    expect(hiddenLines(plan).join('\n')).toMatch(/2 rows hidden: sent \(--include-hidden\)/);
  });

  it('--skip-hidden: the same content key as a CSV of the visible rows; their cells kept for the results', async () => {
    const skip = await planBulk('refund', source('hidden-rows.xlsx', 'skip'));
    expect(skip.rows).toBe(2);
    expect(skip.hidden?.rows.map((h) => h.cells?.[0])).toEqual(['TX14000002', 'TX14000006']);
    expect(hiddenRefusal('hidden-rows.xlsx', skip)).toBeUndefined();
    const dir = tempDir();
    const csv = join(dir, 'visible.csv');
    writeFileSync(
      csv,
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason\nTX14000001,100234,USD,100,12.5,customer request\nTX14000004,100237,JPY,20000,12000,price match\n',
    );
    const visible = await planBulk('refund', { path: csv, label: 'visible.csv', readAs: DEFAULT_READ_AS });
    expect(skip.content).toBe(visible.content);
    const all = await planBulk('refund', source('hidden-rows.xlsx', 'include'));
    expect(all.content).not.toBe(skip.content);
  });

  it('a file whose every row is hidden says so (not "only a header"), with or without --skip-hidden', async () => {
    const file = await allHidden();
    for (const mode of [undefined, 'skip'] as const) {
      const err = await planBulk('refund', {
        path: file,
        label: 'all.xlsx',
        readAs: { ...DEFAULT_READ_AS, ...(mode ? { hidden: mode } : {}) },
      }).then(
        () => undefined,
        (e: unknown) => e as InputError,
      );
      expect(err).toBeInstanceOf(InputError);
      expect(err?.message).toMatch(/every row of all.xlsx is hidden/);
      expect(err?.problems.map((p) => p.file)).toEqual(['all.xlsx:Sheet1!A2']);
      expect(err?.hint).toMatch(/--include-hidden/);
    }
  });
});

/** A one-sheet workbook (Excel's XML) whose only order row is hidden="1". */
async function allHidden(): Promise<string> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
  const cells = (r: number, values: string[]) =>
    values.map((v, i) => `<c r="${'ABCDEF'[i]}${r}" t="inlineStr"><is><t>${v}</t></is></c>`).join('');
  const parts: Array<[string, string]> = [
    [
      '_rels/.rels',
      `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    [
      'xl/worksheets/sheet1.xml',
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">${cells(1, ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'])}</row><row r="2" hidden="1">${cells(2, ['TX14000002', '100235', 'USD', '49.99', '49.99', 'fraud'])}</row></sheetData></worksheet>`,
    ],
  ];
  for (const [name, xml] of parts) {
    const e = await zip.entry(name);
    await e.write(xml);
    await e.end();
  }
  await zip.finish();
  const path = join(tempDir(), 'all.xlsx');
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

describe('pass 2 reads what pass 1 read', () => {
  it('--skip-hidden leaves the hidden rows out again; a run header without the choice (older runs) reads them', async () => {
    const lines = async (s: InputSource) => {
      const out: number[] = [];
      for await (const r of inputRows('refund', s)) out.push(r.line);
      return out;
    };
    expect(await lines(source('filtered.xlsx', 'skip'))).toEqual([2, 4]);
    expect(await lines(source('filtered.xlsx', 'include'))).toEqual([2, 3, 4, 5]);
    expect(await lines(source('filtered.xlsx'))).toEqual([2, 3, 4, 5]);
  });
});
