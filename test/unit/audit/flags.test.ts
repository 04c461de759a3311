// `payops audit export` and `runs verify --journal --head`: what they refuse before reading any run
// (exit 2, the flag named), through main(argv, io) in this process.
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/in-process.js';

const RANGE = ['--from', '2026-11-01', '--to', '2026-11-30'];

describe('audit export refuses', () => {
  it('no --out: it writes a file', async () => {
    const r = await runMain(['audit', 'export', ...RANGE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('audit export writes a file: give --out audit.xlsx, audit.csv or audit.json');
  });

  it('a file that is not .xlsx, .csv or .json', async () => {
    const r = await runMain(['audit', 'export', ...RANGE, '--out', 'audit.txt']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--out audit.txt: an audit export is a .xlsx, .csv or .json file');
  });

  it('a date it cannot read, a range that ends before it begins, a missing end', async () => {
    const bad = await runMain([
      'audit',
      'export',
      '--from',
      '2026-13-01',
      '--to',
      '2026-11-30',
      '--out',
      'a.csv',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from "?2026-13-01"? is not a calendar date/);
    const back = await runMain([
      'audit',
      'export',
      '--from',
      '2026-11-30',
      '--to',
      '2026-11-01',
      '--out',
      'a.csv',
    ]);
    expect(back.code).toBe(2);
    expect(back.stderr).toContain('--to 2026-11-01 is before --from 2026-11-30');
    const open = await runMain(['audit', 'export', '--from', '2026-11-30', '--out', 'a.csv']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/--to/);
  });

  it('exports an empty range as a file of no runs (exit 0)', async () => {
    const r = await runMain(['audit', 'export', ...RANGE, '--out', 'a.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('audit export: 0 runs created 2026-11-01 to 2026-11-30, 0 rows');
  });
});

describe('runs verify --head', () => {
  it('goes with --journal, and is 64 hex digits', async () => {
    const alone = await runMain(['runs', 'verify', '20261206-012843-501f', '--head', 'ab'.repeat(32)]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--head is for --journal');
    const short = await runMain(['runs', 'verify', '20261206-012843-501f', '--journal', '--head', 'abc']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('--head takes the 64 hex digits of a journal\'s head, not "abc"');
  });
});
