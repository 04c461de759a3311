// .xlsx in and out through the real binary against a sandbox on loopback, judged by its ledger
// (issue 14, item 8): workbooks LibreOffice wrote in en-US and de-DE refund exactly the intended
// amounts; results.xlsx reads back with the same ids; the same rows as a CSV and as a workbook are
// one input (the second is refused as already done); a workbook with bad cells is refused with
// each cell named and nothing sent; payouts read and write workbooks too.

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../../src/money/amount.js';
import { createXlsxWriter } from '../../../src/output/xlsx-writer.js';
import { ZipWriter } from '../../../src/sheets/zip.js';
import { readCsv } from '../../../src/tabular/csv-reader.js';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../../helpers/sandbox.js';
import { ledger } from '../../helpers/sandbox-admin.js';
import { REFUND_HEADER } from './support.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/xlsx');
const seeded = { seedFiles: [join(FIXTURES, 'orders.csv')] };

/** transaction_id → refund minor units, as the CSV the workbooks were made from asks. */
function intended(): Map<string, bigint> {
  const [, ...lines] = readFileSync(join(FIXTURES, 'refunds-en.csv'), 'utf8').trim().split('\n');
  const out = new Map<string, bigint>();
  for (const line of lines) {
    const [tx, , currency, , refund] = line.split(',');
    const p = parseAmount(refund!, currency!);
    if (!p.ok) throw new Error(p.message);
    out.set(tx!, p.minor);
  }
  return out;
}

/** transaction_id → refunded minor units, from the sandbox's ledger. */
async function refunded(sandbox: TestSandbox): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const e of await ledger(sandbox.url)) {
    if (e.kind !== 'refund') continue;
    const currency = { TX14000004: 'JPY', TX14000003: 'EUR', TX14000006: 'EUR' }[e.transaction_id] ?? 'USD';
    const p = parseAmount(e.refund_amount ?? e.amount, currency);
    if (!p.ok) throw new Error(p.message);
    out.set(e.transaction_id, (out.get(e.transaction_id) ?? 0n) + p.minor);
  }
  return out;
}

function workdir(...names: string[]): string {
  const dir = tempDir();
  for (const n of names) copyFileSync(join(FIXTURES, n), join(dir, n));
  return dir;
}

async function sheetRows(file: string): Promise<Array<Record<string, string>>> {
  const r = readCsv({ file });
  await r.header;
  const out: Array<Record<string, string>> = [];
  for await (const row of r.rows) out.push(row.fields);
  return out;
}

