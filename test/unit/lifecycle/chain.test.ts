import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor, JournalChainError, JournalDamagedError } from '../../../src/errors.js';
import { chainLines, checkChain, compareHead, lineHash } from '../../../src/lifecycle/chain.js';
import { createRun, openRun, readRun } from '../../../src/lifecycle/journal.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payops-chain-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A finished run of 6 lines: header, intent, outcome, intent, outcome, finished; its path. */
async function sixLines(): Promise<{ path: string; runId: string }> {
  const j = await createRun(root, { op: 'refund', rows: 2 });
  await j.append({ type: 'intent', chunk: 0, lines: [2] });
  j.appendLazy({ type: 'outcome', chunk: 0, rows: [['succeeded']] });
  // Grouped: two appends while the first write is in flight.
  await Promise.all([j.append({ type: 'intent', chunk: 1, lines: [3] }), j.append([])]);
  j.appendLazy({ type: 'outcome', chunk: 1, rows: [['failed']] });
  await j.append({ type: 'finished', counts: { succeeded: 1, failed: 1 } });
  await j.close();
  return { path: j.path, runId: j.runId };
}

async function check(path: string) {
  const { lines, torn } = chainLines(await readFile(path));
  return { report: checkChain(lines, torn), lines };
}

const lf = (lines: string[]) => `${lines.join('\n')}\n`;

