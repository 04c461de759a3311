// The launcher (bin/payops.js, plain CommonJS that loads nothing of src/) names the bulk verbs itself
// to size V8's young generation before the shell loads; its list must be the operations table's.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BATCH_OPERATIONS } from '../../../src/gateway/endpoints.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The words `isBulkVerb` compares with, read from its source. */
function launcherVerbs(source: string): string[] {
  const body = /function isBulkVerb\(word\) \{([\s\S]*?)\n\}/.exec(source)?.[1] ?? '';
  return [...body.matchAll(/word === '([a-z-]+)'/g)].map((m) => m[1] as string).sort();
}

describe('bin/payops.js isBulkVerb', () => {
  it('reads the words of the function (and finds none in other text)', () => {
    const source = "function isBulkVerb(word) {\n  return word === 'a' || word === 'b';\n}\nword === 'c'";
    expect(launcherVerbs(source)).toEqual(['a', 'b']);
  });

  it('names every bulk operation and resume, nothing else', () => {
    const verbs = launcherVerbs(readFileSync(join(ROOT, 'bin/payops.js'), 'utf8'));
    expect(verbs).toEqual([...BATCH_OPERATIONS, 'resume'].sort());
  });
});
