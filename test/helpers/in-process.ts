// Runs payops in this process, the way gh tests its commands (`runF`): main(argv, io) with a fake
// Io — captured stdout and stderr, an environment with its own PAYOPS_HOME, a temporary working
// folder — and no build and no child process. Whatever main() leaves behind (a SIGINT listener, an
// exit code on `process`) is there for the next test to see, which is what checkNoLeftovers is for.
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { ContextOverrides } from '../../src/context.js';
import type { Io } from '../../src/io.js';
import { cliEnv, tempDir } from './run-cli.js';

/** A stream that keeps what is written to it. */
export class Capture extends Writable {
  text = '';
  constructor(readonly isTTY = false) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

export interface FakeIoOptions {
  /** PAYOPS_HOME; a new temporary folder by default. */
  home?: string;
  /** The working folder; a new temporary folder by default. */
  cwd?: string;
  /** Added to (or, when undefined, removed from) the environment, as for runCli. */
  env?: Record<string, string | undefined>;
  /** The whole of stdin; empty by default. */
  input?: string;
}

export type FakeIo = Io & { stdout: Capture; stderr: Capture; home: string };

export function fakeIo(opts: FakeIoOptions = {}): FakeIo {
  const home = opts.home ?? tempDir('payops-home-');
  return {
    stdin: Readable.from(opts.input === undefined ? [] : [opts.input]),
    stdout: new Capture(),
    stderr: new Capture(),
    env: cliEnv(home, opts.env),
    cwd: opts.cwd ?? tempDir('payops-cwd-'),
    home,
  };
}

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `payops ...argv` in this process. */
export async function runMain(
  argv: string[],
  io: FakeIo = fakeIo(),
  overrides?: ContextOverrides,
): Promise<MainResult> {
  const code = await main(argv, io, overrides);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** What main() must not leave behind between invocations: signal listeners, an exit code, servers. */
export function processState(): { sigint: number; sigterm: number; exitCode: unknown; servers: number } {
  return {
    sigint: process.listenerCount('SIGINT'),
    sigterm: process.listenerCount('SIGTERM'),
    exitCode: process.exitCode,
    // A listening socket (an in-process sandbox left running) shows here.
    servers: process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length,
  };
}
