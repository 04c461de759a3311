// Issue 26 item 9: real workbooks, read by payops and by an independent reader, cell by cell.
//
// The corpus is public projects' test workbooks (files saved by Excel for Windows, Mac and Online,
// Google Sheets, LibreOffice, Numbers, WPS, gnumeric, openpyxl and other libraries), listed with
// each file's repository, path, commit, licence and writer in test/fixtures/corpus/sources.json.
// The files themselves are data taken from other repositories, so they are not committed here: they
// live in the steering repository's shared/corpus/ (a copy of shared/ lies beside the clone in CI),
// or where PAYOPS_CORPUS points. Without it the test says so and compares only the made-here one.
// Beside each file, FILE.expected.json holds what openpyxl 3.0.9 (Debian's) read, made once by
// scripts/corpus/expected.py, so a run needs neither Python nor LibreOffice.
//
// A second corpus is committed: test/fixtures/corpus/made-here/<writer>/, workbooks this machine's
// spreadsheet programs and writer libraries made (LibreOffice, gnumeric, openpyxl, XlsxWriter,
// Excel::Writer::XLSX, exceljs, SheetJS, write-excel-file; scripts/corpus/made-here/make.sh),
// listed in test/fixtures/corpus/made-here.json. It always runs: a file the manifest lists that is
// not there fails, so CI compares real writers' files even without the external corpus.
//
// For every file: payops reads the cells the reference read (the rule: corpus-compare.ts's
// header), except the differences of rule the manifest names per cell with their reason; or
// payops refuses the file and the refusal says the cause the manifest names (a password, .xlsb,
// an .xls). A refused file the reference reads, or a file read differently, fails.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/in-process.js';
import { compare, type Expected, payopsRead } from './corpus-compare.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Source {
  /** Path under the corpus folder. */
  file: string;
  /** The repository it comes from, or "made here" (made-here.json). */
  repo: string;
  path: string;
  commit?: string;
  licence: string;
  /** docProps/app.xml's <Application>, or what else tells the writer; made here: program and version. */
  writer: string;
  /** The refusal payops gives, and must give (its message contains this). */
  refused?: string;
  /** Cells that differ by a rule, not a bug: "Sheet!C7" → why. */
  ruleDifferences?: Record<string, string>;
}

const manifest = (name: string): Source[] =>
  JSON.parse(readFileSync(join(repo, 'test/fixtures/corpus', name), 'utf8')).files;
const sources = manifest('sources.json');
const madeHere = manifest('made-here.json');
const madeHereDir = join(repo, 'test/fixtures/corpus/made-here');

function corpusDir(): string | undefined {
  const candidates = [process.env.PAYOPS_CORPUS, resolve(repo, '../shared/corpus'), '/work/shared/corpus'];
  return candidates.find(
    (d): d is string => d !== undefined && d !== '' && existsSync(join(d, sources[0]!.file)),
  );
}

const dir = corpusDir();

/** One corpus, file by file: payops's reading against the reference's, or the true refusal. */
function differential(title: string, root: string, files: Source[]): void {
  const seen = { files: 0, cells: 0, refused: 0, ruled: 0 };
  afterAll(() => {
    console.log(
      `${title}: ${seen.files} workbooks read, ${seen.cells} cells compared, ${seen.ruled} differences of rule, ${seen.refused} refused with their cause`,
    );
  });
  it.each(files.map((s) => [s.file, s] as const))('%s', async (_name, s) => {
    const file = join(root, s.file);
    const read = await payopsRead(file);
    if (s.refused !== undefined) {
      expect('refused' in read ? read.refused : 'read without a refusal').toContain(s.refused);
      seen.refused++;
      return;
    }
    const expected: Expected = JSON.parse(readFileSync(`${file}.expected.json`, 'utf8'));
    expect('refused' in read ? read.refused : undefined).toBeUndefined();
    if (!('sheets' in read)) return;
    // Every file payops reads has a reading to compare with (else: list its refusal or a reference).
    expect(expected.error).toBeUndefined();
    const { diffs, sheetProblems, compared } = compare(expected.sheets ?? [], read.sheets);
    seen.files++;
    seen.cells += compared;
    seen.ruled += diffs.length;
    expect(sheetProblems).toEqual([]);
    const unexplained = diffs.filter((d) => s.ruleDifferences?.[`${d.sheet}!${d.cell}`] === undefined);
    expect(unexplained.slice(0, 20)).toEqual([]);
  });
}

describe("the made-here corpus (committed: workbooks this machine's writers made)", () => {
  it('holds every workbook its manifest lists, each with its expected reading', () => {
    const onDisk = readdirSync(madeHereDir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.xlsx'))
      .map((f) => f.split('\\').join('/'))
      .sort();
    expect(madeHere.length).toBeGreaterThanOrEqual(40);
    expect(onDisk).toEqual(madeHere.map((s) => s.file).sort());
    for (const s of madeHere)
      expect(existsSync(join(madeHereDir, `${s.file}.expected.json`)), s.file).toBe(true);
  });
  differential('made-here corpus', madeHereDir, madeHere);

  // Each writer's refunds export (content.py's REFUNDS: dashboard headers, amounts typed as 10.2,
  // 2153.93, 64.1, order numbers formatted 00000) planned by the real refund command: the totals
  // are the amounts as typed, to the cent, whatever double each writer stored.
  const exports = madeHere.filter((s) => /\/refunds(-stream-inline|-resaved)?\.xlsx$/.test(s.file));
  it('holds a refunds export from every writer', () => {
    expect(new Set(exports.map((s) => s.file.split('/')[0])).size).toBe(8);
  });
  it.each(exports.map((s) => [s.file]))('%s: the refund plan totals the amounts as typed', async (file) => {
    const r = await runMain(['--sandbox', '--dry-run', 'refund', '--file', join(madeHereDir, file)]);
    // The plan is written to stderr (stdout stays for results).
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('refund 8 orders');
    expect(r.stderr).toContain('to refund: EUR 75.21 · GBP 0.10 · JPY 1,200 · USD 184.13');
  });
});

describe.skipIf(dir === undefined)('the corpus of real workbooks', () => {
  differential('corpus', dir!, sources);
});

it.runIf(dir === undefined)(
  'the external corpus is not on this machine: only the made-here corpus compared',
  () => {
    console.warn(
      'corpus.test.ts: no external corpus (PAYOPS_CORPUS, ../shared/corpus): only the committed made-here workbooks were compared',
    );
  },
);
