// Every test's scratch files (homes, journals, generated CSVs) go under one folder per test run,
// removed at the end, so repeated runs do not fill /tmp. Workers and the binaries they spawn inherit
// TMPDIR, and os.tmpdir() reads it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'payops-vitest-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (!process.env.PAYOPS_KEEP_TEST_FILES) rmSync(dir, { recursive: true, force: true });
  };
}
