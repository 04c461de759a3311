// The results file (sink.ts, safe-file.ts): streamed to a private temporary file beside it and
// renamed into place; never written through a link; an existing file replaced only when it is a
// regular file of the user's own; never one of the command's inputs.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeFor, LocalWriteError, UsageError } from '../../../src/errors.js';
import { checkOutFile, replaceProblem } from '../../../src/output/safe-file.js';

/** A PAYOPS_HOME that none of these paths is in. */
const elsewhere = { PAYOPS_HOME: '/nonexistent/payops-home' };

import { openTextSink, writeWholeFile } from '../../../src/output/sink.js';

const root = mkdtempSync(join(tmpdir(), 'payops-sink-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function folder(): string {
  const dir = join(root, `case-${n++}`);
  mkdirSync(dir);
  return dir;
}

const temps = (dir: string) => readdirSync(dir).filter((f) => /^\..+\.payops-[0-9a-f]{8}\.tmp$/.test(f));

describe('a results file', () => {
  it('is written to a private temporary file beside it, and renamed into place at the end', async () => {
    const dir = folder();
    const dest = join(dir, 'results.csv');
    writeFileSync(dest, 'old\n');
    chmodSync(dest, 0o644);
    const sink = openTextSink(dest);
    await sink.ready;
    await sink.write('a,b\r\n');
    // While it is written, the old file is as it was and the rows are in `.results.csv.payops-….tmp`.
    const [temp] = temps(dir);
    expect(temp).toMatch(/^\.results\.csv\.payops-[0-9a-f]{8}\.tmp$/);
    expect(statSync(join(dir, temp!)).mode & 0o777).toBe(0o600);
    expect(readFileSync(dest, 'utf8')).toBe('old\n');
    await sink.end();
    expect(readFileSync(dest, 'utf8')).toBe('a,b\r\n');
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    expect(temps(dir)).toEqual([]);
  });

  it('is left as it was by discard() (the run never began), and the temporary file removed', async () => {
    const dir = folder();
    const dest = join(dir, 'results.csv');
    writeFileSync(dest, 'old\n');
    const sink = openTextSink(dest);
    await sink.ready;
    await sink.write('new\n');
    await sink.discard();
    await sink.end(); // after discard: nothing more happens
    expect(readFileSync(dest, 'utf8')).toBe('old\n');
    expect(temps(dir)).toEqual([]);
  });

  it('is never written through a symbolic link: refused at open, the linked file untouched', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'victim.txt'), 'keep\n');
    symlinkSync('victim.txt', join(dir, 'link.csv'));
    const sink = openTextSink(join(dir, 'link.csv'));
    await expect(sink.ready).rejects.toBeInstanceOf(UsageError);
    await expect(sink.ready).rejects.toThrow(/is a symbolic link \(to victim\.txt\)/);
    expect(readFileSync(join(dir, 'victim.txt'), 'utf8')).toBe('keep\n');
    expect(temps(dir)).toEqual([]);
  });

  it('replaces a link put in its place while it was written, never the file the link points at', async () => {
    const dir = folder();
    const dest = join(dir, 'results.csv');
    writeFileSync(join(dir, 'victim.txt'), 'keep\n');
    const sink = openTextSink(dest);
    await sink.ready;
    await sink.write('rows\n');
    symlinkSync('victim.txt', dest);
    const err = await sink.end().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalWriteError);
    expect(exitCodeFor(err)).toBe(4);
    // The rows are kept where the message says.
    const kept = /they are in (\S+)$/.exec((err as Error).message)?.[1];
    expect(readFileSync(kept!, 'utf8')).toBe('rows\n');
    expect(readFileSync(join(dir, 'victim.txt'), 'utf8')).toBe('keep\n');
  });

  it('writeWholeFile writes a whole text the same way', async () => {
    const dir = folder();
    const dest = join(dir, 'page.html');
    await writeWholeFile(dest, '<form>');
    expect(readFileSync(dest, 'utf8')).toBe('<form>');
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    symlinkSync('page.html', join(dir, 'link.html'));
    await expect(writeWholeFile(join(dir, 'link.html'), 'x')).rejects.toBeInstanceOf(UsageError);
    expect(readFileSync(dest, 'utf8')).toBe('<form>');
  });
});

