import { PassThrough } from 'node:stream';
import type { Io } from '../../../src/io.js';

export interface Captured extends PassThrough {
  isTTY?: boolean;
  columns?: number;
  text(): string;
}

export function capture(isTTY = false): Captured {
  const s = new PassThrough() as Captured;
  let out = '';
  s.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  s.isTTY = isTTY;
  s.text = () => out;
  return s;
}

export function fakeIo(opts: { stdoutTTY?: boolean; stderrTTY?: boolean; stdinTTY?: boolean } = {}) {
  const stdout = capture(opts.stdoutTTY ?? false);
  const stderr = capture(opts.stderrTTY ?? false);
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = opts.stdinTTY ?? false;
  const io: Io = { stdin, stdout, stderr, env: {}, cwd: process.cwd() };
  return { io, stdout, stderr, stdin };
}
