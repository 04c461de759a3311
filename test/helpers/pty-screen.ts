// The real binary on a terminal of a fixed width (util-linux `script` gives it a pty), and what a
// person would see on it: a small terminal model that applies the output's carriage returns, line
// erasures and cursor moves, and counts every line the terminal had to wrap (text wider than it).
import { spawn, spawnSync } from 'node:child_process';
import { charWidth } from '../../src/output/width.js';
import { PAYOPS_BIN, REPO_ROOT } from './run-cli.js';

export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

export interface PtyRun {
  code: number | null;
  /** Everything written to the terminal, control sequences included. */
  raw: string;
}

export interface PtyOptions {
  /** The terminal's width (default: whatever `script` gives it). */
  columns?: number;
  /** The terminal's height (default 50). */
  rows?: number;
  /** $TERM (default xterm). */
  term?: string;
  env: NodeJS.ProcessEnv;
  /** The folder it runs in (default: the repository). */
  cwd?: string;
  /** Typed (with Enter) once their prompt text has shown up, in order. */
  answers?: Array<[prompt: string, text: string]>;
  /** Ctrl-C is typed once this is true of the output so far. */
  interruptWhen?: (raw: string) => boolean;
  timeoutMs?: number;
}

export function underPty(args: string[], opts: PtyOptions): Promise<PtyRun> {
  const quoted = [process.execPath, PAYOPS_BIN, ...args]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(' ');
  const command =
    opts.columns === undefined ? quoted : `stty cols ${opts.columns} rows ${opts.rows ?? 50}; ${quoted}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: opts.cwd ?? REPO_ROOT,
    // No pager unless a test names one: `less` would wait for keys nobody types (output/pager.ts).
    env: {
      ...(opts.env.PAYOPS_PAGER === undefined && opts.env.PAGER === undefined ? { PAYOPS_PAGER: '' } : {}),
      ...opts.env,
      TERM: opts.term ?? 'xterm',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  const pending = [...(opts.answers ?? [])];
  let interrupted = false;
  const onData = (d: Buffer) => {
    raw += d.toString('utf8');
    const next = pending[0];
    if (next && raw.includes(next[0])) {
      pending.shift();
      child.stdin.write(`${next[1]}\r`);
    }
    if (!interrupted && opts.interruptWhen?.(raw)) {
      interrupted = true;
      child.stdin.write('\u0003');
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, raw });
    });
  });
}

export interface Screen {
  /** The lines as they stand at the end, trailing spaces removed. */
  lines: string[];
  /** Lines the terminal wrapped because text went past its last column. */
  wraps: string[];
}

/** What `raw` leaves on a terminal `columns` wide (scrollback included). */
export function screenOf(raw: string, columns: number): Screen {
  const lines: string[][] = [[]];
  const wraps: string[] = [];
  let row = 0;
  let col = 0;
  let pendingWrap = false;
  const line = () => {
    while (lines.length <= row) lines.push([]);
    return lines[row]!;
  };
  const put = (ch: string) => {
    const w = charWidth(ch);
    if (w === 0) return;
    if (pendingWrap || col + w > columns) {
      wraps.push(line().join(''));
      row++;
      col = 0;
      pendingWrap = false;
    }
    const l = line();
    while (l.length < col) l.push(' ');
    l[col] = ch;
    if (w === 2) l[col + 1] = '';
    col += w;
    if (col >= columns) {
      col = columns - 1;
      pendingWrap = true;
    }
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\u001b') {
      const m = /^\u001b\[([?0-9;]*)([A-Za-z])/.exec(raw.slice(i, i + 16));
      if (!m) {
        i++; // ESC 7, ESC 8 and the like: no text
        continue;
      }
      i += m[0].length - 1;
      const n = Number(m[1]!.split(';')[0] || '1');
      pendingWrap = false;
      if (m[2] === 'K') {
        const l = line();
        if (m[1] === '2') l.length = 0;
        else if (m[1] === '' || m[1] === '0') l.length = Math.min(l.length, col);
      } else if (m[2] === 'G') col = Math.max(0, n - 1);
      else if (m[2] === 'A') row = Math.max(0, row - n);
      else if (m[2] === 'B') row += n;
      else if (m[2] === 'C') col = Math.min(columns - 1, col + n);
      else if (m[2] === 'D') col = Math.max(0, col - n);
      else if (m[2] === 'J' && (m[1] === '' || m[1] === '0')) {
        line().length = Math.min(line().length, col);
        lines.length = row + 1;
      }
      continue;
    }
    if (c === '\r') {
      col = 0;
      pendingWrap = false;
    } else if (c === '\n') {
      row++;
      pendingWrap = false;
    } else if (c === '\b') col = Math.max(0, col - 1);
    else if (c >= ' ') put(c);
  }
  return { lines: lines.map((l) => l.join('').trimEnd()), wraps };
}
