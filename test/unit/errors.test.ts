// The one place that maps an outcome to an exit code (src/errors.ts), for the case main() meets
// last: stdout's reader went away, or writing to it failed.
import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeAfterOutput } from '../../src/errors.js';

const open = { closed: false, error: undefined };
const piped = { closed: true, error: undefined };
const full = { closed: true, error: Object.assign(new Error('no space'), { code: 'ENOSPC' }) };

describe('exitCodeAfterOutput', () => {
  it("keeps the command's own code while stdout is open", () => {
    for (const code of [0, 1, 2, 3, 4, 130]) {
      expect(exitCodeAfterOutput(code, open, false)).toBe(code);
      expect(exitCodeAfterOutput(code, open, true)).toBe(code);
    }
  });

  it('a reader gone away (EPIPE): 141 for a command that moved no money, its own code otherwise', () => {
    expect(exitCodeAfterOutput(ExitCode.ok, piped, false)).toBe(ExitCode.brokenPipe);
    expect(exitCodeAfterOutput(ExitCode.usage, piped, false)).toBe(ExitCode.brokenPipe);
    expect(exitCodeAfterOutput(ExitCode.ok, piped, true)).toBe(ExitCode.ok);
    expect(exitCodeAfterOutput(ExitCode.gateway, piped, true)).toBe(ExitCode.gateway);
  });

  it("writing failed (a full disk): exit 4 for a reader that had succeeded, else the command's own", () => {
    expect(exitCodeAfterOutput(ExitCode.ok, full, false)).toBe(ExitCode.config);
    expect(exitCodeAfterOutput(ExitCode.someFailed, full, false)).toBe(ExitCode.someFailed);
    expect(exitCodeAfterOutput(ExitCode.ok, full, true)).toBe(ExitCode.ok);
  });
});
