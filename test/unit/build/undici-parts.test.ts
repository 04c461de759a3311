// dist/undici.cjs is built from undici's internal files (scripts/undici-parts.js). Those paths may
// move in another undici release: the build must then stop and say what to do, not ship a broken
// or whole undici. Run in a child node, as the build runs it.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function check(parts?: Record<string, string>): { status: number | null; stderr: string } {
  const script = `import('./scripts/undici-parts.js').then((m) => m.checkUndiciParts(${parts ? JSON.stringify(parts) : ''}))`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe("the build's check of undici's files", () => {
  it('accepts the installed (locked) undici with the declared parts', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('stops, naming the file and the fix, when a file has moved', () => {
    const r = check({ Agent: 'lib/dispatcher/moved-agent.js' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('has no lib/dispatcher/moved-agent.js (Agent)');
    expect(r.stderr).toContain('update UNDICI_PARTS in scripts/undici-parts.js');
  });

  it('stops when a file now holds something other than the name undici exports', () => {
    const r = check({ Agent: 'lib/dispatcher/client.js' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("lib/dispatcher/client.js is not undici's Agent");
  });
});