describe('.xlsx refund files against the sandbox', { timeout: 120_000 }, () => {
  for (const name of ['refunds-en.xlsx', 'refunds-de.xlsx']) {
    it(`${name} refunds exactly the intended amounts; results.xlsx keeps the ids`, async () => {
      await withSandbox(async (sandbox) => {
        const dir = workdir(name);
        const home = tempDir();
        const r = await runCli(['refund', '--file', name, '--yes', '--out', 'results.xlsx'], {
          env: sandbox.env,
          cwd: dir,
          home,
        });
        expect(r.code, r.stderr).toBe(0);
        expect(await refunded(sandbox)).toEqual(intended());
        const results = await sheetRows(join(dir, 'results.xlsx'));
        expect(results.map((x) => x.transaction_id)).toEqual([...intended().keys()]);
        expect(results.map((x) => x.order_no)).toEqual(['100234', '100235', '100236', '100237', '100239']);
        expect(results.every((x) => x.outcome === 'succeeded')).toBe(true);
        expect(results.map((x) => x.refund_amount)).toEqual([
          '12.5',
          '49.99',
          '1234567890.11',
          '12000',
          '0.1',
        ]);
        // Shown (runs show, CSV) with the currency's decimals, not as the workbook stores the
        // numbers (issue 27): 12.50, not 12.5; JPY has none.
        const runId = /run id: (\S+)/.exec(r.stderr)![1]!;
        const shown = await runCli(['runs', 'show', runId, '--output', 'csv'], {
          env: sandbox.env,
          cwd: dir,
          home,
        });
        expect(shown.code, shown.stderr).toBe(0);
        const rows = parse(shown.stdout, { columns: true }) as Array<Record<string, string>>;
        expect(rows.map((x) => x.refund_amount)).toEqual([
          '12.50',
          '49.99',
          '1234567890.11',
          '12000',
          '0.10',
        ]);
      }, seeded);
    });
  }

  it('the same rows as refunds.csv and then as refunds.xlsx: the second is refused as already done', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('refunds-en.csv', 'refunds-en.xlsx');
      const home = tempDir();
      const first = await runCli(['refund', '--file', 'refunds-en.csv', '--yes'], {
        env: sandbox.env,
        cwd: dir,
        home,
      });
      expect(first.code, first.stderr).toBe(0);
      const again = await runCli(['refund', '--file', 'refunds-en.xlsx', '--yes'], {
        env: sandbox.env,
        cwd: dir,
        home,
      });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toMatch(/already processed by run/);
      expect(await refunded(sandbox)).toEqual(intended());
    }, seeded);
  });

  it('bad cells are refused with exit 2, each cell named, and nothing sent', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('problems.xlsx');
      const r = await runCli(['refund', '--file', 'problems.xlsx', '--yes'], { env: sandbox.env, cwd: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('problems.xlsx:Sheet1!B3 order_no:');
      expect(r.stderr).toContain('problems.xlsx:Sheet1!E4 refund_amount: the cell holds the error #N/A');
      expect(r.stderr).toContain('nothing was sent');
      expect(r.stderr).not.toContain(dir);
      expect((await ledger(sandbox.url)).filter((e) => e.kind === 'refund')).toEqual([]);
    }, seeded);
  });

  it('a validation problem names its cell; --sheet reads another sheet', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('two-sheets.xlsx');
      const first = await runCli(['refund', '--file', 'two-sheets.xlsx', '--dry-run'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(first.code).toBe(2);
      expect(first.stderr).toMatch(/two-sheets\.xlsx:Notes!1:1/);
      expect(first.stderr).toMatch(/hint: the first sheet \("Notes"\) was read: .*--sheet .*"Refunds"/);
      // A row's validation problem is named by its cell (written here by payops's own writer).
      const w = createXlsxWriter(join(dir, 'bad.xlsx'), REFUND_HEADER);
      await w.ready;
      await w.writeCells(['TX14000001', '100234', 'USD', '100', '12.50', 'ok']);
      await w.writeCells(['TX14000002', '100235', 'XYZ1', '49.99', '49.99', 'bad currency']);
      await w.end();
      const bad = await runCli(['refund', '--file', 'bad.xlsx', '--dry-run'], { env: sandbox.env, cwd: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('bad.xlsx:Results!C3 currency:');
      const r = await runCli(['refund', '--file', 'two-sheets.xlsx', '--sheet', 'Refunds', '--yes'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      const got = await refunded(sandbox);
      expect(got.get('TX14000005')).toBe(30n);
      expect(got.get('TX14000002')).toBe(4999n);
    }, seeded);
  });
});

/** A workbook as Excel stores amounts: number cells of the double's 17-digit (or openpyxl's 16-digit) text. */
async function excelStored(file: string, rows: string[][]): Promise<void> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    chunks.push(Buffer.from(b));
    return undefined;
  });
  const cell = (ref: string, v: string) =>
    /^-?\d/.test(v) && ref[0] !== 'A' && ref[0] !== 'B'
      ? `<c r="${ref}"><v>${v}</v></c>`
      : `<c r="${ref}" t="inlineStr"><is><t>${v}</t></is></c>`;
  const xml = [REFUND_HEADER, ...rows]
    .map((r, i) => `<row r="${i + 1}">${r.map((v, j) => cell(`${'ABCDEF'[j]}${i + 1}`, v)).join('')}</row>`)
    .join('');
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  for (const [name, text] of [
    [
      '_rels/.rels',
      `<Relationships><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<workbook xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    ['xl/worksheets/sheet1.xml', `<worksheet><sheetData>${xml}</sheetData></worksheet>`],
  ]) {
    const e = await zip.entry(name!);
    await e.write(text!);
    await e.end();
  }
  await zip.finish();
  writeFileSync(file, Buffer.concat(chunks));
}

// Issue 26 item 1: Excel stores a typed 10.2 as 10.199999999999999; the sheet shows 10.2 and that is
// what is refunded, to the cent, by the sandbox's ledger.
describe('.xlsx amounts as Excel stores them', { timeout: 120_000 }, () => {
  it('a refund_amount cell of <v>10.199999999999999</v> refunds exactly 10.20', async () => {
    await withSandbox(async (sandbox) => {
      const dir = tempDir();
      await excelStored(join(dir, 'excel.xlsx'), [
        ['TX14000001', '100234', 'USD', '100', '10.199999999999999', 'customer request'],
        // The order amount too (75.1 as Excel stores it), and openpyxl's 16 digits for 64.1.
        ['TX14000006', '100239', 'EUR', '75.099999999999994', '64.09999999999999', 'goodwill'],
      ]);
      const r = await runCli(['refund', '--file', 'excel.xlsx', '--yes'], { env: sandbox.env, cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(await refunded(sandbox)).toEqual(
        new Map([
          ['TX14000001', 1020n],
          ['TX14000006', 6410n],
        ]),
      );
      const entries = (await ledger(sandbox.url)).filter((e) => e.kind === 'refund');
      expect(entries.map((e) => e.refund_amount ?? e.amount).sort()).toEqual(['10.20', '64.10']);
    }, seeded);
  });
});

describe('.xlsx payouts', { timeout: 120_000 }, () => {
  it('reads payouts.xlsx and writes payout results as a workbook', async () => {
    await withSandbox(async (sandbox) => {
      const dir = workdir('payouts.xlsx');
      const r = await runCli(['payout', '--file', 'payouts.xlsx', '--yes', '--out', 'payout-results.xlsx'], {
        env: sandbox.env,
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(0);
      const paid = (await ledger(sandbox.url)).filter((e) => e.kind === 'payout');
      expect(paid).toHaveLength(3);
      const results = await sheetRows(join(dir, 'payout-results.xlsx'));
      expect(results).toHaveLength(3);
      expect(results.every((x) => x.outcome === 'completed')).toBe(true);
    });
  });
});
