// The notices of a query on a terminal fit its width: the "there may be more" line was written whole
// (127 columns), so an 80-column terminal broke it mid-word ("the" / "re may be more").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ seed: 120 });
});
afterAll(async () => {
  await sandbox.close();
});

describe('query notices at a terminal', () => {
  it('the full-page notice is fitted to a 60-column stderr, broken at spaces only', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const io = fakeIo({ env: sandbox.env });
    Object.assign(io.stderr, { columns: 60 });
    const r = await runMain(['query', '--from', today, '--to', today, '--utc', '--output', 'json'], io);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(100);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length, line).toBeLessThan(60);
    // Read back as one line, the words are whole.
    expect(lines.map((l) => l.trim()).join(' ')).toMatch(
      /the most it sends for a date range: there may be more; add --all to fetch the whole range/,
    );
  });
});
