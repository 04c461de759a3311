// Long output on a terminal through a pager, as gh and git do (issue 27, item 6): `runs show` of a
// 1,003-row run and the help no longer scroll away. The command writes to a stand-in stdout that
// looks like the terminal (same width, a TTY) and holds the text; at the end the text goes to
// $PAYOPS_PAGER, else $PAGER, else `less -FRX` — when it is longer than the screen. Never when
// stdout is not a terminal; `--no-pager` or an empty PAYOPS_PAGER turn it off; a pager that is
// missing or fails leaves the text written plainly.
import { spawn } from 'node:child_process';
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
  /** Show what was written: through the pager when longer than the screen, else as it is. */
  finish(): Promise<void>;
}

/** A stand-in stdout for `io`, or undefined when this output is not to be paged. */
export function startPaging(io: Io, noPager: boolean): Paged | undefined {
  const real = io.stdout as Io['stdout'] & { rows?: number };
  if (!real.isTTY) return undefined;
  const command = pagerCommand(io.env, noPager);
  if (command === undefined) return undefined;
  const chunks: string[] = [];
  const held = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  }) as Writable & { isTTY?: boolean; columns?: number; rows?: number };
  held.isTTY = true;
  if (real.columns !== undefined) held.columns = real.columns;
  if (real.rows !== undefined) held.rows = real.rows;
  return {
    stdout: held as unknown as Io['stdout'],
    async finish() {
      await new Promise<void>((resolve) => held.end(resolve));
      const text = chunks.join('');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      // A screen's worth (one line kept for the prompt) is written as it is: no pager to quit.
      if (lines < (real.rows ?? 24)) {
        real.write(text);
        return;
      }
      if (!(await throughPager(command, text, io.env))) real.write(text);
    },
  };
}

/** True when the pager showed `text` and ended well; false when it is missing or failed. */
function throughPager(command: string, text: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    // Ctrl-C inside less is less's (as git does): payops must not end under it and leave it orphaned.
    const ignore = () => {};
    process.on('SIGINT', ignore);
    const done = (ok: boolean) => {
      process.off('SIGINT', ignore);
      resolve(ok);
    };
    // less: -R shows colours, -F quits when it fits, -X leaves the text on the screen (gh sets LESS too).
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { LESS: 'FRX', LV: '-c', ...env },
    });
    child.on('error', () => done(false));
    // The person quit before reading it all: the rest is not wanted (EPIPE).
    child.stdin.on('error', () => {});
    child.stdin.end(text);
    // Not 0: the shell found no such command (127), could not run it (126), or the pager failed.
    child.on('close', (code) => done(code === 0));
  });
}
