// The real binary under a pseudo-terminal (util-linux `script`) at a fixed width, answering its
// prompts as a person would: each answer is typed once its prompt's text has shown up. An answer
// ending in `\x03` is Ctrl-C (sent as is); any other gets Enter after it.
import { spawn, spawnSync } from 'node:child_process';
import { PAYOPS_BIN, REPO_ROOT } from '../../helpers/run-cli.js';

export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

export const CTRL_C = '\x03';

export interface PtyResult {
  code: number | null;
  /** Everything the terminal showed, prompts and answers included. */
  out: string;
  /** Answers whose prompt never showed up. */
  unanswered: string[];
}

const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;

export function underPty(
  args: string[],
  answers: Array<[prompt: string | RegExp, text: string]>,
  env: NodeJS.ProcessEnv,
  columns = 80,
): Promise<PtyResult> {
  const command = `stty cols ${columns} rows 40; exec ${[process.execPath, PAYOPS_BIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    // No pager: `less` would wait for keys nobody types (output/pager.ts).
    env: { PAYOPS_PAGER: '', ...env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let seen = 0;
  const pending = [...answers];
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    const next = pending[0];
    if (!next) return;
    const rest = out.slice(seen);
    const m = typeof next[0] === 'string' ? rest.indexOf(next[0]) : rest.search(next[0]);
    if (m < 0) return;
    seen += m + 1;
    pending.shift();
    const text = next[1];
    // A moment for the prompt to finish drawing before the keys arrive.
    setTimeout(() => child.stdin.write(text.endsWith(CTRL_C) ? text : `${text}\r`), 50);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), Number(process.env.PTY_KILL_MS ?? 60_000));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, unanswered: pending.map(([p]) => String(p)) });
    });
  });
}