describe('the hash chain of a run journal', () => {
  it('links every record to the line before it, lazy and grouped appends included; version 2', async () => {
    const { path } = await sixLines();
    const text = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    expect(text.map((l) => JSON.parse(l).type)).toEqual([
      'header',
      'intent',
      'outcome',
      'intent',
      'outcome',
      'finished',
    ]);
    expect(JSON.parse(text[0]!)).toMatchObject({ v: 2 });
    expect(JSON.parse(text[0]!).prev).toBeUndefined();
    for (let i = 1; i < text.length; i++) expect(JSON.parse(text[i]!).prev).toBe(lineHash(text[i - 1]!));
    const { report } = await check(path);
    expect(report).toMatchObject({ version: 2, legacy: false, lines: 6, lastType: 'finished' });
    expect(report.broken).toBeUndefined();
    expect(report.head).toBe(lineHash(text[5]!));
  });

  it('a resumed journal goes on from its last line, a torn one cut first', async () => {
    const j = await createRun(root, { op: 'refund' });
    await j.append({ type: 'intent', chunk: 0 });
    await j.close();
    await writeFile(j.path, `${await readFile(j.path, 'utf8')}{"type":"outcome","ch`);
    expect((await check(j.path)).report).toMatchObject({ tornLine: 3, lines: 2 });
    expect((await check(j.path)).report.broken).toBeUndefined();
    const opened = await openRun(root, j.runId);
    await opened.journal.append({ type: 'resumed', pid: 1 });
    await opened.journal.close();
    const { report } = await check(j.path);
    expect(report).toMatchObject({ lines: 3, lastType: 'resumed' });
    expect(report.broken).toBeUndefined();
    expect(report.tornLine).toBeUndefined();
  });

  it('names a changed record by the line after it', async () => {
    const { path, runId } = await sixLines();
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"succeeded"', '"failed"'));
    const { report } = await check(path);
    expect(report.broken).toEqual({
      line: 4,
      type: 'intent',
      why: 'its prev does not match line 3 (outcome) — line 3 was changed, or a record between them was removed',
    });
    // Resume refuses it (exit 4, a damaged journal), naming the line and the command that shows it.
    const refused = await openRun(root, runId).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JournalChainError);
    expect(refused).toBeInstanceOf(JournalDamagedError);
    expect(exitCodeFor(refused)).toBe(4);
    expect((refused as Error).message).toMatch(/line 4, intent: its prev does not match line 3/);
    expect((refused as JournalChainError).hint).toContain(`payops runs verify ${runId} --journal`);
    // A view reads it all the same and says so.
    const shown = await readRun(root, runId, undefined, { chain: 'report' });
    expect(shown.chain.broken?.line).toBe(4);
    expect(shown.records).toHaveLength(5);
  });

  it('names a removed record', async () => {
    const { path } = await sixLines();
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    lines.splice(2, 1);
    await writeFile(path, lf(lines));
    expect((await check(path)).report.broken).toMatchObject({
      line: 3,
      type: 'intent',
      why: expect.stringMatching(
        /prev does not match line 2 \(intent\) — line 2 was changed, or a record between them was removed/,
      ),
    });
  });

  it('names two records swapped', async () => {
    const { path } = await sixLines();
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    [lines[2], lines[3]] = [lines[3]!, lines[2]!];
    await writeFile(path, lf(lines));
    expect((await check(path)).report.broken).toEqual({
      line: 3,
      type: 'intent',
      why: 'its prev is the hash of line 4, which comes after it — records were reordered here',
    });
  });

  it('names a record added after the run finished, even with a correct link', async () => {
    const { path } = await sixLines();
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    const forged = JSON.stringify({ type: 'outcome', chunk: 2, rows: [], prev: lineHash(lines[5]!) });
    await writeFile(path, lf([...lines, forged]));
    expect((await check(path)).report.broken).toEqual({
      line: 7,
      type: 'outcome',
      why: "comes after the run's finished record (line 6) — a record was added after the run ended",
    });
  });

  it('a record dropped from the end, or the last one changed, is seen only against the head kept elsewhere', async () => {
    const { path } = await sixLines();
    const whole = await check(path);
    const kept = whole.report.head!;
    expect(compareHead(whole.lines, kept)).toEqual({ kind: 'same' });
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    // The finished record cut away: the chain left is whole, the kept head is nowhere.
    await writeFile(path, lf(lines.slice(0, 5)));
    const cut = await check(path);
    expect(cut.report.broken).toBeUndefined();
    expect(compareHead(cut.lines, kept)).toEqual({ kind: 'absent' });
    // The last line changed: the same.
    await writeFile(path, lf([...lines.slice(0, 5), lines[5]!.replace('"failed":1', '"failed":0')]));
    expect(compareHead((await check(path)).lines, kept)).toEqual({ kind: 'absent' });
    // A head kept earlier (before a resume): the journal went on after it.
    await writeFile(path, lf(lines));
    expect(compareHead((await check(path)).lines, lineHash(lines[3]!))).toEqual({
      kind: 'earlier',
      line: 4,
      more: 2,
    });
  });

  it('a line that is not JSON in the middle is named; a torn last line is a crash, not an edit', async () => {
    const { path } = await sixLines();
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    await writeFile(path, lf([...lines.slice(0, 2), 'garbage', ...lines.slice(2)]));
    expect((await check(path)).report.broken).toMatchObject({ line: 3, type: '?' });
    await writeFile(path, `${lf(lines.slice(0, 5))}${lines[5]!.slice(0, 20)}`);
    const torn = (await check(path)).report;
    expect(torn.broken).toBeUndefined();
    expect(torn.tornLine).toBe(6);
  });

  it('a version 1 journal is read and resumed as it was: unchained', async () => {
    const j = await createRun(root, { op: 'refund' });
    await j.close();
    const v1 = [
      JSON.stringify({
        type: 'header',
        v: 1,
        runId: j.runId,
        createdAt: '2026-11-01T00:00:00.000Z',
        op: 'refund',
      }),
      JSON.stringify({ type: 'intent', chunk: 0, at: 'x' }),
    ];
    await writeFile(j.path, lf(v1));
    const opened = await openRun(root, j.runId);
    expect(opened.chain).toMatchObject({ legacy: true, version: 1 });
    await opened.journal.append({ type: 'resumed', pid: 1 });
    await opened.journal.close();
    const text = (await readFile(j.path, 'utf8')).split('\n').filter(Boolean);
    expect(text).toHaveLength(3);
    expect(JSON.parse(text[2]!).prev).toBeUndefined();
    const read = await readRun(root, j.runId);
    expect(read.chain.broken).toBeUndefined();
    expect(read.records.map((r) => r.type)).toEqual(['intent', 'resumed']);
  });

  it('version 1 journals (no chain) are legacy; a chained record under a version 1 header is an edit', async () => {
    const header = JSON.stringify({ type: 'header', v: 1, runId: 'x', createdAt: 'y', op: 'refund' });
    const v1 = [header, JSON.stringify({ type: 'intent', chunk: 0 }), JSON.stringify({ type: 'finished' })];
    const plain = checkChain(chainLines(Buffer.from(lf(v1))).lines);
    expect(plain).toMatchObject({ version: 1, legacy: true, lines: 3 });
    expect(plain.broken).toBeUndefined();

    const { path } = await sixLines();
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    lines[0] = lines[0]!.replace('"v":2', '"v":1');
    const lowered = checkChain(chainLines(Buffer.from(lf(lines))).lines);
    expect(lowered.broken).toMatchObject({
      line: 2,
      why: expect.stringMatching(/says version 1, which has none — the header was changed/),
    });
  });
});
