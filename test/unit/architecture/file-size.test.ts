// Files stay small enough to hold in one's head: a file of src/ over ~450 lines says in its header
// why it stays whole (the words "One file"), or it is split by job.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const LIMIT = 450;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Whether a file's text is within the limit, or its leading comment says why it stays whole. */
function explained(text: string): boolean {
  if (text.split('\n').length <= LIMIT) return true;
  const header = text.slice(0, text.search(/^(import|export|const|function)\b/m));
  return /One file\b/.test(header);
}

describe('file size', () => {
  it('knows a long file with and without its reason', () => {
    const body = 'x;\n'.repeat(LIMIT + 1);
    expect(explained(body)).toBe(false);
    expect(explained(`// One file, though long: one state machine.\nimport a from 'a';\n${body}`)).toBe(true);
    expect(explained(`// A file.\nimport a from 'a';\n// One file later on\n${body}`)).toBe(false);
  });

  it('holds for every file of src/', () => {
    const long = tsFiles(join(ROOT, 'src')).filter((f) => !explained(readFileSync(f, 'utf8')));
    expect(long.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
