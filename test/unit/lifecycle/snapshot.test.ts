import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, InputError } from '../../../src/errors.js';
import type { RunHeader } from '../../../src/lifecycle/records.js';
import {
  checkedSnapshot,
  SNAPSHOT_FILE,
  snapshotIntact,
  stageInput,
} from '../../../src/lifecycle/snapshot.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payops-snapshot-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

async function input(text: string) {
  const path = join(root, 'refunds.csv');
  await writeFile(path, text);
  await chmod(path, 0o644);
  return { path, label: 'refunds.csv', sha256: await sha(path) };
}

describe('the input copy of a run', () => {
  it('is private (0600), lands in the run folder, and leaves no staging file behind', async () => {
    const src = await input('transaction_id\nT1\n');
    const staged = await stageInput(root, 'RUN', src, src.sha256, sha);
    const dir = join(root, 'runs', 'RUN');
    await mkdir(dir);
    await staged.commit(dir);
    await staged.discard();
    const copy = join(dir, SNAPSHOT_FILE);
    expect((await stat(copy)).mode & 0o777).toBe(0o600);
    expect(await readFile(copy, 'utf8')).toBe('transaction_id\nT1\n');
    expect((await readdir(join(root, 'runs'))).filter((n) => n.startsWith('.input-'))).toEqual([]);
  });

  it('refuses a file that changed since it was checked, and leaves nothing behind', async () => {
    const src = await input('transaction_id\nT1\n');
    await writeFile(src.path, 'transaction_id\nT2\n');
    await expect(stageInput(root, 'RUN', src, src.sha256, sha)).rejects.toBeInstanceOf(InputError);
    expect((await readdir(join(root, 'runs'))).filter((n) => n.startsWith('.input-'))).toEqual([]);
  });

  it('is checked against the header before it is read again', async () => {
    const src = await input('transaction_id\nT1\nT2\n');
    const dir = join(root, 'runs', 'RUN');
    await mkdir(dir, { recursive: true });
    const staged = await stageInput(root, 'RUN', src, src.sha256, sha);
    await staged.commit(dir);
    const header: RunHeader = {
      type: 'header',
      v: 1,
      runId: 'RUN',
      createdAt: 'x',
      op: 'refund',
      sha256: src.sha256,
      file: src.path,
      label: 'refunds.csv',
    };
    expect(await checkedSnapshot({ dir, header }, sha)).toBe(join(dir, SNAPSHOT_FILE));
    await writeFile(join(dir, SNAPSHOT_FILE), 'transaction_id\nT1\n');
    expect(await snapshotIntact({ dir, header }, sha)).toBe(false);
    await expect(checkedSnapshot({ dir, header }, sha)).rejects.toBeInstanceOf(ConfigError);
    await rm(join(dir, SNAPSHOT_FILE));
    await expect(checkedSnapshot({ dir, header }, sha)).rejects.toThrow(/is not the file that run planned/);
  });
});
