// Long output on a terminal through a pager, as gh and git do (issue 27, item 6): `runs show` of a
// 1,003-row run and the help no longer scroll away. The command writes to a stand-in stdout that
// looks like the terminal (same width, a TTY). Its text is held until it is longer than the
// screen; then $PAYOPS_PAGER, else $PAGER, else `less -FRX` starts and takes it all, and the rest as
// it comes. Output that ends within a screen is written as it is. Order is kept: a message on the
// same terminal (stderr) written while text is held first lets the held text out, and one written
// while the pager runs goes into the pager, so a summary never lands above its table nor over less.
// Never when stdout is not a terminal; `--no-pager` or an empty PAYOPS_PAGER turn it off; a pager
// that is missing or fails leaves the text written plainly.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import type { Io } from '../io.js';

export const DEFAULT_PAGER = 'less -FRX';

/** The pager command for this environment, or undefined when paging is off. */
export function pagerCommand(env: NodeJS.ProcessEnv, noPager: boolean): string | undefined {
  if (noPager) return undefined;
  // An empty PAYOPS_PAGER (or PAGER) is a request for no pager, as GH_PAGER= is for gh.
  const chosen = env.PAYOPS_PAGER ?? env.PAGER ?? DEFAULT_PAGER;
  const cmd = chosen.trim();
  return cmd === '' || cmd === 'cat' ? undefined : cmd;
}

export interface Paged {
  /** The stand-in stdout the command writes to. */
  stdout: Io['stdout'];
  /** The stand-in stderr, when stderr is the same terminal (else the real one). */
  stderr: Io['stderr'];
  /** Show what is still held, or wait for the pager to end. */
  finish(): Promise<void>;
}

type TermStream = Io['stdout'] & { rows?: number };
type Pager = ChildProcessByStdio<import('node:stream').Writable, null, null>;

/** A stand-in stdout (and stderr) for `io`, or undefined when this output is not to be paged. */
export function startPaging(io: Io, noPager: boolean): Paged | undefined {
  const real = io.stdout as TermStream;
  if (!real.isTTY) return undefined;
  const command = pagerCommand(io.env, noPager);
  if (command === undefined) return undefined;
  const realErr = io.stderr as TermStream;
  const screen = real.rows ?? 24;
  let state: 'holding' | 'paging' | 'direct' = 'holding';
  let held = '';
  /** Everything given to the pager, written plainly if it turns out missing or failing. */
  let given = '';
  let pager: Pager | undefined;
  let pagerGone = false;
  let ended: Promise<boolean> | undefined;
  const ignoreSigint = () => {};

  const toPager = (text: string, done: () => void) => {
    given += text;
    if (pagerGone || !pager) return done();
    if (pager.stdin.write(text)) done();
    else pager.stdin.once('drain', done);
  };
  const startPager = () => {
    state = 'paging';
    // Ctrl-C inside less is less's (as git does): payops must not end under it and leave it orphaned.
    process.on('SIGINT', ignoreSigint);
    // less: -R shows colours, -F quits when it fits, -X leaves the text on the screen (gh sets LESS too).
    pager = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { LESS: 'FRX', LV: '-c', ...io.env },
    });
    const p = pager;
    ended = new Promise((resolve) => {
      p.on('error', () => resolve(false));
      // Not 0: the shell found no such command (127), could not run it (126), or the pager failed.
      p.on('close', (code) => resolve(code === 0));
    });
    // The person quit before reading it all: the rest is not wanted (EPIPE); a writer waiting for
    // 'drain' goes on.
    p.stdin.on('error', () => {
      pagerGone = true;
      p.stdin.emit('drain');
    });
  };

  const stand = (
    base: TermStream,
    write: (text: string, done: () => void) => void,
  ): Writable & { isTTY?: boolean; columns?: number; rows?: number } => {
    const w = new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _enc, done) {
        write(typeof chunk === 'string' ? chunk : chunk.toString('utf8'), () => done());
      },
    }) as Writable & { isTTY?: boolean; columns?: number; rows?: number };
    w.isTTY = true;
    if (base.columns !== undefined) w.columns = base.columns;
    if (base.rows !== undefined) w.rows = base.rows;
    return w;
  };

  const out = stand(real, (text, done) => {
    if (state === 'direct') return real.write(text) ? done() : real.once('drain', done);
    if (state === 'paging') return toPager(text, done);
    held += text;
    // More than a screen (one line kept for the prompt): from here on it is the pager's.
    if (lineCount(held) >= screen) {
      const all = held;
      held = '';
      startPager();
      return toPager(all, done);
    }
    done();
  });
  // A message on the same terminal keeps its place among the lines of stdout.
  const err = realErr.isTTY
    ? stand(realErr, (text, done) => {
        if (state === 'paging') return toPager(text, done);
        if (state === 'holding' && held !== '') {
          // Text held so far fits the screen: it goes out now, and what follows goes out as it comes.
          real.write(held);
          held = '';
          state = 'direct';
        }
        return realErr.write(text) ? done() : realErr.once('drain', done);
      })
    : undefined;

  return {
    stdout: out as unknown as Io['stdout'],
    stderr: (err ?? realErr) as unknown as Io['stderr'],
    async finish() {
      await Promise.all([
        new Promise<void>((resolve) => out.end(resolve)),
        err ? new Promise<void>((resolve) => err.end(resolve)) : undefined,
      ]);
      if (state === 'holding') {
        if (held !== '') real.write(held);
        return;
      }
      if (state !== 'paging' || !pager) return;
      if (!pagerGone) pager.stdin.end();
      const ok = await ended!;
      process.off('SIGINT', ignoreSigint);
      // A pager that could not run (or failed) showed nothing: the text is written plainly.
      if (!ok) real.write(given);
    },
  };
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
