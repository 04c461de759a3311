// Issue 26 item 9: real workbooks, read by payops and by an independent reader, cell by cell.
//
// The corpus is public projects' test workbooks (files saved by Excel for Windows, Mac and Online,
// Google Sheets, LibreOffice, Numbers, WPS, gnumeric, openpyxl and other libraries), listed with
// each file's repository, path, commit, licence and writer in test/fixtures/corpus/sources.json.
// The files themselves are data taken from other repositories, so they are not committed here: they
// live in the steering repository's shared/corpus/ (a copy of shared/ lies beside the clone in CI),
// or where PAYOPS_CORPUS points. Without the corpus the test says so and compares nothing.
// Beside each file, FILE.expected.json holds what openpyxl 3.0.9 (Debian's) read, made once by
// scripts/corpus/expected.py, so a run needs neither Python nor LibreOffice.
//
// For every file: payops reads the cells the reference read (the rule: corpus-compare.ts's
// header), except the differences of rule the manifest names per cell with their reason; or
// payops refuses the file and the refusal says the cause the manifest names (a password, .xlsb,
// an .xls). A refused file the reference reads, or a file read differently, fails.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compare, type Expected, payopsRead } from './corpus-compare.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Source {
  /** Path under the corpus folder. */
  file: string;
  repo: string;
  path: string;
  commit: string;
  licence: string;
  /** docProps/app.xml's <Application>, or what else tells the writer. */
  writer: string;
  /** The refusal payops gives, and must give (its message contains this). */
  refused?: string;
  /** Cells that differ by a rule, not a bug: "Sheet!C7" → why. */
  ruleDifferences?: Record<string, string>;
}

const sources: Source[] = JSON.parse(
  readFileSync(join(repo, 'test/fixtures/corpus/sources.json'), 'utf8'),
).files;

function corpusDir(): string | undefined {
  const candidates = [process.env.PAYOPS_CORPUS, resolve(repo, '../shared/corpus'), '/work/shared/corpus'];
  return candidates.find(
    (d): d is string => d !== undefined && d !== '' && existsSync(join(d, sources[0]!.file)),
  );
}

const dir = corpusDir();

describe.skipIf(dir === undefined)('the corpus of real workbooks', () => {
  const seen = { files: 0, cells: 0, refused: 0, ruled: 0 };
  afterAll(() => {
    console.log(
      `corpus: ${seen.files} workbooks read, ${seen.cells} cells compared, ${seen.ruled} differences of rule, ${seen.refused} refused with their cause`,
    );
  });
  it.each(sources.map((s) => [s.file, s] as const))('%s', async (_name, s) => {
    const file = join(dir!, s.file);
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
});

it.runIf(dir === undefined)('the corpus is not on this machine: nothing compared', () => {
  console.warn(
    'corpus.test.ts: no corpus (PAYOPS_CORPUS, ../shared/corpus): the real workbooks were not compared',
  );
});