describe('replaceProblem', () => {
  it('allows a new path and a regular file of the user; refuses a link, a folder, a device, a pipe', () => {
    const dir = folder();
    expect(replaceProblem(join(dir, 'new.csv'))).toBeUndefined();
    writeFileSync(join(dir, 'mine.csv'), '');
    expect(replaceProblem(join(dir, 'mine.csv'))).toBeUndefined();
    symlinkSync('nowhere', join(dir, 'dangling.csv'));
    expect(replaceProblem(join(dir, 'dangling.csv'))).toMatch(/^is a symbolic link \(to nowhere\)/);
    expect(replaceProblem(dir)).toMatch(/^is a folder/);
    expect(replaceProblem('/dev/null')).toMatch(/^is a device, pipe or socket/);
    if (spawnSync('mkfifo', [join(dir, 'fifo')]).status === 0) {
      expect(replaceProblem(join(dir, 'fifo'))).toMatch(/^is a device, pipe or socket/);
    }
  });

  it.runIf(process.getuid?.() === 0)("refuses another user's file", () => {
    const dir = folder();
    const theirs = join(dir, 'theirs.csv');
    writeFileSync(theirs, '');
    chownSync(theirs, 65534, 65534);
    expect(replaceProblem(theirs)).toMatch(/^belongs to another user \(uid 65534\)/);
  });
});

describe('checkOutFile (before anything is sent)', () => {
  it('refuses --out that is an input: the same path, another spelling, a hard or symbolic link', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'in.csv'), 'x\n');
    mkdirSync(join(dir, 'sub'));
    linkSync(join(dir, 'in.csv'), join(dir, 'hard.csv'));
    symlinkSync('in.csv', join(dir, 'soft.csv'));
    for (const out of ['in.csv', './sub/../in.csv', join(dir, 'in.csv'), 'hard.csv', 'soft.csv']) {
      const err = await checkOutFile(dir, out, [{ flag: '--file', path: 'in.csv' }], elsewhere).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, out).toBeInstanceOf(UsageError);
      expect((err as Error).message, out).toBe(
        `--out ${out} is the same file as --file in.csv: the results would replace the input; nothing was sent`,
      );
    }
    expect(readFileSync(join(dir, 'in.csv'), 'utf8')).toBe('x\n');
  });

  it("refuses payops's own folders, however they are spelled (a link to PAYOPS_HOME)", async () => {
    const dir = folder();
    const home = join(dir, 'home');
    mkdirSync(join(home, 'state', 'runs'), { recursive: true });
    symlinkSync(home, join(dir, 'via'));
    const env = { PAYOPS_HOME: home };
    await expect(checkOutFile(dir, 'home/config.json', [], env)).rejects.toThrow(
      /^--out home\/config\.json is payops's configuration file; nothing was sent$/,
    );
    for (const out of ['via/state/runs/x/journal.jsonl', 'via/state/new.csv']) {
      await expect(checkOutFile(dir, out, [], env), out).rejects.toThrow(
        new RegExp(
          `^--out ${out} is inside .*home/state, where payops keeps its run journals; nothing was sent$`,
        ),
      );
    }
    // Beside them is fine: PAYOPS_HOME may well be the folder a job keeps its files in.
    await expect(checkOutFile(dir, 'via/results.csv', [], env)).resolves.toBeUndefined();
    await expect(checkOutFile(dir, 'results.csv', [], env)).resolves.toBeUndefined();
  });

  it('accepts another file, and no --out at all; refuses a link and a missing folder', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'in.csv'), 'x\n');
    const inputs = [{ flag: '--file', path: 'in.csv' }];
    await expect(checkOutFile(dir, 'out.csv', inputs, elsewhere)).resolves.toBeUndefined();
    await expect(checkOutFile(dir, undefined, inputs, elsewhere)).resolves.toBeUndefined();
    symlinkSync('elsewhere.csv', join(dir, 'link.csv'));
    await expect(checkOutFile(dir, 'link.csv', inputs, elsewhere)).rejects.toThrow(
      /^--out link\.csv is a symbolic link \(to elsewhere\.csv\).*nothing was sent$/,
    );
    await expect(checkOutFile(dir, 'missing/out.csv', inputs, elsewhere)).rejects.toThrow(
      /folder does not exist/,
    );
    unlinkSync(join(dir, 'link.csv'));
    expect(existsSync(join(dir, 'elsewhere.csv'))).toBe(false);
  });
});
