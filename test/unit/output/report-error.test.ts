// How an error reaches a person: what went wrong once, where, and what to do next.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import type { Io } from '../../../src/io.js';
import { reportError } from '../../../src/output/report-error.js';

function stderrOf(err: unknown): string {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d: Buffer) => {
    text += d.toString('utf8');
  });
  const io = {
    stderr,
    stdout: new PassThrough(),
    stdin: new PassThrough(),
    env: {},
    cwd: '/',
  } as unknown as Io;
  reportError(err, io, { debug: false });
  return text;
}

describe('reportError', () => {
  it('says a one-problem error once when the problem is the message (a missing file)', () => {
    const text = stderrOf(
      new InputError('refunds.csv: no such file', [{ file: 'refunds.csv', message: 'no such file' }]),
    );
    expect(text).toBe('error: refunds.csv: no such file\n');
  });

  it('lists problems that add a line or a field', () => {
    const text = stderrOf(
      new InputError('refunds.csv: 1 row is not valid', [
        { file: 'refunds.csv', line: 3, field: 'amount', message: 'not an amount', expected: '12.50' },
      ]),
    );
    expect(text).toBe(
      'error: refunds.csv: 1 row is not valid\n  refunds.csv:3 amount: not an amount (expected 12.50)\n',
    );
  });
});
