import { describe, expect, it } from 'vitest';
import { InterruptedError, UsageError } from '../../../src/errors.js';
import { confirmOrExit } from '../../../src/output/confirm.js';
import { fakeIo } from './helpers.js';

/**
 * Types `keys` once the question is drawn on stderr (the prompt then listens), not after a guessed
 * delay: loading the prompt library can take longer than that on a loaded machine.
 */
function answerWhenAsked(stderr: { text(): string }, stdin: NodeJS.WritableStream, keys: string): void {
  const poll = setInterval(() => {
    if (!stderr.text().includes('?')) return;
    clearInterval(poll);
    stdin.write(keys);
  }, 5);
}

describe('confirmOrExit', () => {
  it('--yes goes ahead without asking', async () => {
    const { io, stderr } = fakeIo();
    await expect(confirmOrExit(io, { yes: true }, 'Refund 3 orders?')).resolves.toBeUndefined();
    expect(stderr.text()).toBe('');
  });

  it('without a terminal and without --yes refuses with exit 2 and a hint', async () => {
    for (const tty of [{}, { stdinTTY: true }, { stderrTTY: true }]) {
      const { io } = fakeIo(tty);
      const err = await confirmOrExit(io, {}, 'Refund?').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as UsageError).hint).toMatch(/pass --yes to run without a prompt/);
    }
  });

  it('asks on stderr and goes ahead on yes', async () => {
    const { io, stdin, stderr, stdout } = fakeIo({ stdinTTY: true, stderrTTY: true });
    const answer = confirmOrExit(io, {}, 'Refund 3 orders (USD 30.00)?');
    answerWhenAsked(stderr, stdin, 'y\r');
    await expect(answer).resolves.toBeUndefined();
    expect(stderr.text()).toContain('Refund 3 orders (USD 30.00)?');
    expect(stdout.text()).toBe('');
  });

  it('defaults to no and aborts with exit 2', async () => {
    const { io, stdin, stderr } = fakeIo({ stdinTTY: true, stderrTTY: true });
    const answer = confirmOrExit(io, {}, 'Refund?');
    answerWhenAsked(stderr, stdin, '\r');
    const err = await answer.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('nothing was sent');
  });

  it('treats n as no', async () => {
    const { io, stdin, stderr } = fakeIo({ stdinTTY: true, stderrTTY: true });
    const answer = confirmOrExit(io, {}, 'Refund?');
    answerWhenAsked(stderr, stdin, 'n\r');
    await expect(answer).rejects.toThrow('nothing was sent');
  });

  it('Ctrl-C at the prompt is exit 130, "cancelled — nothing was sent"', async () => {
    const { io, stdin, stderr } = fakeIo({ stdinTTY: true, stderrTTY: true });
    const answer = confirmOrExit(io, {}, 'Refund?');
    answerWhenAsked(stderr, stdin, '\x03');
    const err = await answer.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(130);
    expect((err as Error).message).toBe('cancelled — nothing was sent');
  });
});
