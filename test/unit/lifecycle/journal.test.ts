import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exitCodeFor, JournalDamagedError, LocalWriteError, UsageError } from '../../../src/errors.js';
import {
  createRun,
  findRunsByInput,
  isRunId,
  listRuns,
  newRunId,
  openRun,
  readRecords,
  readRun,
} from '../../../src/lifecycle/journal.js';
import { listRunsChecked } from '../../../src/lifecycle/read.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payops-journal-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const header = {
  op: 'refund',
  file: '/tmp/refunds.csv',
  sha256: 'abc',
  gatewayIdentity: 'http://127.0.0.1:1|800001|800001001',
  rows: 3,
  chunkSize: 50,
};

function deadPid(): number {
  // A child that has already exited: its pid is (for a while) not in use.
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('run ids', () => {
  it('sort by creation time and have a fixed shape', () => {
    const a = newRunId(new Date('2026-11-22T01:30:45Z'));
    const b = newRunId(new Date('2026-11-22T01:30:46Z'));
    expect(a).toMatch(/^20261122-013045-[0-9a-f]{4}$/);
    expect(isRunId(a)).toBe(true);
    expect([b, a].sort()).toEqual([a, b]);
    expect(isRunId('../etc')).toBe(false);
  });
});

describe('journal', () => {
  it('writes the header and appended records, one JSON object per line', async () => {
    const j = await createRun(root, header);
    await j.append({ type: 'intent', chunk: 0, lines: [2, 3] });
    await j.append([
      { type: 'outcome', chunk: 0, rows: [] },
      { type: 'finished', counts: { succeeded: 2 } },
    ]);
    await j.close();
    const text = await readFile(j.path, 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(4);
    const read = await readRun(root, j.runId);
    expect(read.header).toMatchObject({ type: 'header', op: 'refund', runId: j.runId, sha256: 'abc' });
    expect(read.records.map((r) => r.type)).toEqual(['intent', 'outcome', 'finished']);
    expect(read.records[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(read.torn).toBe(false);
  });

  it('groups concurrent appends and keeps their order', async () => {
    const j = await createRun(root, header);
    await Promise.all(Array.from({ length: 200 }, (_, i) => j.append({ type: 'intent', chunk: i })));
    await j.close();
    const read = await readRun(root, j.runId);
    expect(read.records.map((r) => r.chunk)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('writes lazy records in order with the next durable append, and at close', async () => {
    const j = await createRun(root, header);
    j.appendLazy({ type: 'outcome', chunk: 0 });
    expect((await readRun(root, j.runId)).records).toEqual([]);
    await j.append({ type: 'intent', chunk: 1 });
    expect((await readRun(root, j.runId)).records.map((r) => [r.type, r.chunk])).toEqual([
      ['outcome', 0],
      ['intent', 1],
    ]);
    j.appendLazy([{ type: 'outcome', chunk: 1 }]);
    await j.close();
    expect((await readRun(root, j.runId)).records.map((r) => r.type)).toEqual([
      'outcome',
      'intent',
      'outcome',
    ]);
  });

  it('sync() writes and fsyncs the lazy records so far, and costs nothing when none waits', async () => {
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const j = await createRun(root, header);
    const spy = vi.spyOn(proto, 'datasync');
    try {
      await j.sync();
      expect(spy).not.toHaveBeenCalled();
      j.appendLazy({ type: 'outcome', chunk: 0 });
      await j.sync();
      expect(spy).toHaveBeenCalledTimes(1);
      expect((await readRun(root, j.runId)).records.map((r) => [r.type, r.chunk])).toEqual([['outcome', 0]]);
      await j.sync();
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
      await j.close();
    }
  });

  it('fsyncs before every append resolves, never for lazy records alone, and once more at close', async () => {
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const spy = vi.spyOn(proto, 'datasync');
    try {
      const j = await createRun(root, header);
      spy.mockClear();
      await j.append({ type: 'intent', chunk: 0 });
      expect(spy).toHaveBeenCalledTimes(1);
      // Enough lazy text to be written on its own (256 KB): written, not fsync'd.
      j.appendLazy({ type: 'outcome', chunk: 0, pad: 'x'.repeat(300 * 1024) });
      // Once it is in the file (read back, not assumed after 50 ms); 30 s is only a safety net.
      const types = async () => (await readRun(root, j.runId)).records.map((r) => r.type);
      const deadline = Date.now() + 30_000;
      while ((await types()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await types()).toEqual(['intent', 'outcome']);
      expect(spy).toHaveBeenCalledTimes(1);
      await j.close();
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('ignores a torn last line, and openRun cuts it before appending', async () => {
    const j = await createRun(root, header);
    await j.append({ type: 'intent', chunk: 0 });
    await j.close();
    await appendFile(j.path, '{"type":"outcome","chunk":0,"rows":[{"li');
    const read = await readRun(root, j.runId);
    expect(read.torn).toBe(true);
    expect(read.records.map((r) => r.type)).toEqual(['intent']);
    const streamed: string[] = [];
    for await (const r of readRecords(root, j.runId)) streamed.push(r.type);
    expect(streamed).toEqual(['header', 'intent']);

    const opened = await openRun(root, j.runId);
    expect(opened.torn).toBe(false);
    await opened.journal.append({ type: 'unknown', chunk: 0 });
    await opened.journal.close();
    const again = await readRun(root, j.runId);
    expect(again.records.map((r) => r.type)).toEqual(['intent', 'unknown']);
    expect(again.torn).toBe(false);
  });

  it('refuses a journal damaged in the middle', async () => {
    const j = await createRun(root, header);
    await j.close();
    await appendFile(j.path, 'garbage\n{"type":"intent"}\n');
    await expect(readRun(root, j.runId)).rejects.toThrow(/the journal of run .* cannot be read \(line 2: /);
  });

  it('says a failed write is the journal that could not be written (exit 4), and fails every later append', async () => {
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const j = await createRun(root, header);
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const spy = vi.spyOn(proto, 'write').mockRejectedValue(full);
    try {
      j.appendLazy({ type: 'outcome', chunk: 0 });
      const err = await j.append({ type: 'intent', chunk: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LocalWriteError);
      expect(exitCodeFor(err)).toBe(4);
      expect((err as Error).message).toBe(
        `cannot write the run journal in ${j.dir}: the disk is full (ENOSPC); the run stopped sending`,
      );
      expect((err as LocalWriteError).hint).toContain(`payops runs resume ${j.runId}`);
      await expect(j.append({ type: 'intent', chunk: 2 })).rejects.toBe(err);
    } finally {
      spy.mockRestore();
    }
    await j.close();
  });

  // Seen by hand (issue 13, item 6): a 1,000-row refund on a 90 KB tmpfs ended "succeeded 1,000",
  // exit 0, with the journal cut at 32 KB (runs list: interrupted; runs show: 700 unknown). The last
  // outcomes are lazy records: their write failed with ENOSPC at close and nobody was told.
  it('reports a failed lazy write at close (the run must not end as if its journal were complete)', async () => {
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const j = await createRun(root, header);
    await j.append({ type: 'intent', chunk: 0 });
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const spy = vi.spyOn(proto, 'write').mockRejectedValue(full);
    try {
      j.appendLazy({ type: 'outcome', chunk: 0 });
      // close() settles either way (a run must still end); the failure is kept for endRun to throw.
      await j.close().catch(() => undefined);
    } finally {
      spy.mockRestore();
    }
    const err = j.failure;
    expect(err).toBeInstanceOf(LocalWriteError);
    expect(exitCodeFor(err)).toBe(4);
    expect((err as Error).message).toMatch(/^cannot write the run journal in .*the disk is full \(ENOSPC\)/);
  });

  it('says an unwritable state folder before the run begins: nothing was sent (exit 4)', async () => {
    await writeFile(join(root, 'state'), '');
    const err = await createRun(join(root, 'state'), header).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalWriteError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^cannot write the run journal in ${join(root, 'state')}: .*\\((ENOTDIR|EEXIST)\\); nothing was sent$`,
      ),
    );
  });

  it('rejects appends after close', async () => {
    const j = await createRun(root, header);
    await j.close();
    await expect(j.append({ type: 'intent' })).rejects.toThrow(/closed/);
  });
});

describe('lock', () => {
  it('allows one process per run', async () => {
    const j = await createRun(root, header);
    await expect(openRun(root, j.runId)).rejects.toBeInstanceOf(UsageError);
    await j.close();
    const again = await openRun(root, j.runId);
    await again.journal.close();
    await expect(stat(join(j.dir, 'lock'))).rejects.toThrow();
  });

  it('takes over a stale lock left by a dead process', async () => {
    const j = await createRun(root, header);
    await j.close();
    await writeFile(join(j.dir, 'lock'), JSON.stringify({ pid: deadPid(), host: hostname(), at: '' }));
    const opened = await openRun(root, j.runId);
    const lock = JSON.parse(await readFile(join(j.dir, 'lock'), 'utf8'));
    expect(lock.pid).toBe(process.pid);
    await opened.journal.close();
  });

  it('respects a lock held by a live process', async () => {
    const j = await createRun(root, header);
    await j.close();
    // pid 1 is always alive.
    await writeFile(join(j.dir, 'lock'), JSON.stringify({ pid: 1, host: hostname(), at: '' }));
    await expect(openRun(root, j.runId)).rejects.toThrow(/in use by process 1/);
  });

  it('does not take over a lock file that is still being written', async () => {
    const j = await createRun(root, header);
    await j.close();
    await writeFile(join(j.dir, 'lock'), '');
    await expect(openRun(root, j.runId)).rejects.toThrow(/being opened/);
  });

  it('reports an unknown run as a usage error', async () => {
    await expect(openRun(root, '20260101-000000-0000')).rejects.toBeInstanceOf(UsageError);
  });
});

describe('listing', () => {
  it('lists runs newest first with their state and finds runs of the same input', async () => {
    const a = await createRun(root, header, { now: new Date('2026-11-22T01:00:00Z') });
    await a.append({ type: 'finished', counts: { succeeded: 3 } });
    await a.close();
    const b = await createRun(
      root,
      { ...header, sha256: 'other' },
      { now: new Date('2026-11-22T02:00:00Z') },
    );
    await b.append({ type: 'intent', chunk: 0 });
    const c = await createRun(root, header, { now: new Date('2026-11-22T03:00:00Z') });
    await c.append({ type: 'interrupted', counts: {} });
    await c.close();

    const runs = await listRuns(root);
    expect(runs.map((r) => r.runId)).toEqual([c.runId, b.runId, a.runId]);
    expect(runs.map((r) => r.state)).toEqual(['interrupted', 'running', 'finished']);
    expect(runs[2]!.terminal).toMatchObject({ type: 'finished', counts: { succeeded: 3 } });

    await b.close();
    expect((await listRuns(root))[1]!.state).toBe('interrupted');

    const same = await findRunsByInput(root, { sha256: 'abc' }, 'refund', header.gatewayIdentity);
    expect(same.map((r) => r.runId)).toEqual([c.runId, a.runId]);
    expect(await findRunsByInput(root, { sha256: 'abc' }, 'capture', header.gatewayIdentity)).toEqual([]);
  });

  it('matches runs by what the input means where the header records it, by bytes only in older headers', async () => {
    // Written by this version: content recorded. The same rows in other bytes (other sha256) match.
    const meaning = await createRun(
      root,
      { ...header, sha256: 'crlf-bytes', content: 'refund:3-00aa' },
      { now: new Date('2026-11-22T03:00:00Z') },
    );
    await meaning.close();
    // Written before content keys existed: matched by its bytes alone.
    const old = await createRun(root, header, { now: new Date('2026-11-22T02:00:00Z') });
    await old.close();
    // Same bytes as the first, but its header records another meaning: never matched by bytes.
    const other = await createRun(
      root,
      { ...header, sha256: 'crlf-bytes', content: 'refund:3-00bb' },
      { now: new Date('2026-11-22T01:00:00Z') },
    );
    await other.close();
    const ids = async (input: { content?: string; sha256: string }) =>
      (await findRunsByInput(root, input, 'refund', header.gatewayIdentity)).map((r) => r.runId);
    expect(await ids({ content: 'refund:3-00aa', sha256: 'lf-bytes' })).toEqual([meaning.runId]);
    expect(await ids({ content: 'refund:3-00aa', sha256: 'abc' })).toEqual([meaning.runId, old.runId]);
    expect(await ids({ content: 'refund:3-00cc', sha256: 'crlf-bytes' })).toEqual([]);
    // The gateway by meaning too: the header's identity spelled otherwise (an older version) matches.
    const spelled = 'HTTP://127.0.0.1:1/|800001| 800001001';
    expect(
      (await findRunsByInput(root, { content: 'refund:3-00aa', sha256: 'x' }, 'refund', spelled)).map(
        (r) => r.runId,
      ),
    ).toEqual([meaning.runId]);
    expect(
      await findRunsByInput(
        root,
        { content: 'refund:3-00aa', sha256: 'x' },
        'refund',
        'http://127.0.0.1:2|800001|800001001',
      ),
    ).toEqual([]);
  });

  it('finds the state of a journal whose last record is large', async () => {
    const a = await createRun(root, header);
    await a.append({ type: 'outcome', rows: 'x'.repeat(200_000) });
    await a.append({ type: 'finished' });
    await a.close();
    expect((await listRuns(root))[0]!.state).toBe('finished');
  });

  it('uses a run id chosen in advance', async () => {
    const id = newRunId();
    const j = await createRun(root, header, { runId: id });
    expect(j.runId).toBe(id);
    await j.close();
  });

  it('fails closed on a journal it cannot read, and passes over runs that died being created', async () => {
    const good = await createRun(root, header, { now: new Date('2026-11-22T01:00:00Z') });
    await good.close();
    // Died before the header landed: nothing could have been sent.
    const empty = await createRun(root, header, { now: new Date('2026-11-22T02:00:00Z') });
    await empty.close();
    await writeFile(empty.path, '{"type":"head');
    // A complete first line that is not a header: damage.
    const bad = await createRun(root, header, { now: new Date('2026-11-22T03:00:00Z') });
    await bad.close();
    const text = await readFile(bad.path, 'utf8');
    await writeFile(bad.path, `${text.slice(0, 3)}#${text.slice(4)}`);

    // Cut short after its input copy landed (a truncation, a full disk): damage, not a dead start.
    const cut = await createRun(root, header, { now: new Date('2026-11-22T04:00:00Z') });
    await cut.close();
    await writeFile(join(cut.dir, 'input.csv'), 'transaction_id\n');
    await writeFile(cut.path, '{"type":"header","v":1,');

    const checked = await listRunsChecked(root);
    expect(checked.runs.map((r) => r.runId)).toEqual([good.runId]);
    expect(checked.damaged.map((d) => [d.runId, d.error.line])).toEqual([
      [cut.runId, 1],
      [bad.runId, 1],
    ]);
    expect(checked.damaged[0]!.error).toBeInstanceOf(JournalDamagedError);
    await expect(listRuns(root)).rejects.toThrow(`the journal of run ${cut.runId} cannot be read (line 1`);
    await expect(
      findRunsByInput(root, { sha256: 'abc' }, 'refund', header.gatewayIdentity),
    ).rejects.toBeInstanceOf(JournalDamagedError);
  });

  it('returns nothing when there is no state folder yet', async () => {
    expect(await listRuns(join(root, 'nope'))).toEqual([]);
  });
});
