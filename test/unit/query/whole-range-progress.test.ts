// `--all`'s progress on stderr: a line rewritten in place on a terminal; nothing with --quiet or
// when stderr is not a terminal, unless --verbose (then log lines). In process, against a sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Capture, fakeIo, runMain } from '../../helpers/in-process.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { seedRefunds } from '../../helpers/sandbox-admin.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  await seedRefunds(sandbox.url, { count: 250, from: '2026-10-01T00:00:00Z', seconds: 20 });
});
afterAll(async () => {
  await sandbox?.close();
});

const ARGS = [
  'refunds',
  'search',
  '--from',
  '2026-10-01',
  '--to',
  '2026-10-01',
  '--utc',
  '--all',
  '--output',
  'json',
];

async function run(globals: string[], tty: boolean) {
  const io = fakeIo({ env: { ...sandbox.env, NO_COLOR: '1' } });
  io.stderr = Object.assign(new Capture(tty), { columns: 100 });
  const r = await runMain([...globals, ...ARGS], io);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toHaveLength(250);
  return r.stderr;
}

describe('refunds search --all progress', () => {
  it('is one line rewritten in place on a terminal, cleared at the end', async () => {
    const err = await run([], true);
    expect(err).toMatch(
      /\r\u001b\[2Kfetching the whole range: \d+ refunds · \d+ requests · \d+ windows? to ask/,
    );
    expect(err).toContain('250 refunds');
  });

  it('is silent with --quiet, and when stderr is not a terminal', async () => {
    expect(await run(['--quiet'], true)).not.toMatch(/fetching the whole range/);
    expect(await run([], false)).not.toMatch(/fetching the whole range/);
  });

  it('is log lines with --verbose when stderr is not a terminal', async () => {
    const err = await run(['--verbose'], false);
    expect(err).not.toContain('\r');
    expect(err.split('\n').filter((l) => l.includes('fetching the whole range')).length).toBeGreaterThan(2);
  });
});
